#include "plan/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/stagebody.h"

namespace tessera::core {

namespace {

// What grows with the parameters a stage holds, and nothing else: the static terms, and
// the working set's share that FSDP keeps per parameter (StageBody::workingLinear).
double linearMemory(const detail::StageBody& b) {
    const StageMemory& m = b.memory;
    return double(m.parameters + m.gradients + m.optimizerStates + m.mainParameters) + b.workingLinear;
}

// A stage's once-per-step tail with its reduction as hidden as the run ever hides it:
// none of it when overlapped (the last bucket's share shrinks as layers add buckets, so
// an empty stage's would not bound a full one's).
double leastTail(const RunSettings& run, const detail::StageBody& b) {
    return (run.overlappedGradReduce ? 0.0 : b.reduceSeconds) + b.gatherExposed + b.time.optimizer;
}

// The peak with the activations in: a layer of kind k on stage s costs that stage a_k
// (its static memory) plus i_s·b_k (the least it can keep, times the micro-batches
// stage s holds in flight) plus w_s·g_k (zb-h1's weight gradients it holds back, each
// keeping g_k whatever the option), on top of what the stage holds empty (c_s). For any
// weights w_s >= 0, max_s M_s >= (sum_s w_s c_s + sum_k L_k min_s w_s (a_k + i_s b_k)) / sum_s w_s;
// weights 1 / (a + i_s b + w_s g) of the kind with the most memory make the layers' term
// the same on every stage (the continuous balance of that kind).
double heldBound(detail::StageContext& ctx, const PipelineShape& shape, const detail::StageBody& first,
                 const detail::StageBody& base, const detail::StageBody& last, bool planned, PlanBound& out) {
    const CostInput& in = ctx.in;
    const ModelShape& m = in.model;
    const std::int64_t p = in.strategy.pp, v = in.strategy.vpp;
    const std::int64_t mid = p > 2 ? 1 : 0;
    std::vector<double> a(ctx.kinds, 0), b(ctx.kinds, 0), g(ctx.kinds, 0), layers(ctx.kinds, 0);
    // The least working-set layer term of any kind, and of it the transient buffers alone.
    double working = std::numeric_limits<double>::infinity(), leastTransient = working;
    for (std::size_t k = 0; k < ctx.kinds; ++k) {
        layers[k] = m.kindPrefix[k][std::size_t(ctx.placed)];
        if (layers[k] == 0) continue;
        detail::StageRanges one;
        while (m.layerKind[std::size_t(one.start[0])] != k) ++one.start[0];
        one.count[0] = 1;
        a[k] = linearMemory(detail::stageBody(ctx, mid, one)) - linearMemory(base);
        b[k] = std::numeric_limits<double>::infinity();
        // Planned: FULL (the last class) keeps least; else the least of the stated classes.
        for (std::size_t c = planned ? ctx.classes - 1 : 0; c < ctx.classes; ++c) b[k] = std::min(b[k], ctx.cost(k * ctx.classes + c).kept);
        // zb-h1's weight gradients held back, what each keeps whatever the option; and the
        // working set's layer term (keptNone − kept + gradient buffer + gathered input, its
        // largest over the stage's layers): for a layer at option o, i·kept_o + keptNone
        // − kept_o >= i·b + keptNone − b while i >= 1, so any stage holding a layer of this
        // kind holds that much on top of its layers' i·b.
        g[k] = std::numeric_limits<double>::infinity();
        double transient = g[k];
        for (std::size_t c = 0; c < ctx.classes; ++c) {
            const LayerCost& lc = ctx.cost(k * ctx.classes + c);
            g[k] = std::min(g[k], lc.weightGradKept);
            transient = std::min(transient, lc.gradBuffer + lc.gatheredInput);
        }
        working = std::min(working, ctx.cost(k * ctx.classes).keptNone - b[k] + transient);
        leastTransient = std::min(leastTransient, transient);
    }
    if (!std::isfinite(working)) working = leastTransient = 0;
    // On top of what each stage holds empty (its own working term: a vision tower's), as
    // the largest of the two is taken. fitsUnder prices a layer's activations at a mix of
    // its options, not at b, so only the transient part is owed there.
    const detail::StageBody* ends[3] = {&first, &base, &last};
    std::array<double, 3> extra{};
    for (std::size_t which = 0; which < 3; ++which) {
        extra[which] = std::max(0.0, working - ends[which]->workingLayers);
        out.layerTransient[which] = std::max(0.0, leastTransient - ends[which]->workingLayers);
    }
    // The most numerous kind, for fitsUnder: its static memory, its time with no
    // recompute, and the lower hull of its options in (recompute seconds, bytes kept).
    std::size_t most = 0;
    for (std::size_t k = 1; k < ctx.kinds; ++k)
        if (layers[k] > layers[most]) most = k;
    const LayerCost& none = ctx.cost(most * ctx.classes);
    out.layers = layers[most], out.layerStatic = a[most], out.layerWeightGrad = g[most];
    out.others = double(ctx.placed) - layers[most];
    out.layerSeconds = none.forward + none.backwardInput + none.backwardWeight + none.recompute;
    std::vector<std::pair<double, double>> points;
    for (std::size_t c = 0; c < ctx.classes; ++c) {
        const LayerCost& lc = ctx.cost(most * ctx.classes + c);
        points.emplace_back(planned ? std::max(0.0, lc.recompute - none.recompute) : 0.0, lc.kept);
    }
    std::sort(points.begin(), points.end());
    out.hull.clear();
    for (const auto& q : points) {
        if (!out.hull.empty() && q.second >= out.hull.back().second) continue;  // no faster, no lighter
        while (out.hull.size() >= 2) {  // drop the last point while it lies on or above the chord to q
            const auto &o = out.hull[out.hull.size() - 2], &r = out.hull.back();
            if ((r.second - o.second) * (q.first - o.first) < (q.second - o.second) * (r.first - o.first)) break;
            out.hull.pop_back();
        }
        out.hull.push_back(q);
    }
    std::size_t heavy = 0;
    for (std::size_t k = 1; k < ctx.kinds; ++k)
        if (layers[k] * (a[k] + b[k] + g[k]) > layers[heavy] * (a[heavy] + b[heavy] + g[heavy])) heavy = k;
    // Each stage empty, as evaluate() holds it (the embedding's and output's saved inputs in).
    double sumW = 0, sumWc = 0;
    std::vector<double> w(static_cast<std::size_t>(p)), held(static_cast<std::size_t>(p)), waiting(static_cast<std::size_t>(p));
    for (std::int64_t s = 0; s < p; ++s) {
        std::int64_t least = std::numeric_limits<std::int64_t>::max();
        for (std::int64_t c = 0; c < v; ++c) least = std::min(least, inFlightChunkForwards(shape, int(s), int(c)));
        held[std::size_t(s)] = double(least);
        waiting[std::size_t(s)] = double(waitingWeightGrads(shape, int(s)));
    }
    auto perLayer = [&](std::size_t k, std::int64_t s) {
        return a[k] + held[std::size_t(s)] * b[k] + waiting[std::size_t(s)] * g[k];
    };
    for (std::int64_t s = 0; s < p; ++s) {
        const detail::StageBody& e = s == 0 ? first : s == p - 1 ? last : base;
        const std::size_t which = s == 0 ? 0 : s == p - 1 ? 2 : 1;
        const double c = double(e.memory.total()) + (held[std::size_t(s)] >= 1 ? extra[which] : out.layerTransient[which]) +
                         double(inFlightChunkForwards(shape, int(s), 0)) * e.embeddingKept +
                         double(inFlightChunkForwards(shape, int(s), int(v - 1))) * e.outputKept;
        const double per = perLayer(heavy, s);
        w[std::size_t(s)] = per > 0 ? 1 / per : 1;
        sumW += w[std::size_t(s)], sumWc += w[std::size_t(s)] * c;
    }
    double layersTerm = 0;
    for (std::size_t k = 0; k < ctx.kinds; ++k) {
        if (layers[k] == 0) continue;
        double least = std::numeric_limits<double>::infinity();
        for (std::int64_t s = 0; s < p; ++s)
            least = std::min(least, w[std::size_t(s)] * perLayer(k, s));
        layersTerm += layers[k] * least;
    }
    return (sumWc + layersTerm) / sumW;
}

}  // namespace

bool PlanBound::fitsUnder(Bytes memory, double step) const {
    if (layers <= 0 || coef <= 0 || hull.empty() || !std::isfinite(step)) return true;
    // Generous by the bounds' own roundings, so that a plan at the edge is never ruled out.
    const double cap = (step * (1 + 1e-9) / (1 - 1e-9) - tail - base) / coef;  // the slowest stage, at most
    const double most = (double(memory) + 32) / (1 - 1e-12);
    const int p = shape.stages, v = shape.chunks;
    const double t = layerSeconds;
    double placed = 0, short_ = 0;  // short_: stages that take fewer than a layer a chunk of the kind
    for (int s = 0; s < p; ++s) {
        const std::size_t which = s == 0 ? 0 : s == p - 1 ? 2 : 1;
        const double tau = cap - emptySeconds[which];
        const double room = most - emptyMemory[which] - layerTransient[which] - double(inFlightChunkForwards(shape, s, 0)) * embeddingKept[which] -
                            double(inFlightChunkForwards(shape, s, v - 1)) * outputKept[which];
        if (tau < 0 || room < 0) return false;  // the stage alone, empty, is too slow or too heavy
        std::int64_t least = std::numeric_limits<std::int64_t>::max();
        for (int c = 0; c < v; ++c) least = std::min(least, inFlightChunkForwards(shape, s, c));
        const double i = double(least);
        const double a = layerStatic + double(waitingWeightGrads(shape, s)) * layerWeightGrad;  // what a layer holds whatever its option
        // The most layers the stage holds at a mix (r, k) of options: by time tau / (t + r),
        // by memory room / (a + i·k). Along the hull from the fastest mix to the lightest
        // the first falls and the second rises: the most is where they cross.
        auto byTime = [&](double r) { return t + r > 0 ? tau / (t + r) : std::numeric_limits<double>::infinity(); };
        auto byMemory = [&](double k) { return a + i * k > 0 ? room / (a + i * k) : std::numeric_limits<double>::infinity(); };
        double n = byMemory(hull.back().second);  // short of memory even at the lightest
        if (byMemory(hull.front().second) >= byTime(hull.front().first)) n = byTime(hull.front().first);
        else
            for (std::size_t j = 0; j + 1 < hull.size(); ++j) {
                const auto [r0, k0] = hull[j];
                const auto [r1, k1] = hull[j + 1];
                if (byMemory(k1) < byTime(r1)) continue;
                // tau·(a + i·(k0 + l·dk)) = room·(t + r0 + l·dr); the larger side, to be generous
                const double dr = r1 - r0, dk = k1 - k0, den = room * dr - tau * i * dk;
                const double l = den > 0 ? std::clamp((tau * (a + i * k0) - room * (t + r0)) / den, 0.0, 1.0) : 1.0;
                n = std::max(byTime(r0 + l * dr), byMemory(k0 + l * dk));
                break;
            }
        n = std::floor(n + 1e-9);  // whole layers: a mix holding N of them is a mix of N
        if (n < v) short_ += v - std::max(0.0, n);
        placed += n;
    }
    return placed >= layers && short_ <= others;
}

PlanBound planLowerBound(const CostInput& in, const PlanRequest& request) {
    thread_local CostInput work;  // per thread: its vectors keep their storage (planner.cpp)
    work = in;  // the layers at their fastest: NONE (class 0) when the plan chooses, else as stated
    if (request.recompute) {
        // NONE for the times, FULL (last) for the least a layer keeps (it keeps only the
        // layer's input, which every option keeps: the test holds the bound under every
        // plan), and the options between for what recompute buys (fitsUnder).
        work.strategy.classes.assign(1, RecomputeClass{});
        if (work.model.kinds.size() * kPlanOptions <= detail::kMaxPairs)
            for (PlanOption o : {PlanOption::Slct, PlanOption::Comm, PlanOption::Both})
                work.strategy.classes.push_back(planOptionClass(o, request.selectiveKeep));
        work.strategy.classes.push_back(planOptionClass(PlanOption::Full, request.selectiveKeep));
        work.strategy.layerClass.clear();
    }
    work.strategy.partition.clear();
    const Strategy& st = work.strategy;
    const std::int64_t p = st.pp, v = st.vpp;
    detail::StageContext ctx(work, request.layerCosts);

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
    PlanBound out;
    auto add = [&](const detail::StageBody& b, double times, std::size_t which) {
        const double f = b.time.forward - b.coverableForward;
        const double x = b.time.perMicroBatch() - b.coverableForward - b.coverableBackward;
        out.emptySeconds[which] = x, out.emptyMemory[which] = double(b.memory.total());
        out.embeddingKept[which] = b.embeddingKept, out.outputKept[which] = b.outputKept;
        sumF += times * f, sumB += times * (x - f);
        maxF = std::max(maxF, f), maxB = std::max(maxB, x - f), maxX = std::max(maxX, x);
        const double tail = leastTail(work.run, b);
        sumTail += times * tail, maxTail = std::max(maxTail, tail);
        const Bytes total = b.memory.total();
        sumMemory += times * double(total), maxMemory = std::max(maxMemory, total);
    };
    const detail::StageBody first = detail::stageBody(ctx, 0, none);
    add(first, 1, 0);
    if (p > 2) {
        midEmpty = detail::stageBody(ctx, 1, none);
        add(midEmpty, double(p - 2), 1);
    }
    const detail::StageBody last = p > 1 ? detail::stageBody(ctx, p - 1, none) : first;
    if (p > 1) add(last, 1, 2);
    const detail::StageBody& base = p > 2 ? midEmpty : first;
    const detail::StageBody full = detail::stageBody(ctx, mid, all);
    // The linear parts the layers add: their static memory and their optimizer step.
    sumMemory += linearMemory(full) - linearMemory(base);
    sumTail += std::max(0.0, full.time.optimizer - base.time.optimizer);

    const double P = double(p);
    const double sumX = sumF + sumB;
    maxX = std::max(maxX, sumX / P);
    maxF = std::max(maxF, sumF / P), maxB = std::max(maxB, sumB / P);
    maxTail = std::max(maxTail, sumTail / P);
    const PipelineShape shape{st.schedule, int(p), int(v), int(st.mbn)};
    const double meanMemory = sumMemory / P;
    const double heldMemory = heldBound(ctx, shape, first, base, last, request.recompute, out);
    // A hair under, for the rounding of sums taken in another order than evaluate()'s.
    // zb-h1's drain per hop is at least a stage's forward (Y = max(F + B − min(B, W), B) ≥ F),
    // and with fewer micro-batches than stages (p − 1)·max(F + B) − (m − 1)·min fill ≥ (p − 1)·max F.
    const double makespan = st.schedule == Schedule::ZbH1 && p > 1 ? double(st.mbn) * maxX + double(p - 1) * maxF
                                                                   : pipelineMakespan(shape, sumX, maxX, sumF, maxF, sumB, maxB);
    out.stepSeconds = (makespan + maxTail) * (1 - 1e-9);
    // The makespan as base + coef·(the slowest stage), for fitsUnder: 1f1b, and gpipe
    // (max F + max B >= max X); interleaved m·X + (sumX − X)/v; zb-h1 m·X + (p − 1)·max F.
    const double m = double(st.mbn);
    out.shape = shape, out.tail = maxTail;
    out.base = sumX, out.coef = m - 1;
    if (p == 1) out.base = 0, out.coef = m;
    else if (st.schedule == Schedule::Interleaved) out.base = sumX / double(v), out.coef = m - 1 / double(v);
    else if (st.schedule == Schedule::ZbH1) out.base = double(p - 1) * maxF, out.coef = m;
    // Less 32 bytes: each of the four static terms and the working set is rounded up once per stage.
    const Bytes peak = std::max(maxMemory, Bytes(std::max(meanMemory, heldMemory) * (1 - 1e-12)));
    out.peakMemory = peak > 32 ? peak - 32 : 0;
    return out;
}

}  // namespace tessera::core
