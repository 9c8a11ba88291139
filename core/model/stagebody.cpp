#include "model/stagebody.h"
#include "model/visioncost.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <type_traits>

#include "model/coefficients.h"

namespace tessera::core::detail {

using namespace knobs;

namespace {

std::int64_t paddedVocab(std::int64_t vocab, std::int64_t tp) {
    const std::int64_t multiple = kVocabPadMultiple * tp;
    return (vocab + multiple - 1) / multiple * multiple;
}

}  // namespace

StageContext::StageContext(const CostInput& input, LayerCostMemo* memo)
    : in(input),
      links(groupLinks(input.strategy, input.device)),
      kinds(input.model.kinds.size()),
      classes(input.strategy.classes.size()),
      pairs(kinds * classes),
      placed(input.model.bodyLayers + (input.strategy.mtpOnStages ? input.model.mtpLayers : 0)),
      vocab(double(paddedVocab(input.model.vocab, input.strategy.tp))),
      m_memo(memo) {
    static_assert(std::is_trivially_destructible_v<LayerCost>);
}

const LayerCost& StageContext::cost(std::size_t pair) {
    LayerCost* slot = reinterpret_cast<LayerCost*>(m_storage) + pair;
    if (!m_have[pair]) {
        const std::size_t kind = pair / classes;
        const RecomputeClass& cls = in.strategy.classes[pair % classes];
        if (const LayerCost* known = m_memo ? m_memo->find(kind, cls) : nullptr) {
            new (slot) LayerCost(*known);
        } else {
            new (slot) LayerCost(layerCost(in, in.model.kinds[kind], cls, links));
            if (m_memo) m_memo->add(kind, cls, *slot);
        }
        m_have[pair] = true;
    }
    return *std::launder(slot);
}

std::int64_t StageContext::position(std::int64_t chunk, std::int64_t stage) const {
    const Strategy& st = in.strategy;
    if (isVShape(st.schedule)) return chunk == 0 ? stage : 2 * st.pp - 1 - stage;
    return chunk * st.pp + stage;
}

bool StageContext::holdsModelEnd(std::int64_t chunk, std::int64_t stage) const {
    return position(chunk, stage) == in.strategy.pp * in.strategy.vpp - 1;
}

std::int64_t StageContext::chunkLayers(std::int64_t chunk, std::int64_t stage) const {
    const Strategy& st = in.strategy;
    if (!st.partition.empty()) return st.partition[std::size_t(chunk)][std::size_t(stage)];
    // An even split; a remainder goes one layer each to the last chunks in model order.
    const std::int64_t index = position(chunk, stage), chunks = st.pp * st.vpp;
    return placed / chunks + (index >= chunks - placed % chunks ? 1 : 0);
}

// Chunk c of stage s starts after every (chunk, stage) before it in model order
// (chunk-major: chunk 0 of every stage, then chunk 1, ...; or the V of position()).
std::int64_t StageContext::chunkStart(std::int64_t chunk, std::int64_t stage) const {
    const Strategy& st = in.strategy;
    const std::int64_t index = position(chunk, stage), chunks = st.pp * st.vpp;
    if (st.partition.empty())
        return index * (placed / chunks) + std::max<std::int64_t>(0, index - (chunks - placed % chunks));
    std::int64_t start = 0;
    for (std::int64_t i = 0; i < index; ++i) {
        const bool back = isVShape(st.schedule) && i >= st.pp;  // the V's way back up
        start += back ? chunkLayers(1, 2 * st.pp - 1 - i) : chunkLayers(i / st.pp, i % st.pp);
    }
    return start;
}

void StageContext::countPairs(std::int64_t start, std::int64_t n, std::int64_t* counts) const {
    const ModelShape& m = in.model;
    std::fill(counts, counts + pairs, 0);
    if (in.strategy.layerClass.empty()) {  // every layer in class 0: count kinds by prefix sums
        for (std::size_t k = 0; k < kinds; ++k)
            counts[k * classes] = m.kindPrefix[k][std::size_t(start + n)] - m.kindPrefix[k][std::size_t(start)];
        return;
    }
    for (std::int64_t i = start; i < start + n; ++i)
        ++counts[m.layerKind[std::size_t(i)] * classes + in.strategy.layerClass[std::size_t(i)]];
}

StageRanges strategyRanges(const StageContext& ctx, std::int64_t stage) {
    StageRanges r;
    for (std::int64_t chunk = 0; chunk < ctx.in.strategy.vpp; ++chunk) {
        r.start[std::size_t(chunk)] = ctx.chunkStart(chunk, stage);
        r.count[std::size_t(chunk)] = ctx.chunkLayers(chunk, stage);
    }
    return r;
}

StageBody stageBody(StageContext& ctx, std::int64_t stage) { return stageBody(ctx, stage, strategyRanges(ctx, stage)); }

ElementBytes elementBytes(const RunSettings& run, const Strategy& st, double shard, bool table) {
    // grad_accumulation: false frees each gradient as it is reduced (seed derive.py: B_g = 0
    // without PP or accumulation); a frozen model keeps no gradients, states or master copy.
    const double grad = run.frozen || !run.gradientsHeld ? 0 : run.gradBytes;
    const double states = run.frozen ? 0 : table ? 2 * run.stateBytes : double(run.optimizerStates) * run.stateBytes;
    const double onDevice = 1 - run.optimizerOffload;  // exec.optimizer_offload: the rest lives on the host
    ElementBytes e;
    e.parameter = run.paramBytes / (st.fsdp ? shard : 1);
    e.gradient = grad / (st.gradSharded || st.fsdp ? shard : 1);
    e.states = onDevice * states / shard;
    e.master = onDevice * (run.frozen ? 0 : run.mainBytes) / shard;
    return e;
}

double exposedReduce(const RunSettings& run, double reduceSeconds, double buckets, double lastBackward) {
    return run.overlappedGradReduce ? exposedPipelined(reduceSeconds, buckets, lastBackward) : reduceSeconds;
}

double exposedPipelined(double seconds, double pieces, double cover) {
    // n equal pieces beside n equal slices of the cover, each transfer waiting for its
    // slice (a bucket filled) or each slice for its transfer (a layer gathered): the
    // chain ends at max(cover + s/n, cover/n + s).
    const double n = std::max(1.0, pieces);
    if (n == 1) return seconds;  // one piece: nothing to run beside (and no inf * 0)
    return std::max(seconds / n, seconds - cover * (1 - 1 / n));
}

StageBody stageBody(StageContext& ctx, std::int64_t stage, const StageRanges& ranges) {
    const CostInput& in = ctx.in;
    const ModelShape& m = in.model;
    const Strategy& st = in.strategy;
    const RunSettings& run = in.run;
    const DeviceInfo& dev = in.device;
    const double t = double(st.tp), spd = st.sp ? t : 1.0;
    const double s = double(run.seq), T = s * double(st.mbs) / double(st.cp), h = double(m.h);
    const double Bc = run.computeBytes, vocab = ctx.vocab;
    const std::int64_t p = st.pp, v = st.vpp;
    // first: the embedding's stage; last: the output head's (stage 0 again under a V schedule).
    const bool vShape = isVShape(st.schedule);
    // With the vision tower split over stages (exec.vision_partition) the embedding sits
    // with the text layers' first, the tower's last stage; the stages before it run
    // vision blocks only and send the tower's patches on.
    const std::int64_t textFrom = firstTextStage(st);
    const bool first = stage == textFrom, last = vShape ? stage == 0 : stage == p - 1;
    const double sendBytes = stage < textFrom ? Bc * double(in.vision.tokens) * double(in.vision.merge) * double(st.mbs) /
                                                    double(st.cp) * double(in.vision.block.h) / spd
                                              : Bc * T * h / spd;

    StageBody b;
    StageTime& time = b.time;
    double tableParams = 0, working = 0, epBuffer = 0, cpBuffer = 0, maxLayerSplit = 0;
    double layerForward = 0, layerBackward = 0;  // the layers' own, for what offload copies hide behind
    std::int64_t counts[kMaxPairs];
    for (std::int64_t chunk = 0; chunk < v; ++chunk) {
        std::int64_t n = ranges.count[std::size_t(chunk)];
        const std::int64_t start = ranges.start[std::size_t(chunk)];
        const double chunkForwardFrom = time.forward, chunkBackwardFrom = time.backward + time.weightGrad + time.recompute;
        if (ctx.holdsModelEnd(chunk, stage) && !st.mtpOnStages) n += m.mtpLayers;  // MTP after the body
        b.layers += n;
        ctx.countPairs(start, n, counts);
        double kept = 0;
        for (std::size_t i = 0; i < ctx.pairs; ++i) {
            if (counts[i] == 0) continue;
            const LayerCost& lc = ctx.cost(i);
            const double k = double(counts[i]);
            kept += k * lc.kept;
            b.params += k * (lc.paramsDevice - lc.expertParamsDevice);
            b.expertParams += k * lc.expertParamsDevice;
            b.fp8Weights += k * lc.fp8WeightsDevice;
            b.fp8ExpertWeights += k * lc.fp8ExpertWeightsDevice;
            maxLayerSplit = std::max(maxLayerSplit, lc.paramsSplit / t);
            time.forward += k * lc.forward;
            time.backward += k * lc.backwardInput;
            time.weightGrad += k * lc.backwardWeight;
            time.recompute += k * lc.recompute;
            layerForward += k * lc.forward, layerBackward += k * (lc.backwardInput + lc.backwardWeight + lc.recompute);
            time.forwardComm += k * lc.commExposedForward, time.backwardComm += k * lc.commExposedBackward;
            time.exposed.tp += k * lc.tpExposed, time.exposed.cp += k * lc.cpExposed, time.exposed.ep += k * lc.epExposed;
            b.weightGradKept += k * lc.weightGradKept;
            time.tp += k * lc.tpSeconds, time.cp += k * lc.cpSeconds, time.ep += k * lc.epSeconds;
            working = std::max(working, lc.keptNone - lc.kept + lc.gradBuffer + lc.gatheredInput);
            epBuffer = std::max(epBuffer, lc.epBuffer), cpBuffer = std::max(cpBuffer, lc.cpBuffer);
            b.modelFlopsForward += k * lc.modelFlopsForward;
        }
        b.kept[std::size_t(chunk)] = kept;
        // Pipeline send/receive of this chunk's output (the model's last chunk sends none,
        // nor the bottom of a V, whose next chunk is on the same device).
        if (!ctx.holdsModelEnd(chunk, stage) && p > 1 && !(vShape && chunk == 0 && stage == p - 1)) {
            // overlap_p2p_comm: the send runs beside the next chunk's compute, which is this
            // chunk's twin in the steady state; without it the stage waits for it.
            // One send per sequence part under seqpipe and seqsmartvpp: the link's latency each time.
            const double parts = double(sequenceParts(run, st));
            const CollectiveCost part = sendReceive(sendBytes / parts, ctx.links.pp, dev);
            const CollectiveCost send{parts * part.seconds, parts * part.bytes};
            const double forwardCover = time.forward - chunkForwardFrom;
            const double backwardCover = time.backward + time.weightGrad + time.recompute - chunkBackwardFrom;
            const double forwardExposed = st.overlapP2p ? std::max(0.0, send.seconds - forwardCover) : send.seconds;
            const double backwardExposed = st.overlapP2p ? std::max(0.0, send.seconds - backwardCover) : send.seconds;
            time.forward += forwardExposed, time.backward += backwardExposed;
            time.forwardComm += forwardExposed, time.backwardComm += backwardExposed;
            time.exposed.pp += forwardExposed + backwardExposed;
            if (st.overlapP2p) b.coverableForward += forwardExposed, b.coverableBackward += backwardExposed;
            time.pp += 2 * send.seconds;
        }
    }
    // Activation offload (exec.activation_offload; Megatron-LM --cpu-offloading-num-layers):
    // the stage's first layers copy what they keep to the host after their forward and
    // back before their backward, so they hold none of it in flight; two of the largest
    // such tensors stay on the device in transit (one going out, one coming back, as
    // Transformer Engine's double-buffered offload handler keeps them). The copies run
    // on their own stream beside the stage's other layers: a copy longer than the share
    // of that compute it may take (exec.host_link_overlap) is exposed by the difference.
    double offloadTransit = 0;
    const std::int64_t offload = st.activationOffload.empty() ? run.activationOffload : st.activationOffload[std::size_t(stage)];
    if (offload > 0 && dev.hostLinkBytesPerSecond > 0 && ranges.count[0] > 0) {
        const std::int64_t k = std::min(offload, ranges.count[0]), first = ranges.start[0];
        ctx.countPairs(first, k, counts);
        double moved = 0, largest = 0;
        for (std::size_t i = 0; i < ctx.pairs; ++i)
            if (counts[i] > 0) moved += double(counts[i]) * ctx.cost(i).kept, largest = std::max(largest, ctx.cost(i).kept);
        const std::size_t firstPair = m.layerKind[std::size_t(first)] * ctx.classes +
                                      (st.layerClass.empty() ? 0 : st.layerClass[std::size_t(first)]);
        const LayerCost& lead = ctx.cost(firstPair);
        b.kept[0] -= moved;
        offloadTransit = 2 * largest;
        const double copy = moved / dev.hostLinkBytesPerSecond;
        const double out = std::max(0.0, copy - run.hostLinkOverlap * (layerForward - lead.forward));
        b.offloadCopy = copy;
        b.offloadBackWindow = run.hostLinkOverlap * (layerBackward - lead.backwardInput - lead.backwardWeight - lead.recompute);
        const double back = std::max(0.0, copy - b.offloadBackWindow);
        time.forward += out, time.backward += back;
        time.forwardComm += out, time.backwardComm += back;
        time.exposed.host += out + back;
        time.host += 2 * copy;
    }
    // The embedding: a vocabulary-parallel table (and learned positions) on the first
    // stage, its output all-reduced (reduce-scattered with SP) over TP. MTP on a later
    // stage keeps its own copy of the table (DeepSeek-V3 §2.2 shares it; with PP the
    // last stage must hold one).
    // vocab_emb_dp: without pipelining the table runs data parallel, whole on each rank and
    // with no TP reduction (seed derive.py shard_embed: 1 if vocab_emb_dp and P = 1, else T).
    const bool embedWhole = run.vocabEmbDp && p == 1 && st.tp > 1;
    if (first) {
        b.head.params = vocab * h / (embedWhole ? 1 : t) + (m.learnedPositions ? double(m.maxPositions) * h : 0);
        tableParams += b.head.params;
    } else if (last && m.mtpLayers > 0 && p > 1) {
        tableParams += vocab * h / t;
    }
    if (first && embedWhole) {
        b.embeddingKept = kTokenIdBytes * T + (m.hiddenDropout > 0 ? run.dropoutBytes * T * h / spd : 0);
        const double lookup = memorySeconds(Bc * T * h * 2, dev);
        time.forward += lookup, time.backward += lookup;
        b.head.forward = b.head.backward = lookup;
    } else if (first) {
        b.embeddingKept = kTokenIdBytes * T + (m.hiddenDropout > 0 ? run.dropoutBytes * T * h / spd : 0);
        // (No GEMM to hide it under: userbuffers overlap covers the linear layers only.)
        const CollectiveCost ar = allReduce(Bc * T * h, st.tp, ctx.links.tp, dev, ctx.links.tpPerNode);
        const double lookup = memorySeconds(Bc * T * h * 2, dev);
        time.forward += lookup + (1 - dev.tpOverlap) * ar.seconds;
        time.backward += lookup + (1 - dev.tpOverlap) * ar.seconds;
        time.forwardComm += (1 - dev.tpOverlap) * ar.seconds, time.backwardComm += (1 - dev.tpOverlap) * ar.seconds;
        time.exposed.tp += 2 * (1 - dev.tpOverlap) * ar.seconds;
        time.tp += 2 * ar.seconds;
        b.head.forward = b.head.backward = lookup + (1 - dev.tpOverlap) * ar.seconds;
    }
    b.head.kept = b.embeddingKept;
    // The vision tower runs before the embedding's tokens meet the first layer, on the
    // first stage (or its blocks over the first stages, exec.vision_partition), recomputing
    // as the model's first layer does (model/visioncost.h).
    const VisionPart part = visionPartOf(in.vision, st, stage);
    if (part.end > part.first || part.embed || part.projector) {
        const RecomputeClass& cls = st.classes[st.layerClass.empty() ? 0 : st.layerClass[0]];
        VisionCost vc = visionCost(in, cls, ctx.links, part);
        if (in.vision.frozen) {
            // Frozen (exec.freeze_vision_tower): nothing before it needs a gradient and its
            // weights take none, so it runs forward only, keeps nothing for backward, and
            // holds its weights alone (no gradients, states or master copy). Its model
            // FLOPs are the forward's once, not the trained layers' three times.
            // The exposed collectives by dimension keep the forward's share, so they still
            // sum to what the stage's times hold; the unoverlapped ones likewise.
            const double both = vc.commExposedForward + vc.commExposedBackward;
            const double forwardShare = both > 0 ? vc.commExposedForward / both : 0.5;
            vc.tpExposed *= forwardShare, vc.cpExposed *= forwardShare;
            vc.tpSeconds *= 0.5, vc.cpSeconds *= 0.5;  // a forward's collectives, of forward + backward
            vc.kept = 0, vc.backwardInput = vc.backwardWeight = vc.recompute = 0;
            vc.commExposedBackward = 0;
            vc.modelFlopsForward /= 3;
            b.frozenParams += vc.paramsDevice;
        } else {
            b.params += vc.paramsDevice;
        }
        b.embeddingKept += vc.kept, b.head.kept += vc.kept;
        b.head.params += vc.paramsDevice;
        working = std::max(working, vc.working);
        time.forward += vc.forward, time.backward += vc.backwardInput, time.weightGrad += vc.backwardWeight;
        time.recompute += vc.recompute;
        time.forwardComm += vc.commExposedForward, time.backwardComm += vc.commExposedBackward;
        time.exposed.tp += vc.tpExposed, time.exposed.cp += vc.cpExposed, time.tp += vc.tpSeconds, time.cp += vc.cpSeconds;
        b.head.forward += vc.forward, b.head.backward += vc.backwardInput + vc.backwardWeight + vc.recompute;
        b.modelFlopsForward += vc.modelFlopsForward;
        b.vision = {vc.paramsDevice, double(wholeBytes(vc.kept)), vc.forward, vc.backwardInput + vc.backwardWeight + vc.recompute,
                    part.first, part.end, in.vision.blocks};
    }
    // The output layer and loss on the last stage, once more per MTP depth.
    if (last) {
        const double tailStart = time.forward + time.backward + time.weightGrad;
        // exec.tie_embeddings: one table where the output sits with the embedding (no PP, or a V)
        if (!run.tiedTables || (p > 1 && !vShape)) tableParams += vocab * h / t, b.tail.params += vocab * h / t;
        b.params += m.layerNorm ? 2 * h : h;  // the final norm
        b.tail.params += m.layerNorm ? 2 * h : h;
        const double forwardStart = time.forward;
        const double heads = 1 + double(m.mtpLayers);
        const double logits = T * vocab / (run.lossParallel ? t : 1);
        // shard_activations: the output layer's inputs are kept TP-sharded too (seed derive.py shard_output_activ).
        const double between = st.sp ? spd : run.shardActivations ? t : 1.0;
        b.outputKept = heads * (run.normBytes * T * h / between + Bc * T * h / between + (Bc + kLossLogitBytes) * logits);
        b.workingRest += Bc * logits;  // the logits' gradient
        const double parts = double(sequenceParts(run, st));  // the output GEMM runs once per sequence part
        const double gemm = parts * matmulSeconds(2 * T * h * vocab / t / parts, dev);
        const double loss = memorySeconds((Bc + kLossLogitBytes) * logits * 3, dev);
        time.forward += heads * (gemm + loss);
        time.backward += heads * (gemm + loss);
        time.weightGrad += heads * gemm;
        if (!run.lossParallel) {
            const double gather = heads * allGather(Bc * T * vocab, st.tp, ctx.links.tp, dev, ctx.links.tpPerNode).seconds;
            time.forward += gather, time.forwardComm += gather, time.exposed.tp += gather, time.tp += gather;
        }
        b.modelFlopsForward += heads * 2 * s * double(st.mbs) * h * double(m.vocab);
        b.tail.forward = time.forward - forwardStart;
        b.tail.backward = time.forward + time.backward + time.weightGrad - tailStart - b.tail.forward;
        b.tail.kept = b.outputKept;
    }
    b.params += tableParams;
    const double params = b.params, expertParams = b.expertParams;

    // Static memory, per element as elementBytes() counts it. Tables keep AdamW's two states
    // whatever the optimizer (seed _exec_spec.py optimizer_states). The byte widths below
    // are the optimizer step's and the collectives' (resolve allows grad_accumulation:
    // false only for one micro-batch).
    const double R = double(st.optimizerShard), Re = double(st.expertShard);
    const double Bp = run.paramBytes, Bg = run.frozen || !run.gradientsHeld ? 0 : run.gradBytes;
    const double stateBytes = run.frozen ? 0 : double(run.optimizerStates) * run.stateBytes;
    const double mainBytes = run.frozen ? 0 : run.mainBytes;
    StageMemory& mem = b.memory;
    const ElementBytes dense = elementBytes(run, st, R, false), table = elementBytes(run, st, R, true),
                       expert = elementBytes(run, st, Re, false);
    // FP8 runs hold each FP8 weight's quantised copies too (coefficients.h kFp8WeightCopyBytes);
    // under fp8_params those are the weight, which then has no copy in the parameter dtype.
    const double fp8Dense = run.fp8Params ? b.fp8Weights - b.fp8ExpertWeights : 0;
    const double fp8Expert = run.fp8Params ? b.fp8ExpertWeights : 0;
    mem.parameters = wholeBytes(params * dense.parameter + expertParams * expert.parameter + b.fp8Weights * kFp8WeightCopyBytes +
                                b.frozenParams * dense.parameter - fp8Dense * dense.parameter - fp8Expert * expert.parameter);
    mem.gradients = wholeBytes(params * dense.gradient + expertParams * expert.gradient);
    mem.optimizerStates =
        wholeBytes((params - tableParams) * dense.states + tableParams * table.states + expertParams * expert.states);
    mem.mainParameters = wholeBytes(params * dense.master + expertParams * expert.master);
    const double onDevice = 1 - run.optimizerOffload;
    // Buffers: a gradient bucket in flight (DP), send/receive (PP), dispatch (EP), the KV ring (CP).
    double buffers = epBuffer + cpBuffer + offloadTransit;
    if (st.dp * st.cp > 1 && !run.frozen)
        buffers += std::min(std::max(kDpBucketElements, kDpBucketElementsPerRank * double(st.dp)), params + expertParams) * Bg;
    if (p > 1) buffers += 2 * sendBytes * (interleavesChunks(st.schedule) ? 2 : 1);
    mem.buffers = wholeBytes(buffers);
    if (st.fsdp) {
        const double gathered = st.reshard ? double(kFsdpGatheredLayers) * maxLayerSplit : params + expertParams;
        const double bytes = gathered * Bp * (1 - 1 / R);
        b.workingRest += bytes;
        if (!st.reshard) b.workingLinear += bytes;
    }
    // deferred_grad_accumulation: FSDP holds each micro-batch's reduce-scattered gradients
    // until its backward ends, then adds them (HyperParallel), a second gradient shard.
    if (st.fsdp && run.deferredGradAccumulation) {
        const double shard = (params / R + expertParams / Re) * Bg;
        b.workingRest += shard, b.workingLinear += shard;
    }
    b.workingLayers = working;
    mem.working = wholeBytes(working + b.workingRest);
    // Kept free, as the seed adds its 1 GiB safety buffer to every stage (reference §4.1.2).
    mem.reserve = run.reserve;

    // Once per step: gradients reduced over dp·cp (experts over their replicas), then
    // the optimizer over this rank's shard. FSDP reduces every micro-batch instead.
    if (!run.frozen) {
        const std::int64_t group = st.dp * st.cp;
        const std::int64_t expertGroup = expertGridOf(st).dp;  // each expert's replicas
        double paramGather = 0;
        const double bucket = std::max(kDpBucketElements, kDpBucketElementsPerRank * double(group));
        // Each bucket is its own collective: the latency term once per bucket (per layer
        // under FSDP), the bandwidth term over the whole. Without the overlap Megatron-LM
        // reduces all gradients as one bucket (distributed_data_parallel.py: "Set
        // bucket_size to infinity if overlap_grad_reduce is False").
        const bool bucketed = run.overlappedGradReduce;
        const double denseBuckets = bucketed ? std::ceil(params / bucket) : 1;
        const double expertBuckets = bucketed ? std::ceil(expertParams / bucket) : 1;
        auto ring = [&](double bytes, double count, std::int64_t n, Link link, std::int64_t perNode) {
            return inBuckets(bytes, count, [&](double one) { return allGather(one, n, link, dev, perNode); }).seconds;
        };
        auto reduce = [&](double bytes, double count, std::int64_t n, Link link, std::int64_t perNode) {
            return inBuckets(bytes, count, [&](double one) { return allReduce(one, n, link, dev, perNode); }).seconds;
        };
        // A sharded group's gradients: a reduce-scatter inside the shard group (the whole
        // group when one shard spans it), then its shard all-reduced across the replicas
        // (torchtitan's HSDP, Megatron-LM's distributed-optimizer instances; nothing with
        // one); its parameters gather inside the shard group.
        auto shardReduce = [&](double bytes, double count, const ShardGroups& g) {
            return ring(bytes, count, g.ranks, g.shardLink, g.shardPerNode) +
                   reduce(bytes / double(g.ranks), count, g.replicas, g.replicaLink, g.replicaPerNode);
        };
        auto shardGather = [&](double bytes, double count, const ShardGroups& g) {
            return ring(bytes, count, g.ranks, g.shardLink, g.shardPerNode);
        };
        const GroupLinks& l = ctx.links;
        if (st.fsdp) {
            // Every micro-batch gathers each layer before its forward (and again before its
            // backward when resharded) and reduce-scatters its gradients after, the routed
            // experts' over their own replicas. With the
            // overlap switches (FSDP2's prefetch of the next layer, its reduce-scatter on
            // a side stream) one layer's transfer runs under another layer's compute:
            // the first waits, the rest show by what they outlast the compute.
            const double pieces = double(std::max<std::int64_t>(1, b.layers));  // one transfer per layer
            const double rs = shardReduce(params * Bg, pieces, l.dpShard) +
                              shardReduce(expertParams * Bg, pieces, l.edpShard);
            const double ag = shardGather(params * Bp, pieces, l.dpShard) +
                              shardGather(expertParams * Bp, pieces, l.edpShard);
            const double backwardMoves = rs + (st.reshard ? ag : 0);
            // A layer's backward runs its recomputed forward first (full or selective), and
            // the transfers run beside that too (FSDP2: the reduce-scatter of layer i under
            // layer i-1's recompute and backward); the planner re-takes the exposure when it
            // changes the recompute (plan/stagecost.cpp).
            const double forwardCompute = time.forward, backwardCompute = time.backward + time.weightGrad + time.recompute;
            const double forwardExposed = run.overlapParamGather ? exposedPipelined(ag, pieces, forwardCompute) : ag;
            const double backwardExposed = run.overlappedGradReduce ? exposedPipelined(backwardMoves, pieces, backwardCompute)
                                                                   : backwardMoves;
            if (run.overlapParamGather) b.coverableForward += forwardExposed;
            if (run.overlappedGradReduce) {
                b.coverableBackward += backwardExposed;
                b.fsdpBackwardMoves = backwardMoves, b.fsdpPieces = pieces, b.fsdpBackwardCover = backwardCompute;
            }
            time.forward += forwardExposed, time.backward += backwardExposed;
            time.forwardComm += forwardExposed, time.backwardComm += backwardExposed;
            time.exposed.dp += forwardExposed + backwardExposed;
        } else if (st.optimizerSharded) {
            time.dp = shardReduce(params * Bg, denseBuckets, l.dpShard) + shardReduce(expertParams * Bg, expertBuckets, l.edpShard);
            paramGather = shardGather(params * Bp - fp8Dense * (Bp - kFp8ParamBytes), denseBuckets, l.dpShard) +
                          shardGather(expertParams * Bp - fp8Expert * (Bp - kFp8ParamBytes), expertBuckets, l.edpShard);
        } else {
            time.dp = reduce(params * Bg, denseBuckets, group, l.dp, l.dpPerNode) +
                      reduce(expertParams * Bg, expertBuckets, expertGroup, l.edp, l.edpPerNode);
        }
        // The reduction overlaps the last micro-batch's backward bucket by bucket
        // (exposedReduce); the parameter gather the next step's forward, by the fitted
        // share (coefficients.h kParamGatherOverlap says why it is not exposedPipelined
        // over the first forward); with either switch off that transfer is exposed whole.
        const double lastBackward = time.backward + time.weightGrad + time.recompute;
        b.reduceSeconds = time.dp;
        b.reduceBuckets = std::max(1.0, denseBuckets + expertBuckets);
        b.gatherExposed = run.overlapParamGather ? (1 - dev.paramGatherOverlap) * paramGather : paramGather;
        time.dpExposed = exposedReduce(run, time.dp, b.reduceBuckets, lastBackward) + b.gatherExposed;
        time.dp += paramGather;
        const double shard = params / R + expertParams / Re;  // elements this rank steps
        const double perElement = Bg + 2 * stateBytes + 2 * mainBytes + Bp;  // read the gradient, read and write states and master, write the weight
        time.optimizer = memorySeconds(onDevice * shard * perElement, dev);
        // The offloaded share (Megatron-LM HybridDeviceOptimizer): its gradients copied to
        // the host, stepped there at the host's memory bandwidth, its weights copied back;
        // one after another, or side by side with --overlap-cpu-optimizer-d2h-h2d.
        if (run.optimizerOffload > 0 && dev.hostLinkBytesPerSecond > 0 && dev.hostMemoryBytesPerSecond > 0) {
            const double moved = run.optimizerOffload * shard;
            const double down = moved * Bg / dev.hostLinkBytesPerSecond, up = moved * Bp / dev.hostLinkBytesPerSecond;
            const double step = moved * perElement / dev.hostMemoryBytesPerSecond;
            time.optimizer += run.optimizerOffloadOverlap ? std::max({down, step, up}) : down + step + up;
        }
        // grad_clip: the global norm reads every local gradient once more (its all-reduce is
        // one scalar, a latency, left out).
        if (run.gradClip) time.optimizer += memorySeconds(double(mem.gradients), dev);
        // FP8: each FP8 weight quantised once per step, after the update, into its two copies;
        // under fp8_params the gathered FP8 weight is read once to write its transpose.
        time.optimizer += memorySeconds(b.fp8Weights * (run.fp8Params ? 2 * kFp8ParamBytes : Bp + kFp8CastWrittenBytes), dev);
    }
    time.communication = time.forwardComm + time.backwardComm;
    return b;
}

}  // namespace tessera::core::detail
