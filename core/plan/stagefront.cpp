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

// One (chunk, type) of the stage: its layers, the micro-batches its chunk holds in
// flight, and its type's options, the most recompute first.
struct Item {
    std::size_t slot = 0;
    std::int32_t n = 0;
    double weight = 0, leastKept = 0;
    std::size_t options[kMaxTypeOptions];
    std::size_t count = 0;
};

struct Found {
    double recompute;
    Bytes peak;
    std::uint32_t at;  // its leaf, in the walk's order
};

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

void StageSolver::slowerChoices(std::int64_t stage, const Frame& f, const std::int32_t* typeCounts, const StageChoice& fastest,
                                double fastestRecompute, std::vector<StageChoice>& out, std::vector<std::int32_t>& store) const {
    const double hidden = hidingRecompute(f, fastest);
    if (hidden < 0) return;
    // A micro-batch takes f.perMicroBatch + rec less what the recompute hides of FSDP's
    // exposure (at most all of it): past the caller's longest, no more recompute.
    const double fsdpAll = f.fsdpMoves > 0 ? detail::exposedPipelined(f.fsdpMoves, f.fsdpPieces, f.fsdpCover) : 0.0;
    const double most = m_maxPerMicroBatch - f.perMicroBatch + fsdpAll + std::max(0.0, f.offloadCopy - f.offloadBackWindow);

    const std::size_t T = m_types.size();
    const std::int64_t v = m_chunks;
    std::vector<Item> items;
    double floorLevel = 0;
    for (std::int64_t c = 0; c < v; ++c)
        for (std::size_t t = 0; t < T; ++t) {
            Item it;
            it.n = typeCounts[std::size_t(c) * T + t];
            if (it.n == 0) continue;
            it.slot = std::size_t(c) * T + t;
            it.weight = double(inFlightChunkForwards(m_shape, int(stage), int(c)));
            const std::vector<OptionCost>& opts = m_types[t].options;
            it.leastKept = std::numeric_limits<double>::infinity();
            double leastWorking = std::numeric_limits<double>::infinity();
            for (std::size_t o = 0; o < opts.size() && o < kMaxTypeOptions; ++o) {
                it.options[it.count++] = o;
                it.leastKept = std::min(it.leastKept, opts[o].kept);
                leastWorking = std::min(leastWorking, opts[o].working);
            }
            for (std::size_t i = 1; i < it.count; ++i)  // the most recompute first (an insertion sort: five at most)
                for (std::size_t j = i; j > 0 && opts[it.options[j]].recompute > opts[it.options[j - 1]].recompute; --j)
                    std::swap(it.options[j], it.options[j - 1]);
            floorLevel = std::max(floorLevel, leastWorking);
            items.push_back(it);
        }
    if (items.empty()) return;
    const double head = headKept(stage, f);
    // No choice keeps more than this and fits (its working set at least the floor's).
    const double cap = double(m_budget) - double(f.fixed) - double(wholeBytes(floorLevel + f.workingRest));
    std::vector<double> leastFrom(items.size() + 1, 0);
    for (std::size_t i = items.size(); i-- > 0;)
        leastFrom[i] = leastFrom[i + 1] + items[i].weight * items[i].n * items[i].leastKept;
    if (head + leastFrom[0] > cap) return;

    // Every count of each option per item that fits and recomputes more than the fastest,
    // cut where it recomputes more than a choice already found that hides all it can. The
    // walk runs twice, alike: first for each leaf's recompute and peak, then for the
    // counts of only the leaves kept (copying every leaf's counts cost more than the rest).
    const std::size_t width = std::size_t(v) * T * kMaxTypeOptions;
    std::vector<std::int32_t> counts(width, 0);
    thread_local std::vector<Found> found;
    found.clear();
    double bestHidden;
    std::uint32_t leaves;
    auto walk = [&](auto& self, auto& leaf, std::size_t i, std::size_t q, std::int32_t left, double kept, double rec,
                    double level) -> void {
        if (rec > bestHidden || rec > most) return;
        if (i == items.size()) {
            if (rec <= fastestRecompute * (1 + 1e-12)) return;  // no slower than the fastest: it is one of them
            const Bytes peak = f.fixed + wholeBytes(kept) + wholeBytes(level + f.workingRest);
            if (peak > m_budget) return;
            if (rec >= hidden) bestHidden = std::min(bestHidden, rec);
            return leaf(rec, peak, leaves++);
        }
        const Item& it = items[i];
        if (kept + it.weight * left * it.leastKept + leastFrom[i + 1] > cap) return;
        const OptionCost& o = m_types[it.slot % T].options[it.options[q]];
        std::int32_t& slot = counts[it.slot * kMaxTypeOptions + it.options[q]];
        const std::int32_t least = q + 1 == it.count ? left : 0;  // the last option takes what is left
        for (std::int32_t c = left; c >= least; --c) {
            slot = c;
            const double keptNext = kept + it.weight * c * o.kept, recNext = rec + c * o.recompute;
            const double levelNext = c > 0 ? std::max(level, o.working) : level;
            if (q + 1 == it.count) self(self, leaf, i + 1, 0, i + 1 < items.size() ? items[i + 1].n : 0, keptNext, recNext, levelNext);
            else self(self, leaf, i, q + 1, left - c, keptNext, recNext, levelNext);
        }
        slot = 0;
    };
    auto walkAll = [&](auto&& leaf) {
        bestHidden = std::numeric_limits<double>::infinity(), leaves = 0;
        walk(walk, leaf, 0, 0, items[0].n, head, 0.0, 0.0);
    };
    walkAll([&](double rec, Bytes peak, std::uint32_t at) { found.push_back({rec, peak, at}); });

    // Per recompute the lightest; each kept when it exposes less than the one before it.
    std::erase_if(found, [&](const Found& x) { return x.recompute > bestHidden; });
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        return a.recompute != b.recompute ? a.recompute < b.recompute : a.peak < b.peak;
    });
    thread_local std::vector<std::pair<std::uint32_t, std::uint32_t>> wanted;  // (leaf, its choice's counts in the store)
    wanted.clear();
    double tail = fastest.tail, last = -1;
    for (const Found& x : found) {
        if (x.recompute == last) continue;
        last = x.recompute;
        StageChoice c;
        finish(f, x.recompute, c);
        if (!(c.tail < tail)) continue;
        if (out.size() == kMaxSlowerChoices) {  // a label names its choice in 16 bits
            m_frontsCut = true;
            break;
        }
        tail = c.tail;
        c.peak = x.peak;
        c.lightest = fastest.lightest;
        c.countsAt = std::uint32_t(store.size() + wanted.size() * width);
        wanted.emplace_back(x.at, c.countsAt);
        out.push_back(c);
    }
    if (wanted.empty()) return;
    std::sort(wanted.begin(), wanted.end());
    store.resize(store.size() + wanted.size() * width);
    std::size_t next = 0;
    walkAll([&](double, Bytes, std::uint32_t at) {
        if (next < wanted.size() && wanted[next].first == at)
            std::copy(counts.begin(), counts.end(), store.begin() + std::ptrdiff_t(wanted[next++].second));
    });
}

}  // namespace tessera::core::plan
