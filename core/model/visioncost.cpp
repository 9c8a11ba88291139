#include "model/visioncost.h"

#include <algorithm>

namespace tessera::core {

VisionCost visionCost(const CostInput& in, const RecomputeClass& cls, const GroupLinks& links) {
    VisionCost out;
    const VisionShape& v = in.vision;
    if (v.blocks == 0 || v.tokens == 0) return out;
    const Strategy& st = in.strategy;
    const DeviceInfo& dev = in.device;
    RunSettings run = in.run;
    // The blocks run on the patches, before the merger folds them; a hostile visual_seq_len
    // (up to seq_length, itself unbounded) saturates rather than overflowing int64.
    if (__builtin_mul_overflow(v.tokens, v.merge, &run.seq)) run.seq = std::int64_t{1} << 62;
    // The blocks that attend over the whole image, and those within a window.
    const LayerCost full = layerCost(v.block, run, st, dev, v.block.kinds.front(), cls, links);
    ModelShape windowed = v.block;
    windowed.window = v.windowPatches;
    const LayerCost inWindow = v.windowPatches > 0 ? layerCost(windowed, run, st, dev, v.block.kinds.front(), cls, links) : full;
    const double nFull = double(v.fullBlocks), nWindow = double(v.blocks - v.fullBlocks);
    auto add = [&](const LayerCost& block, double n) {
        out.kept += n * block.kept;
        if (n > 0) out.working = std::max(out.working, block.keptNone - block.kept + block.gradBuffer + block.gatheredInput);
        out.paramsDevice += n * block.paramsDevice;
        out.forward += n * block.forward;
        out.backwardInput += n * block.backwardInput;
        out.backwardWeight += n * block.backwardWeight;
        out.recompute += n * block.recompute;
        out.commExposedForward += n * block.commExposedForward;
        out.commExposedBackward += n * block.commExposedBackward;
        out.tpExposed += n * block.tpExposed, out.cpExposed += n * block.cpExposed;
        out.tpSeconds += n * block.tpSeconds, out.cpSeconds += n * block.cpSeconds;
        out.modelFlopsForward += n * block.modelFlopsForward;
    };
    add(full, nFull);
    add(inWindow, nWindow);

    // Patch embedding and merger, per device: patches P and merged tokens P / merge.
    const double t = double(st.tp), Bc = run.computeBytes;
    const double patches = double(run.seq) * double(st.mbs) / double(st.cp), merged = patches / double(v.merge);
    const double hv = double(v.block.h), wide = hv * double(v.merge);
    const double embedFlops = 2 * patches * double(v.patchInputs) * hv;
    // The merger's GEMMs: two over the concatenated patches, or (pooled) one from hv, or
    // (Llama 4) three through its projector's width w.
    const double w = double(v.projectorWidth);
    const double mergerPerToken = v.pooled ? hv * double(v.outWidth)
                                  : w > 0  ? wide * w + w * w + w * double(v.outWidth)
                                           : wide * wide + wide * double(v.outWidth);
    const double mergerFlops = 2 * merged * mergerPerToken / t;
    const double forward = matmulSeconds(embedFlops, dev) + matmulSeconds(mergerFlops, dev);
    out.forward += forward;
    out.backwardInput += matmulSeconds(mergerFlops, dev);  // the pixels need no gradient
    out.backwardWeight += forward;
    out.paramsDevice += double(v.patchEmbedParams) + double(v.mergerParams) / t;
    // Kept: the pixels, the merger's norm input and its two linear layers' inputs - or,
    // pooled, the pooled tokens at the norm and at the one linear layer (an average
    // needs no input for its gradient), or Llama 4's three linear layers' inputs; each
    // norm outside the blocks keeps every patch once more.
    const double projectorKept = v.pooled ? 2 * merged * hv
                                 : w > 0  ? merged * wide + 2 * merged * w / t
                                          : patches * hv + merged * wide + merged * wide / t;
    out.kept += Bc * (patches * double(v.patchInputs) + projectorKept + double(v.outerNorms) * patches * hv);
    const double tokens = double(run.seq) * double(st.mbs) / double(v.merge);
    out.modelFlopsForward += 2 * tokens * double(v.merge) * double(v.patchInputs) * hv + 2 * tokens * mergerPerToken;
    return out;
}

}  // namespace tessera::core
