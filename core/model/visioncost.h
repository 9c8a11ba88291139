#pragma once
// The vision tower on the first stage (model.vision_*, exec.visual_seq_len): what one
// micro-batch's images cost before their tokens enter the language model's first layer.
// Its blocks are priced as layers of their own shape (layercost.h) over the patches -
// visual_seq_len · merge² per sample, attention both ways, a windowed block's within its
// window - under the strategy's TP,
// SP and CP and the recompute class of the stage's first layer. The patch embedding (a
// Conv3d, whole on every TP rank, with a learned position table where the tower has
// one) and the merger (norm and two linear layers over merge² patches, or Gemma 3's
// average of merge² patches, RMSNorm and one linear layer; split over TP as
// Megatron-LM's vision projection is) are priced as their GEMMs, and keep their inputs.
#include "model/layercost.h"

namespace tessera::core {

struct VisionCost {
    double kept = 0;            // bytes saved for backward, one micro-batch
    double working = 0;         // the largest block's transient beside them
    double paramsDevice = 0;    // elements on one device
    double forward = 0, backwardInput = 0, backwardWeight = 0, recompute = 0;  // one micro-batch, seconds
    double commExposedForward = 0, commExposedBackward = 0;  // included above
    double tpExposed = 0, cpExposed = 0, tpSeconds = 0, cpSeconds = 0;
    double modelFlopsForward = 0;  // whole micro-batch, all ranks
};

// The part of the tower one stage runs (exec.vision_partition): blocks [first, end), the
// patch embedding and the norm before the blocks on the tower's first stage, the norm
// after them and the projector on its last.
struct VisionPart {
    std::int64_t first = 0, end = 0;
    bool embed = false, projector = false;
};
// What stage `stage` of the strategy runs of the tower; nothing (end == first, no embed or
// projector) on a stage that holds none of it.
VisionPart visionPartOf(const VisionShape& v, const Strategy& st, std::int64_t stage);
// The stage the text layers begin on: the tower's last (stage 0 with the tower whole there).
inline std::int64_t firstTextStage(const Strategy& st) {
    std::int64_t last = 0;
    for (std::size_t s = 0; s < st.visionBlocks.size(); ++s)
        if (st.visionBlocks[s] > 0) last = std::int64_t(s);
    return last;
}

// Zero when the input has no vision tower or the part is empty.
VisionCost visionCost(const CostInput& in, const RecomputeClass& cls, const GroupLinks& links, const VisionPart& part);

}  // namespace tessera::core
