#pragma once
// Which layers each pipeline stage holds and what each recomputes, as the cost model
// places them (the strategy's partition, or the even split; MTP after the last
// chunk when it is not in the partition): what the Memory view's layer strip draws
// and its tooltips name.
#include <cstdint>
#include <string>
#include <vector>

#include "model/costinput.h"

namespace tessera::core {

struct PlacedLayer {
    std::int64_t layer = 0;  // in model order: body, then MTP
    int chunk = 0;           // the stage's virtual chunk
    std::size_t kind = 0;    // index into ModelShape::kinds
    std::size_t cls = 0;     // index into Strategy::classes
    bool offloaded = false;  // its activations go to the host (exec.activation_offload)
};

// Per stage, its layers in the order it runs them (chunk by chunk). Under dualpipe
// per device: its own stage as chunk 0, then the mirrored stage p-1-s as chunk 1.
std::vector<std::vector<PlacedLayer>> layersByStage(const CostInput& in);

// The layers by stage with the words a view shows: every recompute class's and layer
// kind's name (indices as PlacedLayer's).
struct StagedLayers {
    std::vector<std::vector<PlacedLayer>> stages;
    std::vector<std::string> classNames;  // per Strategy::classes, recomputeClassText()
    std::vector<std::string> kindNames;   // per ModelShape::kinds
};
StagedLayers stagedLayers(const ResolvedScenario& r);

// A recompute class in words: "none", "full", "selective" (the run's rule, `ruleKeep`),
// or "recompute normOp, attUp" naming the ops it drops (the exec spelling's op names).
std::string recomputeClassText(const RecomputeClass& c, OpMask ruleKeep);

}  // namespace tessera::core
