#include "model/estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <type_traits>

#include "model/layercost.h"
#include "model/slowestdevice.h"
#include "model/stagebody.h"
#include "pipeline/closedform.h"
#include "pipeline/schedule.h"

namespace tessera::core {

namespace {

// Of the rings a data-parallel group's gradients and parameters run (its shard groups',
// the whole group when one shard spans it, and their replicas'), the most ranks of one
// that cross the network from a single NVLink domain; 0 when none does with more than one.
std::int64_t ranksSharingNics(const ShardGroups& g) {
    auto crossing = [](Link l, std::int64_t n) { return l != Link::Intra && n > 1 ? n : std::int64_t(0); };
    return std::max(crossing(g.shardLink, g.shardPerNode), g.replicas > 1 ? crossing(g.replicaLink, g.replicaPerNode) : 0);
}

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

// A stage as a simulated schedule runs it: what it holds apart from activations, its
// saved activations per micro-batch by chunk (chunk 0 with the embedding, the last with
// the output head), and its times.
struct SimulatedStage {
    StageMemory memory;
    double weightGradKept = 0, params = 0;
    std::array<double, detail::kMaxChunks> chunkKept{};
    std::int64_t layers = 0;
    StageTime time;
    VisionShare vision;
    double kept() const {
        double sum = 0;
        for (double k : chunkKept) sum += k;
        return sum;
    }
};

// The schedules with no exact closed form, priced by their simulation, which also
// gives each device's activation peak over time:
//  - dualpipe (deepseek-ai/DualPipe): device r runs stage r for one direction and stage
//    p-1-r for the other, holding both stages' parameters (closedform.h
//    pipelineMakespanDual is exact only for equal stages with F = B_input);
//  - zbv, dualpipev: stage s holds chunks s and 2p-1-s of a V. The stage's time is
//    split evenly over its two chunks (as the Pipeline view's interleaved chunks are);
//    what each chunk keeps is its own;
//  - 1f1b and interleaved with pairsExpertComm: Megatron's order with its steady state
//    paired, each chunk a 1/v share of the stage's time.
Summary evaluateSimulated(const CostInput& in, const std::vector<SimulatedStage>& slots, Estimate* detail) {
    const Strategy& st = in.strategy;
    const int p = int(st.pp), m = int(st.mbn);
    const bool mirrored = st.schedule == Schedule::DualPipe, paired = pairsExpertComm(in);
    const int chunks = int(simulatedChunks(st.schedule, st.vpp));
    PipelineInput pipe;
    pipe.schedule = scheduleName(st.schedule), pipe.stages = p, pipe.chunks = chunks, pipe.microBatches = m;
    pipe.pairSteadyState = paired;
    // DeepEP's kernels hold moe_deepep_sms of the device's SMs while a pair overlaps them
    // (DeepSeek-V3 report §3.2.1-3.2.2: the SMs are split between communication and
    // compute; DeepGEMM's set_num_sms sizes the GEMMs to the rest).
    const bool pairs = paired || st.schedule == Schedule::DualPipe || st.schedule == Schedule::DualPipeV;
    if (pairs && in.run.deepepSms > 0 && in.device.sms > in.run.deepepSms)
        pipe.pairComputeStretch = double(in.device.sms) / double(in.device.sms - in.run.deepepSms);
    pipe.times.resize(std::size_t(p));
    pipe.keptBytes.resize(std::size_t(p));
    pipe.weightGradBytes.resize(std::size_t(p));
    for (int r = 0; r < p; ++r) {
        const SimulatedStage& own = slots[std::size_t(r)];
        if (mirrored) {
            const SimulatedStage& mirror = slots[std::size_t(p - 1 - r)];
            pipe.times[std::size_t(r)] = {simulatorTimes(own.time, 1, true), simulatorTimes(mirror.time, 1, true)};
            pipe.keptBytes[std::size_t(r)] = {own.kept(), mirror.kept()};
            pipe.weightGradBytes[std::size_t(r)] = {own.weightGradKept, mirror.weightGradKept};
        } else {
            const bool split = splitsWeightGrad(st.schedule);
            pipe.times[std::size_t(r)].assign(std::size_t(chunks), simulatorTimes(own.time, chunks, split, paired));
            pipe.keptBytes[std::size_t(r)].assign(own.chunkKept.begin(), own.chunkKept.begin() + chunks);
            pipe.weightGradBytes[std::size_t(r)].assign(std::size_t(chunks), split ? own.weightGradKept / chunks : 0.0);
        }
    }
    pipe.keepEvents = false;  // the price needs the makespan, busy times and byte peaks only
    const PipelineResult run = simulatePipeline(pipe);
    // Device r's stages: its own, and under dualpipe the mirrored one; each runs
    // `share` of the micro-batches (half each way under dualpipe).
    auto mirrorOf = [&](int r) -> const SimulatedStage* { return mirrored ? &slots[std::size_t(p - 1 - r)] : nullptr; };
    const double share = mirrored ? double(m) / 2 : double(m);
    auto sum = [&](int r, auto field) {
        const SimulatedStage* mirror = mirrorOf(r);
        return field(slots[std::size_t(r)]) + (mirror ? field(*mirror) : 0.0);
    };
    Summary summary;
    double tail = 0, tailDp = 0, tailOptimizer = 0, maxBusy = -1;
    int straggler = 0;
    for (int r = 0; r < p; ++r) {
        const SimulatedStage& own = slots[std::size_t(r)];
        const SimulatedStage* mirror = mirrorOf(r);
        StageMemory mem = own.memory;
        if (mirror) {
            mem.parameters += mirror->memory.parameters, mem.gradients += mirror->memory.gradients;
            mem.optimizerStates += mirror->memory.optimizerStates, mem.mainParameters += mirror->memory.mainParameters;
            mem.buffers = std::max(mem.buffers, mirror->memory.buffers);
            mem.working = std::max(mem.working, mirror->memory.working);
        }
        mem.activations = detail::wholeBytes(run.peakBytes[std::size_t(r)]);
        const Bytes total = mem.total();
        if (total > summary.peakMemory || r == 0) {
            summary.peakMemory = total;
            if (detail) detail->peakStage = r;
        }
        // Both stages' gradients are reduced and stepped on this device.
        const double dpExposed = sum(r, [](const SimulatedStage& d) { return d.time.dpExposed; });
        const double optimizer = sum(r, [](const SimulatedStage& d) { return d.time.optimizer; });
        if (dpExposed + optimizer > tail) tail = dpExposed + optimizer, tailDp = dpExposed, tailOptimizer = optimizer;
        if (run.busy[std::size_t(r)] > maxBusy) maxBusy = run.busy[std::size_t(r)], straggler = r;
        if (detail) {
            StageEstimate& out = detail->stages.emplace_back();
            out.stage = r;
            out.layers = own.layers + (mirror ? mirror->layers : 0);
            for (int c : run.peakInFlightPerChunk[std::size_t(r)]) out.inFlightPerChunk.push_back(c);
            // A dualpipe chunk is a whole stage; a V or interleaved chunk a share of one.
            out.inFlightMicroBatches = mirrored ? run.peakInFlight[std::size_t(r)]
                                                : (run.peakInFlight[std::size_t(r)] + chunks - 1) / chunks;
            out.parameters = own.params + (mirror ? mirror->params : 0);
            out.memory = mem;
            out.time = own.time;
            out.hasMirror = mirrored;
            if (mirror) out.mirror = mirror->time;
            out.vision = own.vision;
            if (mirror) out.vision += mirror->vision;
            const double work = share * sum(r, [](const SimulatedStage& d) { return d.time.perMicroBatch(); }) +
                                run.pairStretchSeconds[std::size_t(r)];
            out.hiddenBySchedule = std::max(0.0, work - run.busy[std::size_t(r)]);
        }
    }
    summary.stepSeconds = run.makespan + tail;
    // zb-h2 post-validated: each stage reduces, steps and starts the next step on its own,
    // so the step is the longest of (its span, then its own reduction and step).
    const bool stageSpan = in.run.postValidation && staggersStages(st.schedule);
    if (stageSpan) {
        summary.stepSeconds = 0;
        for (int r = 0; r < p; ++r) {
            const double own = sum(r, [](const SimulatedStage& d) { return d.time.dpExposed + d.time.optimizer; });
            summary.stepSeconds = std::max(summary.stepSeconds, run.span[std::size_t(r)] + own);
        }
    }
    const double pipelineSeconds = stageSpan ? std::max(maxBusy, summary.stepSeconds - tail) : run.makespan;
    summary.fits = summary.peakMemory <= in.run.memoryBudget && summary.peakMemory < detail::kMaxCountedBytes;
    if (detail) {
        // The straggler's work: every micro-batch through each of its stages; what the
        // F&B pairs saved against running both halves apart is hidden communication.
        const double slowed = run.pairStretchSeconds[std::size_t(straggler)];
        const double work =
            share * sum(straggler, [](const SimulatedStage& d) { return d.time.perMicroBatch(); }) + slowed;
        const double comm = share * sum(straggler, [](const SimulatedStage& d) { return d.time.communication; });
        const double recompute = share * sum(straggler, [](const SimulatedStage& d) { return d.time.recompute; });
        const double hidden = std::max(0.0, work - maxBusy);
        detail->breakdown.recompute = recompute;
        detail->breakdown.communicationExposed = std::max(0.0, comm - hidden) + tailDp;
        detail->breakdown.compute = maxBusy - recompute - std::max(0.0, comm - hidden);
        detail->breakdown.bubble = pipelineSeconds - maxBusy;
        detail->breakdown.communicationHiddenBySchedule = std::min(comm, hidden);
        detail->breakdown.computeSlowedBySms = slowed;
        detail->breakdown.optimizer = tailOptimizer;
        detail->bubbleFraction = pipelineSeconds > 0 ? (pipelineSeconds - maxBusy) / pipelineSeconds : 0;
        detail->lastStageEnd = staggersStages(st.schedule) ? run.makespan : 0;
        detail->stepIsStageSpan = stageSpan;
    }
    return summary;
}

}  // namespace

Summary evaluate(const CostInput& in, Estimate* detail) {
    const Strategy& st = in.strategy;
    const RunSettings& run = in.run;
    if (in.model.kinds.size() * st.classes.size() > detail::kMaxPairs || st.vpp > std::int64_t(detail::kMaxChunks))
        return {};  // beyond what resolve() accepts
    detail::StageContext ctx(in);
    const std::int64_t p = st.pp, v = st.vpp, mbn = st.mbn;
    const int parts = int(sequenceParts(run, st));  // in flight counts sequence parts
    const PipelineShape shape{st.schedule, int(p), int(v), int(mbn), parts};
    const double perPart = 1.0 / parts;  // what one part of a micro-batch keeps (the seed's node at length s/n)

    Summary summary;
    double sumX = 0, maxX = -1, sumF = 0, maxF = 0, sumB = 0, maxB = 0, maxTail = -1;
    ZbH1Stages zb{0, 0, 0, -1};
    double stragglerComm = 0, stragglerRecompute = 0, tailDp = 0, tailOptimizer = 0;
    double modelFlopsForward = 0;  // per micro-batch per replica
    double maxDeviceParams = 0;
    bool expertWeights = false;  // some stage holds routed experts
    const bool simulated = simulatedPrice(in);  // (evaluateSimulated)
    thread_local std::vector<SimulatedStage> slots;
    if (simulated) slots.assign(std::size_t(p), SimulatedStage{});
    if (detail) detail->stages.clear();
    detail::StageBody body;
    for (std::int64_t stage = 0; stage < p; ++stage) {
        const bool middle = stage > 0 && stage < p - 1;
        if (!(middle && stage > 1 && sameLayers(ctx, stage))) body = detail::stageBody(ctx, stage);
        maxDeviceParams = std::max(maxDeviceParams, body.params + body.expertParams + body.frozenParams);
        expertWeights = expertWeights || body.expertParams > 0;
        modelFlopsForward += body.modelFlopsForward;
        if (simulated) {  // priced with its mirror stage, or its V's two chunks, below
            SimulatedStage& slot = slots[std::size_t(stage)];
            slot.memory = body.memory;
            slot.chunkKept.fill(0);
            for (std::int64_t c = 0; c < v; ++c) slot.chunkKept[std::size_t(c)] = body.kept[std::size_t(c)];
            slot.chunkKept[0] += body.embeddingKept;
            slot.chunkKept[std::size_t(v == 1 && st.schedule == Schedule::DualPipe ? 1 : v - 1)] += body.outputKept;
            slot.weightGradKept = body.weightGradKept;
            slot.params = body.params + body.expertParams + body.frozenParams;
            slot.layers = body.layers;
            slot.time = body.time;
            slot.vision = body.vision;
            continue;
        }
        double activations = 0;
        std::int64_t held = 0;
        for (std::int64_t chunk = 0; chunk < v; ++chunk) {
            const std::int64_t inFlight = inFlightChunkForwards(shape, int(stage), int(chunk));
            activations += double(inFlight) * perPart * body.kept[std::size_t(chunk)];
            held += inFlight;
        }
        activations += perPart * (double(inFlightChunkForwards(shape, int(stage), 0)) * body.embeddingKept +
                                  double(inFlightChunkForwards(shape, int(stage), int(v - 1))) * body.outputKept);
        // ZB-H1's held-back weight gradients keep their matmul inputs and output gradients.
        activations += double(waitingWeightGrads(shape, int(stage))) * body.weightGradKept;
        StageMemory mem = body.memory;
        mem.activations = detail::wholeBytes(activations);
        const StageTime& time = body.time;

        const double X = time.perMicroBatch();
        sumX += X;
        if (X > maxX) maxX = X, stragglerComm = time.communication, stragglerRecompute = time.recompute;
        sumF += time.forward, maxF = std::max(maxF, time.forward);
        sumB += X - time.forward, maxB = std::max(maxB, X - time.forward);
        // ZB-H1's drain per hop: F + B - min(B, W), never below the input gradient B.
        const double inputGrad = time.backward + time.recompute;
        zb.maxY = std::max({zb.maxY, time.forward + inputGrad - std::min(inputGrad, time.weightGrad), inputGrad});
        zb.maxFB = std::max(zb.maxFB, time.forward + inputGrad);
        zb.minFill = zb.minFill < 0 ? std::min(inputGrad, time.weightGrad) : std::min(zb.minFill, std::min(inputGrad, time.weightGrad));
        if (time.dpExposed + time.optimizer > maxTail)
            maxTail = time.dpExposed + time.optimizer, tailDp = time.dpExposed, tailOptimizer = time.optimizer;
        const Bytes total = mem.total();
        if (total > summary.peakMemory || stage == 0) {
            summary.peakMemory = total;
            if (detail) detail->peakStage = int(stage);
        }
        if (detail) {
            StageEstimate& out = detail->stages.emplace_back();
            out.stage = int(stage);
            out.layers = body.layers;
            for (std::int64_t chunk = 0; chunk < v; ++chunk)
                out.inFlightPerChunk.push_back(inFlightChunkForwards(shape, int(stage), int(chunk)));
            out.inFlightMicroBatches = (held + v * parts - 1) / (v * parts);
            out.parameters = body.params + body.expertParams + body.frozenParams;
            out.memory = mem;
            out.time = time;
            out.vision = body.vision;
        }
    }

    double makespan = 0;
    if (simulated) {
        summary = evaluateSimulated(in, slots, detail);
    } else {
        makespan = st.schedule == Schedule::ZbH1 && p > 1 ? pipelineMakespanZbH1(shape, {maxX, zb.maxY, zb.maxFB, zb.minFill})
                                                          : pipelineMakespan(shape, sumX, maxX, sumF, maxF, sumB, maxB);
        summary.stepSeconds = makespan + maxTail;
        summary.fits = summary.peakMemory <= run.memoryBudget && summary.peakMemory < detail::kMaxCountedBytes;  // a capped term fits nothing
    }
    if (detail) {
        Estimate& e = *detail;
        const double s = double(run.seq), devices = double(st.dp * st.tp * st.pp * st.cp);
        e.peakMemory = summary.peakMemory;
        e.deviceMemory = run.memoryBudget;
        e.fits = summary.fits;
        e.stepSeconds = summary.stepSeconds;
        e.perDeviceMaxParameters = maxDeviceParams;
        if (st.schedule == Schedule::DualPipe)
            for (std::int64_t r = 0; r < p; ++r)
                e.perDeviceMaxParameters = std::max(e.perDeviceMaxParameters, slots[std::size_t(r)].params + slots[std::size_t(p - 1 - r)].params);
        e.expertCommPaired = pairsExpertComm(in);
        e.postValidationUnused = run.postValidation && !(staggersStages(st.schedule) && p > 1);
        e.seqSplit = parts;
        e.modelFlopsPerStep = 3 * modelFlopsForward * double(mbn) * double(st.dp);
        // Against the compute dtype's peak: an FP8 run's FP8 peak, though parts of it run in BF16.
        const double peak = in.device.fp8PeakFlops > 0 ? in.device.fp8PeakFlops : in.device.peakFlops;
        e.mfu = e.modelFlopsPerStep / (summary.stepSeconds * devices * peak);
        e.tokensPerSecond = double(st.dp * mbn * st.mbs) * s / summary.stepSeconds;
        if (!simulated) {  // (evaluateSimulated fills these from its simulation)
            e.bubbleFraction = makespan > 0 ? (makespan - double(mbn) * maxX) / makespan : 0;
            e.breakdown.recompute = double(mbn) * stragglerRecompute;
            e.breakdown.communicationExposed = double(mbn) * stragglerComm + tailDp;
            e.breakdown.compute = double(mbn) * (maxX - stragglerRecompute - stragglerComm);
            e.breakdown.bubble = makespan - double(mbn) * maxX;
            e.breakdown.optimizer = tailOptimizer;
        }
        // What the kernels' slowest-device pace (layercost.cpp) added to compute and recompute.
        e.slowestDeviceFactor = slowestDeviceFactor(in.device.rankSpeedSpread, in.device.devices);
        e.breakdown.computeWaitingOnSlowest = slowestDeviceWait(e.breakdown.compute + e.breakdown.recompute, e.slowestDeviceFactor);
        if (!run.frozen) {
            const GroupLinks& l = ctx.links;
            if (st.dp * st.cp > 1) e.dpRanksPerNodeOnOneNic = ranksSharingNics(l.dpShard);
            if (expertWeights && expertGridOf(st).dp > 1)
                e.expertDpRanksPerNodeOnOneNic = ranksSharingNics(l.edpShard);
        }
    }
    return summary;
}

Estimate estimate(const ResolvedScenario& r) {
    Estimate e;
    evaluate(costInput(r), &e);
    e.totalParameters = countParameters(r.scenario.model).total();
    const ExecSpec& x = r.scenario.exec;
    e.devices = r.scenario.cluster.devices.value_or(0);
    if (e.tokensPerSecond > 0) e.gpuHoursPerTrillionTokens = double(e.devices) * 1e12 / e.tokensPerSecond / 3600;
    if (x.train_tokens) {
        e.trainTokens = *x.train_tokens;
        // The trainer runs whole steps: the last one may carry tokens past the budget.
        const double stepTokens = double(*x.global_batch_size) * double(*x.seq_length);
        e.trainSteps = std::int64_t(std::ceil(double(*x.train_tokens) / stepTokens));
        e.trainDays = double(*e.trainSteps) * e.stepSeconds / 86400;
    }
    return e;
}

StageTimes simulatorTimes(const StageTime& t, int chunks, bool splitWeightGrad, bool expertCommOnly) {
    const double v = chunks;
    // The expert all-to-all is the same each way: dispatch and combine (layercost.cpp).
    const double forwardComm = expertCommOnly ? t.exposed.ep / 2 : t.forwardComm;
    const double backwardComm = expertCommOnly ? t.exposed.ep / 2 : t.backwardComm;
    // Hidden under the layers' own compute, per dimension before and after overlap; the
    // CP ring moves twice as much in the backward, the others the same each way.
    const auto& x = t.exposed;
    const double evenly = (t.tp - x.tp) + (t.ep - x.ep) + (t.pp - x.pp) + (t.host - x.host), ring = t.cp - x.cp;
    const double forwardHidden = std::max(0.0, evenly / 2 + ring / 3), backwardHidden = std::max(0.0, evenly / 2 + 2 * ring / 3);
    return {t.forward / v,      (t.backward + t.recompute + (splitWeightGrad ? 0 : t.weightGrad)) / v,
            splitWeightGrad ? t.weightGrad / v : 0, forwardComm / v, backwardComm / v,
            forwardHidden / v,  backwardHidden / v,
            std::max(0.0, t.forwardComm - forwardComm) / v, std::max(0.0, t.backwardComm - backwardComm) / v};
}

bool pairsExpertComm(const CostInput& in) {
    const Schedule s = in.strategy.schedule;
    const bool moe = std::any_of(in.model.kinds.begin(), in.model.kinds.end(), [](const LayerKind& k) { return k.moe; });
    return in.run.overlapExpertComm && moe && in.strategy.ep > 1 &&
           (s == Schedule::OneFOneB || s == Schedule::Interleaved);
}

bool simulatedPrice(const CostInput& in) { return simulatedToPrice(in.strategy.schedule, pairsExpertComm(in)); }

}  // namespace tessera::core
