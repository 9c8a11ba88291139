#include "plan/bound.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "model/stagebody.h"

namespace tessera::core {

namespace {

// What grows with the parameters a stage holds, and nothing else.
Bytes linearMemory(const StageMemory& m) { return m.parameters + m.gradients + m.optimizerStates + m.mainParameters; }

// A stage's once-per-step tail with its reduction as hidden as the run ever hides it:
// none of it when overlapped (the last bucket's share shrinks as layers add buckets, so
// an empty stage's would not bound a full one's).
double leastTail(const RunSettings& run, const detail::StageBody& b) {
    return (run.overlappedGradReduce ? 0.0 : b.reduceSeconds) + b.gatherExposed + b.time.optimizer;
}

// The peak with the activations in: a layer of kind k on stage s costs that stage a_k
// (its static memory) plus i_s·b_k (the least it can keep, times the micro-batches
// stage s holds in flight), on top of what the stage holds empty (c_s). For any
// weights w_s >= 0, max_s M_s >= (sum_s w_s c_s + sum_k L_k min_s w_s (a_k + i_s b_k)) / sum_s w_s;
// weights 1 / (a + i_s b) of the kind with the most memory make the layers' term
// the same on every stage (the continuous balance of that kind).
double heldBound(detail::StageContext& ctx, const PipelineShape& shape, const detail::StageBody& first,
                 const detail::StageBody& base, const detail::StageBody& last) {
    const CostInput& in = ctx.in;
    const ModelShape& m = in.model;
    const std::int64_t p = in.strategy.pp, v = in.strategy.vpp;
    const std::int64_t mid = p > 2 ? 1 : 0;
    std::vector<double> a(ctx.kinds, 0), b(ctx.kinds, 0), layers(ctx.kinds, 0);
    for (std::size_t k = 0; k < ctx.kinds; ++k) {
        layers[k] = m.kindPrefix[k][std::size_t(ctx.placed)];
        if (layers[k] == 0) continue;
        detail::StageRanges one;
        while (m.layerKind[std::size_t(one.start[0])] != k) ++one.start[0];
        one.count[0] = 1;
        a[k] = double(linearMemory(detail::stageBody(ctx, mid, one).memory) - linearMemory(base.memory));
        b[k] = std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < ctx.classes; ++c) b[k] = std::min(b[k], ctx.cost(k * ctx.classes + c).kept);
    }
    std::size_t heavy = 0;
    for (std::size_t k = 1; k < ctx.kinds; ++k)
        if (layers[k] * (a[k] + b[k]) > layers[heavy] * (a[heavy] + b[heavy])) heavy = k;
    // Each stage empty, as evaluate() holds it (the embedding's and output's saved inputs in).
    double sumW = 0, sumWc = 0;
    std::vector<double> w(static_cast<std::size_t>(p)), held(static_cast<std::size_t>(p));
    for (std::int64_t s = 0; s < p; ++s) {
        std::int64_t least = std::numeric_limits<std::int64_t>::max();
        for (std::int64_t c = 0; c < v; ++c) least = std::min(least, inFlightChunkForwards(shape, int(s), int(c)));
        held[std::size_t(s)] = double(least);
    }
    for (std::int64_t s = 0; s < p; ++s) {
        const detail::StageBody& e = s == 0 ? first : s == p - 1 ? last : base;
        const double c = double(e.memory.total()) +
                         double(inFlightChunkForwards(shape, int(s), 0)) * e.embeddingKept +
                         double(inFlightChunkForwards(shape, int(s), int(v - 1))) * e.outputKept;
        const double per = a[heavy] + held[std::size_t(s)] * b[heavy];
        w[std::size_t(s)] = per > 0 ? 1 / per : 1;
        sumW += w[std::size_t(s)], sumWc += w[std::size_t(s)] * c;
    }
    double layersTerm = 0;
    for (std::size_t k = 0; k < ctx.kinds; ++k) {
        if (layers[k] == 0) continue;
        double least = std::numeric_limits<double>::infinity();
        for (std::int64_t s = 0; s < p; ++s)
            least = std::min(least, w[std::size_t(s)] * (a[k] + held[std::size_t(s)] * b[k]));
        layersTerm += layers[k] * least;
    }
    return (sumWc + layersTerm) / sumW;
}

}  // namespace

PlanBound planLowerBound(const CostInput& in, const PlanRequest& request) {
    thread_local CostInput work;  // per thread: its vectors keep their storage (planner.cpp)
    work = in;  // the layers at their fastest: NONE (class 0) when the plan chooses, else as stated
    if (request.recompute) {
        // NONE for the times, FULL for the least a layer keeps (it keeps only the layer's
        // input, which every option keeps: the test holds the bound under every plan).
        work.strategy.classes.assign(1, RecomputeClass{});
        work.strategy.classes.push_back(planOptionClass(PlanOption::Full, request.selectiveKeep));
        work.strategy.layerClass.clear();
    }
    work.strategy.partition.clear();
    const Strategy& st = work.strategy;
    const std::int64_t p = st.pp, v = st.vpp;
    detail::StageContext ctx(work);

    // The layers' own times, wherever they go.
    double forward = 0, backward = 0;
    std::int64_t counts[detail::kMaxPairs];
    ctx.countPairs(0, ctx.placed, counts);
    for (std::size_t i = 0; i < ctx.pairs; ++i) {
        if (counts[i] == 0) continue;
        const LayerCost& lc = ctx.cost(i);
        forward += double(counts[i]) * lc.forward;
        backward += double(counts[i]) * (lc.backwardInput + lc.backwardWeight + lc.recompute);
    }

    // Each stage holding no layer (the middle ones alike), and one holding them all.
    detail::StageRanges none;
    detail::StageRanges all = none;
    all.count[0] = ctx.placed;
    const std::int64_t mid = p > 2 ? 1 : 0;
    double sumF = forward, sumB = backward, maxF = 0, maxB = 0, maxX = 0, sumTail = 0, maxTail = 0;
    double sumMemory = 0;
    Bytes maxMemory = 0;
    detail::StageBody midEmpty;
    // An empty stage's FSDP gathers and overlapped sends have no layers to hide under;
    // with layers they may hide whole, so the bound leaves them out.
    auto add = [&](const detail::StageBody& b, double times) {
        const double f = b.time.forward - b.coverableForward;
        const double x = b.time.perMicroBatch() - b.coverableForward - b.coverableBackward;
        sumF += times * f, sumB += times * (x - f);
        maxF = std::max(maxF, f), maxB = std::max(maxB, x - f), maxX = std::max(maxX, x);
        const double tail = leastTail(work.run, b);
        sumTail += times * tail, maxTail = std::max(maxTail, tail);
        const Bytes total = b.memory.total();
        sumMemory += times * double(total), maxMemory = std::max(maxMemory, total);
    };
    const detail::StageBody first = detail::stageBody(ctx, 0, none);
    add(first, 1);
    if (p > 2) {
        midEmpty = detail::stageBody(ctx, 1, none);
        add(midEmpty, double(p - 2));
    }
    const detail::StageBody last = p > 1 ? detail::stageBody(ctx, p - 1, none) : first;
    if (p > 1) add(last, 1);
    const detail::StageBody& base = p > 2 ? midEmpty : first;
    const detail::StageBody full = detail::stageBody(ctx, mid, all);
    // The linear parts the layers add: their static memory and their optimizer step.
    sumMemory += double(linearMemory(full.memory) - linearMemory(base.memory));
    sumTail += std::max(0.0, full.time.optimizer - base.time.optimizer);

    const double P = double(p);
    const double sumX = sumF + sumB;
    maxX = std::max(maxX, sumX / P);
    maxF = std::max(maxF, sumF / P), maxB = std::max(maxB, sumB / P);
    maxTail = std::max(maxTail, sumTail / P);
    const PipelineShape shape{st.schedule, int(p), int(v), int(st.mbn)};
    const double meanMemory = sumMemory / P;
    const double heldMemory = heldBound(ctx, shape, first, base, last);
    PlanBound out;
    // A hair under, for the rounding of sums taken in another order than evaluate()'s.
    // zb-h1's drain per hop is at least a stage's forward (Y = max(F + B − min(B, W), B) ≥ F),
    // and with fewer micro-batches than stages (p − 1)·max(F + B) − (m − 1)·min fill ≥ (p − 1)·max F.
    const double makespan = st.schedule == Schedule::ZbH1 && p > 1 ? double(st.mbn) * maxX + double(p - 1) * maxF
                                                                   : pipelineMakespan(shape, sumX, maxX, sumF, maxF, sumB, maxB);
    out.stepSeconds = (makespan + maxTail) * (1 - 1e-9);
    // Less 16 bytes: each of the four linear terms is rounded up once per stage.
    const Bytes peak = std::max(maxMemory, Bytes(std::max(meanMemory, heldMemory) * (1 - 1e-12)));
    out.peakMemory = peak > 16 ? peak - 16 : 0;
    return out;
}

}  // namespace tessera::core
