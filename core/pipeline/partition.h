#pragma once
// Which layers each pipeline stage holds. Layers are placed in model order, chunk
// by chunk: chunk c of stage s holds layers[c][s] consecutive layers, and the
// model runs chunk 0 of stages 0..p-1, then chunk 1 of stages 0..p-1, and so on
// (Narayanan et al. 2021, interleaved schedule); under a V schedule (zbv, dualpipev)
// chunk 1 runs back up, stages p-1..0 (model/stagebody.h StageContext::position). Without an offset or an explicit
// partition every chunk holds the same number of layers; an offset adds layers to
// some chunks and takes them from others (the seed's `offset`), and a partition
// states every count outright (`pp_partition`).
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "spec/field.h"

namespace tessera::core {

struct Partition {
    std::vector<std::vector<std::int64_t>> layers;  // [chunk][stage]
    std::int64_t stageLayers(std::size_t stage) const;  // over all chunks
};

// The partition, or why there is none (a sentence naming the numbers). `textless`: the
// first stages, before the one where a split vision tower ends (exec.vision_partition),
// which hold no layer of the language model; only a stated partition places around them.
std::variant<Partition, std::string> partitionLayers(std::int64_t totalLayers, std::int64_t pp, std::int64_t vpp,
                                                     const std::optional<StageCounts>& offset,
                                                     const std::optional<StageCounts>& explicitPartition,
                                                     std::int64_t textless = 0);

}  // namespace tessera::core
