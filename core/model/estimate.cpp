#include "model/estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <type_traits>

#include "model/layercost.h"
#include "model/stagebody.h"
#include "pipeline/closedform.h"

namespace tessera::core {

namespace {

// Whether stage `stage` holds the same layers, kind by kind, as the stage before it:
// then both have one body (the middle stages of an even split).
bool sameLayers(const detail::StageContext& ctx, std::int64_t stage) {
    if (!ctx.in.strategy.layerClass.empty()) return false;  // counting classes walks every layer: not worth it
    std::int64_t a[detail::kMaxPairs], b[detail::kMaxPairs];
    for (std::int64_t chunk = 0; chunk < ctx.in.strategy.vpp; ++chunk) {
        const std::int64_t n = ctx.chunkLayers(chunk, stage);
        if (n != ctx.chunkLayers(chunk, stage - 1)) return false;
        ctx.countPairs(ctx.chunkStart(chunk, stage), n, a);
        ctx.countPairs(ctx.chunkStart(chunk, stage - 1), n, b);
        if (!std::equal(a, a + ctx.pairs, b)) return false;
    }
    return true;
}

}  // namespace

Summary evaluate(const CostInput& in, Estimate* detail) {
    const Strategy& st = in.strategy;
    const RunSettings& run = in.run;
    if (in.model.kinds.size() * st.classes.size() > detail::kMaxPairs || st.vpp > std::int64_t(detail::kMaxChunks))
        return {};  // beyond what resolve() accepts
    detail::StageContext ctx(in);
    const std::int64_t p = st.pp, v = st.vpp, mbn = st.mbn;
    const PipelineShape shape{st.schedule, int(p), int(v), int(mbn)};

    Summary summary;
    double sumX = 0, maxX = -1, sumF = 0, maxF = 0, sumB = 0, maxB = 0, maxTail = -1;
    double stragglerComm = 0, stragglerRecompute = 0, tailDp = 0, tailOptimizer = 0;
    double modelFlopsForward = 0;  // per micro-batch per replica
    double maxDeviceParams = 0;
    if (detail) detail->stages.clear();
    detail::StageBody body;
    for (std::int64_t stage = 0; stage < p; ++stage) {
        const bool middle = stage > 0 && stage < p - 1;
        if (!(middle && stage > 1 && sameLayers(ctx, stage))) body = detail::stageBody(ctx, stage);
        double activations = 0;
        std::int64_t held = 0;
        for (std::int64_t chunk = 0; chunk < v; ++chunk) {
            const std::int64_t inFlight = inFlightChunkForwards(shape, int(stage), int(chunk));
            activations += double(inFlight) * body.kept[std::size_t(chunk)];
            held += inFlight;
        }
        activations += double(inFlightChunkForwards(shape, int(stage), 0)) * body.embeddingKept +
                       double(inFlightChunkForwards(shape, int(stage), int(v - 1))) * body.outputKept;
        StageMemory mem = body.memory;
        mem.activations = detail::wholeBytes(activations);
        const StageTime& time = body.time;

        const double X = time.perMicroBatch();
        sumX += X;
        if (X > maxX) maxX = X, stragglerComm = time.communication, stragglerRecompute = time.recompute;
        sumF += time.forward, maxF = std::max(maxF, time.forward);
        sumB += X - time.forward, maxB = std::max(maxB, X - time.forward);
        if (time.dpExposed + time.optimizer > maxTail)
            maxTail = time.dpExposed + time.optimizer, tailDp = time.dpExposed, tailOptimizer = time.optimizer;
        const Bytes total = mem.total();
        if (total > summary.peakMemory || stage == 0) {
            summary.peakMemory = total;
            if (detail) detail->peakStage = int(stage);
        }
        maxDeviceParams = std::max(maxDeviceParams, body.params + body.expertParams);
        modelFlopsForward += body.modelFlopsForward;
        if (detail) {
            StageEstimate& out = detail->stages.emplace_back();
            out.stage = int(stage);
            out.layers = body.layers;
            for (std::int64_t chunk = 0; chunk < v; ++chunk)
                out.inFlightPerChunk.push_back(inFlightChunkForwards(shape, int(stage), int(chunk)));
            out.inFlightMicroBatches = (held + v - 1) / v;
            out.parameters = body.params + body.expertParams;
            out.memory = mem;
            out.time = time;
        }
    }

    const double makespan = pipelineMakespan(shape, sumX, maxX, sumF, maxF, sumB, maxB);
    summary.stepSeconds = makespan + maxTail;
    summary.fits = summary.peakMemory <= run.memoryBudget && summary.peakMemory < detail::kMaxCountedBytes;  // a capped term fits nothing
    if (detail) {
        Estimate& e = *detail;
        const double s = double(run.seq), devices = double(st.dp * st.tp * st.pp * st.cp);
        e.peakMemory = summary.peakMemory;
        e.deviceMemory = run.memoryBudget;
        e.fits = summary.fits;
        e.stepSeconds = summary.stepSeconds;
        e.perDeviceMaxParameters = maxDeviceParams;
        e.modelFlopsPerStep = 3 * modelFlopsForward * double(mbn) * double(st.dp);
        e.mfu = e.modelFlopsPerStep / (summary.stepSeconds * devices * in.device.peakFlops);
        e.tokensPerSecond = double(st.dp * mbn * st.mbs) * s / summary.stepSeconds;
        e.bubbleFraction = makespan > 0 ? (makespan - double(mbn) * maxX) / makespan : 0;
        e.breakdown.recompute = double(mbn) * stragglerRecompute;
        e.breakdown.communicationExposed = double(mbn) * stragglerComm + tailDp;
        e.breakdown.compute = double(mbn) * (maxX - stragglerRecompute - stragglerComm);
        e.breakdown.bubble = makespan - double(mbn) * maxX;
        e.breakdown.optimizer = tailOptimizer;
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
