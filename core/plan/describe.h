#pragma once
// The model as the seed's pipeline balancer sees it (its PPB input, _ppb.py): the
// head (embedding), each distinct body kind with its count, the tail (final norm,
// output layer, loss), and per body the five recompute options, each with what a
// layer keeps per micro-batch in flight and its backward time, beside the memory it
// holds once. An option no body is better off with (another keeps no more and takes
// no longer, ties to the earlier in NONE, SLCT, COMM, BOTH, FULL) is withdrawn from
// every body, as the seed withdraws it (_ppb.py:438-471); NONE and FULL always stay.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/planner.h"

namespace tessera::core {

struct OptionDescription {
    double perMicroBatch = 0;  // bytes kept per micro-batch in flight
    double backward = 0;       // seconds: the backward under this option, its recompute included
    bool withdrawn = false;
};

struct LayerDescription {
    std::string type;  // HEAD, BODY, TAIL
    std::string name;  // HEAD, BODY_1, ..., TAIL
    std::string kind;  // the layer kind (LayerKind::name) of a body
    std::int64_t count = 1;
    double once = 0;   // bytes held once: parameters, gradients, states, master copy (+ the largest working set)
    double forward = 0, backward = 0;  // seconds, one micro-batch
    std::array<OptionDescription, kPlanOptions> options{};  // bodies only
};

struct LayerDescriptions {
    std::string model;
    std::vector<LayerDescription> layers;  // head, bodies in model order, tail
};

// The descriptions of `in`'s strategy; SLCT keeps `selectiveKeep`.
LayerDescriptions describeLayers(const CostInput& in, OpMask selectiveKeep, const std::string& modelName);

// The seed's PPB input JSON ({"layers_description": [...]}): memories in whole MiB
// (int(bytes / 2^20)), times in units of the first body's forward time.
std::string ppbJson(const LayerDescriptions& d);

}  // namespace tessera::core
