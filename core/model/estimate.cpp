#include "model/estimate.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/coefficients.h"
#include "model/layercost.h"
#include "pipeline/closedform.h"

namespace tessera::core {

using namespace knobs;

namespace {

constexpr std::size_t kMaxPairs = 64;  // layer kinds x recompute classes evaluated per strategy

Bytes wholeBytes(double bytes) { return static_cast<Bytes>(std::ceil(bytes - 1e-6)); }

std::int64_t paddedVocab(std::int64_t vocab, std::int64_t tp) {
    const std::int64_t multiple = kVocabPadMultiple * tp;
    return (vocab + multiple - 1) / multiple * multiple;
}

}  // namespace

Summary evaluate(const CostInput& in, Estimate* detail) {
    const ModelShape& m = in.model;
    const Strategy& st = in.strategy;
    const RunSettings& run = in.run;
    const DeviceInfo& dev = in.device;
    const GroupLinks links = groupLinks(st, dev.perNode);
    const std::size_t kinds = m.kinds.size(), classes = st.classes.size();

    // Per (kind, class) layer costs.
    std::array<LayerCost, kMaxPairs> costs;
    std::array<bool, kMaxPairs> have{};
    if (kinds * classes > kMaxPairs) return {};  // refused upstream: more recompute classes than the model has layers
    auto cost = [&](std::size_t kind, std::size_t cls) -> const LayerCost& {
        const std::size_t i = kind * classes + cls;
        if (!have[i]) costs[i] = layerCost(in, m.kinds[kind], st.classes[cls], links), have[i] = true;
        return costs[i];
    };

    const double t = double(st.tp), spd = st.sp ? t : 1.0, c = double(st.cp);
    const double s = double(run.seq), T = s * double(st.mbs) / c, h = double(m.h);
    const double Bc = run.computeBytes;
    const std::int64_t p = st.pp, v = st.vpp, mbn = st.mbn;
    const std::int64_t placed = m.bodyLayers + (st.mtpOnStages ? m.mtpLayers : 0);
    const double vocab = double(paddedVocab(m.vocab, st.tp));
    const double norm = m.layerNorm ? 2 * h : h;
    const double R = double(st.optimizerShard), Re = double(st.expertShard);
    const bool shardGrads = st.gradSharded || st.fsdp;

    // Layers of (chunk, stage): stated, or an even split with any remainder on the last chunks.
    auto chunkLayers = [&](std::int64_t chunk, std::int64_t stage) -> std::int64_t {
        if (!st.partition.empty()) return st.partition[std::size_t(chunk)][std::size_t(stage)];
        const std::int64_t index = chunk * p + stage, chunks = p * v;
        return placed / chunks + (index >= chunks - placed % chunks ? 1 : 0);
    };

    const PipelineShape shape{st.schedule, int(p), int(v), int(mbn)};
    Summary summary;
    double sumX = 0, maxX = -1, sumF = 0, maxF = 0, sumB = 0, maxB = 0, maxTail = -1;
    int straggler = 0, tailStage = 0;
    double stragglerComm = 0, stragglerRecompute = 0, tailDp = 0, tailOptimizer = 0;
    double modelFlopsForward = 0;  // per micro-batch per replica
    double maxDeviceParams = 0;
    std::array<std::int64_t, kMaxPairs> count{};
    // Model order runs chunk-major (chunk 0 of every stage, then chunk 1, ...), while
    // stages are assembled one by one: chunk c of stage s starts after every
    // (chunk, stage) before it in that order.
    auto chunkStart = [&](std::int64_t chunk, std::int64_t stage) {
        const std::int64_t index = chunk * p + stage, chunks = p * v;
        if (st.partition.empty()) return index * (placed / chunks) + std::max<std::int64_t>(0, index - (chunks - placed % chunks));
        std::int64_t start = 0;
        for (std::int64_t i = 0; i < index; ++i) start += chunkLayers(i / p, i % p);
        return start;
    };

    if (detail) detail->stages.clear();
    for (std::int64_t stage = 0; stage < p; ++stage) {
        double params = 0, expertParams = 0, tableParams = 0, activations = 0, working = 0;
        double forward = 0, backward = 0, weight = 0, recompute = 0, comm = 0;
        double tpS = 0, cpS = 0, epS = 0, ppS = 0, epBuffer = 0, cpBuffer = 0, maxLayerSplit = 0;
        std::int64_t stageLayers = 0;
        StageEstimate* out = nullptr;
        if (detail) {
            detail->stages.emplace_back();
            out = &detail->stages.back();
            out->stage = int(stage);
        }
        const bool first = stage == 0, last = stage == p - 1;
        for (std::int64_t chunk = 0; chunk < v; ++chunk) {
            std::int64_t n = chunkLayers(chunk, stage);
            const std::int64_t start = chunkStart(chunk, stage);
            if (last && chunk == v - 1 && !st.mtpOnStages) n += m.mtpLayers;  // MTP after the body
            stageLayers += n;
            std::fill(count.begin(), count.begin() + std::ptrdiff_t(kinds * classes), 0);
            if (st.layerClass.empty()) {
                for (std::size_t k = 0; k < kinds; ++k)
                    count[k * classes] = m.kindPrefix[k][std::size_t(start + n)] - m.kindPrefix[k][std::size_t(start)];
            } else {
                for (std::int64_t i = start; i < start + n; ++i)
                    ++count[m.layerKind[std::size_t(i)] * classes + st.layerClass[std::size_t(i)]];
            }
            const std::int64_t inFlight = inFlightChunkForwards(shape, int(stage), int(chunk));
            double chunkKept = 0;
            for (std::size_t i = 0; i < kinds * classes; ++i) {
                if (count[i] == 0) continue;
                const LayerCost& lc = cost(i / classes, i % classes);
                const double k = double(count[i]);
                chunkKept += k * lc.kept;
                params += k * (lc.paramsDevice - lc.expertParamsDevice);
                expertParams += k * lc.expertParamsDevice;
                maxLayerSplit = std::max(maxLayerSplit, lc.paramsSplit / t);
                forward += k * lc.forward;
                backward += k * lc.backwardInput;
                weight += k * lc.backwardWeight;
                recompute += k * lc.recompute;
                comm += k * (lc.commExposedForward + lc.commExposedBackward);
                tpS += k * lc.tpSeconds, cpS += k * lc.cpSeconds, epS += k * lc.epSeconds;
                working = std::max(working, lc.keptNone - lc.kept + lc.gradBuffer + lc.gatheredInput);
                epBuffer = std::max(epBuffer, lc.epBuffer), cpBuffer = std::max(cpBuffer, lc.cpBuffer);
                modelFlopsForward += k * lc.modelFlopsForward;
            }
            activations += double(inFlight) * chunkKept;
            if (out) out->inFlightPerChunk.push_back(inFlight);
            // Pipeline send/receive of this chunk's output (the model's last chunk sends none).
            if (!(last && chunk == v - 1) && p > 1) {
                const CollectiveCost send = sendReceive(Bc * T * h / spd, links.pp, dev);
                const double overlap = st.schedule == Schedule::Interleaved ? kPpOverlapInterleaved : kPpOverlap;
                forward += (1 - overlap) * send.seconds;
                backward += (1 - overlap) * send.seconds;
                comm += 2 * (1 - overlap) * send.seconds;
                ppS += 2 * send.seconds;
            }
        }
        const std::int64_t firstInFlight = inFlightChunkForwards(shape, int(stage), 0);
        const std::int64_t lastInFlight = inFlightChunkForwards(shape, int(stage), int(v - 1));
        // Embedding: a vocabulary-parallel table (and learned positions) on the first
        // stage; its output is all-reduced (reduce-scattered with SP) over TP.
        const bool mtpHere = last && m.mtpLayers > 0;
        if (first || (mtpHere && p > 1)) {  // MTP on a later stage keeps its own copy of the table
            tableParams += vocab * h / t + (first && m.learnedPositions ? double(m.maxPositions) * h : 0);
        }
        if (first) {
            activations += double(firstInFlight) * (kTokenIdBytes * T + (m.hiddenDropout > 0 ? run.dropoutBytes * T * h / spd : 0));
            const CollectiveCost ar = allReduce(Bc * T * h, st.tp, links.tp, dev);
            forward += memorySeconds(Bc * T * h * 2, dev) + (1 - kTpOverlap) * ar.seconds;
            backward += memorySeconds(Bc * T * h * 2, dev) + (1 - kTpOverlap) * ar.seconds;
            comm += 2 * (1 - kTpOverlap) * ar.seconds;
            tpS += 2 * ar.seconds;
        }
        // Output layer and loss on the last stage (and once more per MTP depth).
        if (last) {
            if (!m.tied || p > 1) tableParams += vocab * h / t;
            params += norm;
            const double heads = 1 + double(m.mtpLayers);
            const double logits = T * vocab / (run.lossParallel ? t : 1);
            activations += double(lastInFlight) * heads * (run.normBytes * T * h / spd + Bc * T * h / spd + (Bc + kLossLogitBytes) * logits);
            working += Bc * logits;  // the logits' gradient
            const double gemmS = matmulSeconds(2 * T * h * vocab / t, dev);
            const double ce = memorySeconds((Bc + kLossLogitBytes) * logits * 3, dev);
            forward += heads * (gemmS + ce);
            backward += heads * (gemmS + ce);
            weight += heads * gemmS;
            if (!run.lossParallel) {
                const CollectiveCost gather = allGather(Bc * T * vocab, st.tp, links.tp, dev);
                forward += heads * gather.seconds, comm += heads * gather.seconds, tpS += heads * gather.seconds;
            }
            modelFlopsForward += heads * 2 * s * double(st.mbs) * h * double(m.vocab);
        }
        params += tableParams;

        // Static memory. Tables keep AdamW's two states whatever the optimizer
        // (seed _exec_spec.py optimizer_states).
        const double Bp = run.paramBytes, Bg = run.frozen ? 0 : run.gradBytes;
        const double stateBytes = run.frozen ? 0 : double(run.optimizerStates) * run.stateBytes;
        const double tableStateBytes = run.frozen ? 0 : 2 * run.stateBytes;
        const double mainBytes = run.frozen ? 0 : run.mainBytes;
        StageMemory mem;
        mem.parameters = wholeBytes(params * Bp / (st.fsdp ? R : 1) + expertParams * Bp / (st.fsdp ? Re : 1));
        mem.gradients = wholeBytes(params * Bg / (shardGrads ? R : 1) + expertParams * Bg / (shardGrads ? Re : 1));
        mem.optimizerStates = wholeBytes(((params - tableParams) * stateBytes + tableParams * tableStateBytes) / R +
                                         expertParams * stateBytes / Re);
        mem.mainParameters = wholeBytes(params * mainBytes / R + expertParams * mainBytes / Re);
        mem.activations = wholeBytes(activations);
        // Buffers: one gradient bucket in flight (DP), send/receive (PP), dispatch (EP), KV ring (CP).
        double buffers = 0;
        if (st.dp * st.cp > 1 && !run.frozen)
            buffers += std::min(std::max(kDpBucketElements, kDpBucketElementsPerRank * double(st.dp)), params + expertParams) * Bg;
        if (p > 1) buffers += 2 * Bc * T * h / spd * (st.schedule == Schedule::Interleaved ? 2 : 1);
        buffers += epBuffer + cpBuffer;
        mem.buffers = wholeBytes(buffers);
        if (st.fsdp) {
            const double gathered = st.reshard ? double(kFsdpGatheredLayers) * maxLayerSplit : params + expertParams;
            working += gathered * Bp * (1 - 1 / R);
        }
        mem.working = wholeBytes(working);

        // Once per step: gradient reduction over dp·cp (experts over their replicas),
        // then the optimizer over this rank's shard.
        double dpSeconds = 0, dpExposed = 0;
        if (!run.frozen) {
            const std::int64_t group = st.dp * st.cp;
            const std::int64_t expertGroup = std::max<std::int64_t>(1, st.dp * st.tp * st.cp / (st.ep * st.etp));
            double paramGather = 0;
            if (st.fsdp) {
                // FSDP reduce-scatters each micro-batch and gathers each layer's weights per use.
                const CollectiveCost rs = allGather(params * Bg, group, links.dp, dev);
                const CollectiveCost ag = allGather(params * Bp, group, links.dp, dev);
                const double perMicro = rs.seconds + ag.seconds * (st.reshard ? 2 : 1);
                comm += perMicro * (1 - kParamGatherOverlap);
                forward += ag.seconds * (1 - kParamGatherOverlap);
                backward += (perMicro - ag.seconds) * (1 - kParamGatherOverlap);
            } else if (st.optimizerSharded) {
                dpSeconds = allGather(params * Bg, group, links.dp, dev).seconds +  // reduce-scatter
                            allGather(expertParams * Bg, expertGroup, links.edp, dev).seconds;
                paramGather = allGather(params * Bp, group, links.dp, dev).seconds +
                              allGather(expertParams * Bp, expertGroup, links.edp, dev).seconds;
            } else {
                dpSeconds = allReduce(params * Bg, group, links.dp, dev).seconds +
                            allReduce(expertParams * Bg, expertGroup, links.edp, dev).seconds;
            }
            const double lastBackward = backward + weight + recompute;
            dpExposed = std::max((1 - kDpOverlap) * dpSeconds, dpSeconds - lastBackward) + (1 - kParamGatherOverlap) * paramGather;
            dpSeconds += paramGather;
        }
        const double shardElements = params / R + expertParams / Re;
        const double optimizerSeconds =
            run.frozen ? 0 : memorySeconds(shardElements * (Bg + 2 * stateBytes + 2 * mainBytes + Bp), dev);

        const double X = forward + backward + weight + recompute;
        sumX += X;
        if (X > maxX) maxX = X, straggler = int(stage), stragglerComm = comm, stragglerRecompute = recompute;
        sumF += forward, maxF = std::max(maxF, forward);
        sumB += X - forward, maxB = std::max(maxB, X - forward);
        if (dpExposed + optimizerSeconds > maxTail)
            maxTail = dpExposed + optimizerSeconds, tailStage = int(stage), tailDp = dpExposed, tailOptimizer = optimizerSeconds;
        const Bytes total = mem.total();
        if (total > summary.peakMemory || stage == 0) {
            summary.peakMemory = total;
            if (detail) detail->peakStage = int(stage);
        }
        maxDeviceParams = std::max(maxDeviceParams, params + expertParams);
        if (out) {
            out->layers = stageLayers;
            std::int64_t held = 0;
            for (std::int64_t x : out->inFlightPerChunk) held += x;
            out->inFlightMicroBatches = (held + v - 1) / v;
            out->parameters = params + expertParams;
            out->memory = mem;
            out->time = {forward, backward, weight, recompute, comm, tpS, cpS, epS, ppS, dpSeconds, dpExposed, optimizerSeconds};
        }
    }
    (void)tailStage;

    const double makespan = pipelineMakespan(shape, sumX, maxX, sumF, maxF, sumB, maxB);
    summary.stepSeconds = makespan + maxTail;
    summary.fits = summary.peakMemory <= run.memoryBudget;
    if (detail) {
        Estimate& e = *detail;
        e.peakMemory = summary.peakMemory;
        e.deviceMemory = run.memoryBudget;
        e.fits = summary.fits;
        e.stepSeconds = summary.stepSeconds;
        e.perDeviceMaxParameters = maxDeviceParams;
        const double devices = double(st.dp * st.tp * st.pp * st.cp);
        e.modelFlopsPerStep = 3 * modelFlopsForward * double(mbn) * double(st.dp);
        e.mfu = e.modelFlopsPerStep / (summary.stepSeconds * devices * dev.peakFlops);
        e.tokensPerSecond = double(st.dp * mbn * st.mbs) * s / summary.stepSeconds;
        e.bubbleFraction = makespan > 0 ? (makespan - double(mbn) * maxX) / makespan : 0;
        e.breakdown.recompute = double(mbn) * stragglerRecompute;
        e.breakdown.communicationExposed = double(mbn) * stragglerComm + tailDp;
        e.breakdown.compute = double(mbn) * (maxX - stragglerRecompute - stragglerComm);
        e.breakdown.bubble = makespan - double(mbn) * maxX;
        e.breakdown.optimizer = tailOptimizer;
        (void)straggler;
    }
    return summary;
}

Estimate estimate(const ResolvedScenario& r) {
    Estimate e;
    evaluate(costInput(r), &e);
    e.totalParameters = countParameters(r.scenario.model).total();
    return e;
}

}  // namespace tessera::core
