// The slower choices of a stage problem that hide more of its gradient reduction
// (StageSolver::enableFronts). A choice acts on the step through the recompute it adds:
// the stage's time per micro-batch grows with it, and the reduction that runs under the
// stage's last backward shows less of itself, down to its last bucket. Where the stage
// weighs less than one in the step, a slower choice can then price a faster step, so
// the planner walks every choice that exposes less than the one before it.
#include <algorithm>
#include <limits>

#include "plan/labels.h"
#include "plan/stagecost.h"

namespace tessera::core::plan {

using detail::wholeBytes;

namespace {

// One type of the stage: its layers on each chunk, the chunks from the fewest
// micro-batches in flight, and its options, the most recompute first (the walk's order)
// and the most kept first (the order they fill the chunks in).
struct Item {
    std::size_t type = 0;
    std::int32_t n = 0;
    double leastKept = 0;  // its layers all at the option keeping least, over their chunks' weights
    std::size_t options[kMaxTypeOptions], byKept[kMaxTypeOptions];
    std::size_t count = 0;
    std::vector<std::pair<double, std::int64_t>> chunks;  // (micro-batches in flight, chunk), ascending
};

// What `it` keeps with `counts[o]` of its layers at each option o: the options keeping
// most on the chunks holding fewest micro-batches in flight, which keeps least of any
// placement (each layer's cost is its chunk's weight times its option's bytes, a product,
// so the greedy placement is optimal by the rearrangement inequality). With `out`, each
// chunk's counts there too, at [(chunk · types + type) · options + option].
double placeLeast(const Item& it, const std::vector<OptionCost>& opts, const std::int32_t* counts,
                  const std::vector<std::int32_t>& layersOn, std::size_t types, std::int32_t* out) {
    double kept = 0;
    std::size_t k = 0;
    std::int32_t left = it.count ? counts[it.byKept[0]] : 0;
    for (const auto& [weight, chunk] : it.chunks) {
        std::int32_t need = layersOn[std::size_t(chunk)];
        while (need > 0) {
            while (left == 0) left = counts[it.byKept[++k]];
            const std::int32_t take = std::min(need, left);
            kept += weight * take * opts[it.byKept[k]].kept;
            if (out) out[(std::size_t(chunk) * types + it.type) * kMaxTypeOptions + it.byKept[k]] = take;
            need -= take, left -= take;
        }
    }
    return kept;
}

}  // namespace

double StageSolver::hidingRecompute(const Frame& f, const StageChoice& fastest) const {
    const RunSettings& run = m_work.run;
    const double pieces = std::max(1.0, f.reduceBuckets);
    if (!run.overlappedGradReduce || pieces == 1 || f.reduceSeconds <= 0) return -1;
    // What of the reduction the fastest choice leaves exposed, against its last bucket,
    // which no backward hides.
    const double exposed = fastest.tail - f.gatherExposed - f.optimizer;
    if (exposed <= f.reduceSeconds / pieces * (1 + 1e-12)) return -1;
    // The reduction hides all it can once the backward it runs under is as long as it
    // (detail::exposedPipelined). Recompute lengthens that backward one for one, less what
    // it hides of an offloaded copy's or FSDP's exposure (at most those exposures): past
    // `hidden` seconds of recompute no choice exposes less.
    const double fsdpMost = f.fsdpMoves > 0 ? detail::exposedPipelined(f.fsdpMoves, f.fsdpPieces, f.fsdpCover) : 0.0;
    return f.reduceSeconds - f.lastBackward + fsdpMost + std::max(0.0, f.offloadCopy - f.offloadBackWindow);
}

template <class Leaf>
bool StageSolver::walkLeaves(const Problem& problem, Leaf&& leaf) const {
    const Frame& f = *problem.frame;
    const StageChoice& fastest = m_choices[problem.fastest];
    const std::int64_t stage = problem.stage;
    const std::int32_t* typeCounts = m_typeCounts.data() + problem.typeCountsAt;
    const double hidden = hidingRecompute(f, fastest);
    if (hidden < 0) return false;

    // A choice's recompute depends only on how many layers of each type take each option,
    // and the lightest placement of those over the chunks is found directly (placeLeast):
    // so the walk is over types, not (chunk, type)s, which cut its leaves sevenfold in the
    // full DeepSeek-V3 search (most were one recompute placed otherwise).
    const std::size_t T = m_types.size();
    const std::int64_t v = m_chunks;
    thread_local std::vector<Item> items;
    thread_local std::vector<std::vector<std::int32_t>> layersOn;  // per item, its layers per chunk
    items.clear();
    double floorLevel = 0;
    for (std::size_t t = 0; t < T; ++t) {
        Item it;
        it.type = t;
        std::vector<std::int32_t> on(std::size_t(v), 0);
        for (std::int64_t c = 0; c < v; ++c) {
            const std::int32_t n = typeCounts[std::size_t(c) * T + t];
            if (n == 0) continue;
            on[std::size_t(c)] = n, it.n += n;
            it.chunks.emplace_back(double(inFlightChunkForwards(m_shape, int(stage), int(c))), c);
        }
        if (it.n == 0) continue;
        std::sort(it.chunks.begin(), it.chunks.end());
        const std::vector<OptionCost>& opts = m_types[t].options;
        double leastKept = std::numeric_limits<double>::infinity(), leastWorking = leastKept;
        for (std::size_t o = 0; o < opts.size() && o < kMaxTypeOptions; ++o) {
            it.options[it.count] = it.byKept[it.count] = o, ++it.count;
            leastKept = std::min(leastKept, opts[o].kept);
            leastWorking = std::min(leastWorking, opts[o].working);
        }
        for (std::size_t i = 1; i < it.count; ++i)  // the most recompute first, and the most kept (insertion sorts: five at most)
            for (std::size_t j = i; j > 0; --j) {
                if (opts[it.options[j]].recompute > opts[it.options[j - 1]].recompute) std::swap(it.options[j], it.options[j - 1]);
                if (opts[it.byKept[j]].kept > opts[it.byKept[j - 1]].kept) std::swap(it.byKept[j], it.byKept[j - 1]);
            }
        for (const auto& [weight, chunk] : it.chunks) it.leastKept += weight * on[std::size_t(chunk)] * leastKept;
        floorLevel = std::max(floorLevel, leastWorking);
        if (layersOn.size() <= items.size()) layersOn.resize(items.size() + 1);
        layersOn[items.size()] = std::move(on);
        items.push_back(std::move(it));
    }
    if (items.empty()) return false;
    const double head = headKept(stage, f);
    // No choice keeps more than this and fits (its working set at least the floor's).
    const double cap = double(m_budget) - double(f.fixed) - double(wholeBytes(floorLevel + f.workingRest));
    thread_local std::vector<double> leastFrom;
    leastFrom.assign(items.size() + 1, 0);
    for (std::size_t i = items.size(); i-- > 0;) leastFrom[i] = leastFrom[i + 1] + items[i].leastKept;
    if (head + leastFrom[0] > cap) return false;

    // Every count of each option per type that fits and recomputes more than the fastest,
    // cut where it recomputes more than a choice already found that hides all it can, and
    // past the most the problem walks (Problem::most).
    thread_local std::vector<std::int32_t> counts;  // per (type, option)
    counts.assign(T * kMaxTypeOptions, 0);
    // A leaf's counts per (chunk, type, option), for the caller that asks.
    auto place = [&](std::vector<std::int32_t>& out) {
        out.assign(std::size_t(v) * T * kMaxTypeOptions, 0);
        for (std::size_t i = 0; i < items.size(); ++i)
            placeLeast(items[i], m_types[items[i].type].options, counts.data() + items[i].type * kMaxTypeOptions, layersOn[i], T,
                       out.data());
    };
    double bestHidden = std::numeric_limits<double>::infinity();
    std::uint32_t leaves = 0;
    auto walk = [&](auto& self, std::size_t i, std::size_t q, std::int32_t left, double kept, double rec, double level) -> void {
        if (rec > bestHidden || rec > problem.most) return;
        if (i == items.size()) {
            if (rec <= fastest.recompute * (1 + 1e-12)) return;  // no slower than the fastest: it is one of them
            const Bytes peak = f.fixed + wholeBytes(kept) + wholeBytes(level + f.workingRest);
            if (peak > m_budget) return;
            if (rec >= hidden) bestHidden = std::min(bestHidden, rec);
            return leaf(rec, peak, leaves++, bestHidden, place);
        }
        const Item& it = items[i];
        if (q == 0 && kept + it.leastKept + leastFrom[i + 1] > cap) return;
        const std::vector<OptionCost>& opts = m_types[it.type].options;
        const OptionCost& o = opts[it.options[q]];
        std::int32_t* mine = counts.data() + it.type * kMaxTypeOptions;
        std::int32_t& slot = mine[it.options[q]];
        const std::int32_t least = q + 1 == it.count ? left : 0;  // the last option takes what is left
        for (std::int32_t c = left; c >= least; --c) {
            slot = c;
            const double recNext = rec + c * o.recompute;
            const double levelNext = c > 0 ? std::max(level, o.working) : level;
            if (q + 1 < it.count) {
                self(self, i, q + 1, left - c, kept, recNext, levelNext);
                continue;
            }
            const double keptNext = kept + placeLeast(it, opts, mine, layersOn[i], T, nullptr);
            if (keptNext + leastFrom[i + 1] > cap) continue;
            self(self, i + 1, 0, i + 1 < items.size() ? items[i + 1].n : 0, keptNext, recNext, levelNext);
        }
        slot = 0;
    };
    walk(walk, 0, 0, items[0].n, head, 0.0, 0.0);
    return true;
}

void StageSolver::prepare(Problem& problem) {
    problem.prepared = true;
    // A micro-batch takes f.perMicroBatch + rec less what the recompute hides of FSDP's
    // exposure (at most all of it): past the caller's longest, no more recompute.
    const Frame& f = *problem.frame;
    const double fsdpAll = f.fsdpMoves > 0 ? detail::exposedPipelined(f.fsdpMoves, f.fsdpPieces, f.fsdpCover) : 0.0;
    problem.most = m_maxPerMicroBatch - f.perMicroBatch + fsdpAll + std::max(0.0, f.offloadCopy - f.offloadBackWindow);
    thread_local std::vector<SlowerLeaf> found;
    found.clear();
    double bestHidden = std::numeric_limits<double>::infinity();
    walkLeaves(problem, [&](double rec, Bytes peak, std::uint32_t at, double hiddenAt, auto&&) {
        found.push_back({rec, peak, at});
        bestHidden = hiddenAt;  // it only falls: the last leaf's is the walk's
    });
    // Past the least recompute that hides all it can, no choice exposes less. Per
    // recompute the lightest (then the first found); each kept when it exposes less than
    // the one before it. The walk takes nearly all of them in order, so all are sorted.
    std::erase_if(found, [&](const SlowerLeaf& x) { return x.recompute > bestHidden; });
    std::sort(found.begin(), found.end(), [](const SlowerLeaf& a, const SlowerLeaf& b) {
        if (a.recompute != b.recompute) return a.recompute < b.recompute;
        return a.peak != b.peak ? a.peak < b.peak : a.at < b.at;
    });
    const StageChoice& fastest = m_choices[problem.fastest];
    double tail = fastest.tail, last = -1;
    for (const SlowerLeaf& x : found) {
        if (x.recompute == last) continue;
        last = x.recompute;
        StageChoice c;
        finish(f, x.recompute, c);
        if (!(c.tail < tail)) continue;
        if (problem.slower.size() == kMaxSlowerChoices) {  // a label names its choice in 16 bits
            m_frontsCut = true;
            break;
        }
        tail = c.tail;
        c.peak = x.peak;
        c.lightest = fastest.lightest;
        c.problem = fastest.problem, c.leaf = x.at;
        c.self = std::uint32_t(m_choices.size());
        m_choices.push_back(c);
        problem.slower.push_back(c.self);
    }
}

const StageChoice* StageSolver::after(const StageChoice& c, std::uint32_t more) {
    if (c.problem == StageChoice::kNone || c.leaf != StageChoice::kNone || more == 0) return nullptr;
    Problem& problem = m_problemsPending[c.problem];
    if (!problem.prepared) prepare(problem);
    return more <= problem.slower.size() ? &m_choices[problem.slower[more - 1]] : nullptr;
}

const std::int32_t* StageSolver::counts(const StageChoice& c) {
    if (c.leaf == StageChoice::kNone) return m_counts.data() + c.countsAt;
    // A slower choice: its leaf again, the walk run as when the problem was prepared.
    const Problem& problem = m_problemsPending[c.problem];
    walkLeaves(problem, [&](double, Bytes, std::uint32_t at, double, auto&& place) {
        if (at == c.leaf) place(m_leafCounts);
    });
    return m_leafCounts.data();
}

}  // namespace tessera::core::plan
