#include "model/visioncost.h"

#include <algorithm>

namespace tessera::core {

VisionPart visionPartOf(const VisionShape& v, const Strategy& st, std::int64_t stage) {
    if (v.blocks == 0) return {};
    if (st.visionBlocks.empty()) return stage == 0 ? VisionPart{0, v.blocks, true, true} : VisionPart{};
    std::int64_t first = 0;
    for (std::int64_t s = 0; s < stage && s < std::int64_t(st.visionBlocks.size()); ++s) first += st.visionBlocks[std::size_t(s)];
    const std::int64_t n = stage < std::int64_t(st.visionBlocks.size()) ? st.visionBlocks[std::size_t(stage)] : 0;
    if (n == 0) return {};
    return {first, first + n, first == 0, first + n == v.blocks};
}

VisionCost visionCost(const CostInput& in, const RecomputeClass& cls, const GroupLinks& links, const VisionPart& part) {
    VisionCost out;
    const VisionShape& v = in.vision;
    if (v.blocks == 0 || v.tokens == 0 || (part.end <= part.first && !part.embed && !part.projector)) return out;
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
    // The full-attention blocks spread evenly, each the last of its group (Qwen2.5-VL's
    // fullatt_block_indexes 7, 15, 23, 31 of 32): block i attends fully when
    // floor((i+1)·F/N) passes floor(i·F/N).
    auto fullBefore = [&](std::int64_t i) { return i * v.fullBlocks / v.blocks; };
    const double nFull = double(fullBefore(part.end) - fullBefore(part.first));
    const double nWindow = double(part.end - part.first) - nFull;
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
    const double embedSeconds = part.embed ? matmulSeconds(embedFlops, dev) : 0;
    const double mergerSeconds = part.projector ? matmulSeconds(mergerFlops, dev) : 0;
    out.forward += embedSeconds + mergerSeconds;
    out.backwardInput += mergerSeconds;  // the pixels need no gradient
    out.backwardWeight += embedSeconds + mergerSeconds;
    // The norm after the blocks (SigLIP's post_layernorm, Llama 4's second) sits with the
    // projector, any before them with the patch embedding.
    const double postNorm = v.outerNorms > 0 ? double(v.outerNormParams) / double(v.outerNorms) : 0;
    if (part.embed) out.paramsDevice += double(v.patchEmbedParams) - postNorm;
    if (part.projector) out.paramsDevice += postNorm + double(v.mergerParams) / t;
    // Kept: the pixels, the merger's norm input and its two linear layers' inputs - or,
    // pooled, the pooled tokens at the norm and at the one linear layer (an average
    // needs no input for its gradient), or Llama 4's three linear layers' inputs; each
    // norm outside the blocks keeps every patch once more.
    const double projectorKept = v.pooled ? 2 * merged * hv
                                 : w > 0  ? merged * wide + 2 * merged * w / t
                                          : patches * hv + merged * wide + merged * wide / t;
    const double normsBefore = double(std::max<std::int64_t>(v.outerNorms - 1, 0)), normsAfter = v.outerNorms > 0 ? 1 : 0;
    if (part.embed) out.kept += Bc * (patches * double(v.patchInputs) + normsBefore * patches * hv);
    if (part.projector) out.kept += Bc * (projectorKept + normsAfter * patches * hv);
    const double tokens = double(run.seq) * double(st.mbs) / double(v.merge);
    if (part.embed) out.modelFlopsForward += 2 * tokens * double(v.merge) * double(v.patchInputs) * hv;
    if (part.projector) out.modelFlopsForward += 2 * tokens * mergerPerToken;
    return out;
}

}  // namespace tessera::core
