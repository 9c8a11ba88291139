#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/estimate.h"
#include "model/layercost.h"
#include "plan/labels.h"
#include "plan/layertypes.h"
#include "plan/lightest.h"
#include "plan/rounds.h"
#include "plan/stagecost.h"

namespace tessera::core {

using plan::Label;
using plan::LayerType;
using plan::StageChoice;
using plan::StageSolver;

namespace {

// The most (stage, running total, index) cells the partition's walks may visit, over
// every walk (plan/rounds.h), before the stated partition is kept. DeepSeek-V3 at pp 16,
// vpp 2 walks once over 5,040 (anchored); 128 layers whose dense ones reach the later
// rounds, at pp 16 and vpp 3, would walk 51 histograms over 3.3 million (tst_plan).
constexpr std::uint64_t kMaxWalkCells = 2'000'000;

}  // namespace

Plan planStrategy(const CostInput& in, const PlanRequest& request, Bytes budget) {
    Plan out;
    out.budget = budget > 0 ? budget : in.run.memoryBudget;
    const Strategy& st = in.strategy;
    const ModelShape& m = in.model;
    const std::int64_t p = st.pp, v = st.vpp;
    const std::int64_t placed = m.bodyLayers + (st.mtpOnStages ? m.mtpLayers : 0);
    const std::int64_t extraLast = st.mtpOnStages ? 0 : m.mtpLayers;  // MTP after the last chunk
    const std::size_t layers = m.layerKind.size();
    const bool offloading = in.run.activationOffload > 0 ||
                            std::any_of(st.activationOffload.begin(), st.activationOffload.end(), [](std::int64_t k) { return k > 0; });
    // Offload as the plan's choice: where the seed offers it (1F1B, one chunk, recompute
    // chosen) and the device has a host link to copy over.
    std::string noOffload;
    if (request.offload) {
        if (in.device.hostLinkBytesPerSecond <= 0) noOffload = "the device states no host_link_gbps";
        else if (v > 1 || st.schedule != Schedule::OneFOneB) noOffload = "offload is planned under 1f1b with one chunk per stage";
        else if (!request.recompute) noOffload = "offload is planned with the recompute of every layer";
    }
    const bool planOffload = request.offload && noOffload.empty();
    // The planner's stage model is one stage per device with 1F1B-family in-flight
    // counts (zb-h1's held-back weight gradients on top) and a closed-form step; the
    // schedules priced by simulation (DualPipe's mirrored stage pairs, the V shapes,
    // zb-h2) are priced by estimate but not balanced here.
    if (!plannerBalances(st.schedule)) {
        out.why = std::string("the planner balances gpipe, 1f1b, interleaved and zb-h1 stages, not ") + scheduleName(st.schedule) +
                  " (estimate prices it as stated): state pp_schedule: 1f1b to plan the partition and recompute";
        return out;
    }
    // With fewer micro-batches than stages zb-h1's drain is filled by the least weight
    // gradient, which more recompute on another stage can lengthen: the closed form
    // would reward a slower stage, and the planner does not chase that.
    if (st.schedule == Schedule::ZbH1 && p > 1 && st.mbn < p) {
        out.why = "the planner balances zb-h1 with at least pp micro-batches a step (here " + std::to_string(st.mbn) + " for pp " +
                  std::to_string(p) + "; estimate prices it as stated)";
        return out;
    }
    if (pairsExpertComm(in)) {
        out.why = "the planner balances stages run one op at a time, not the F&B pairs of overlap_moe_expert_parallel_comm "
                  "(estimate prices them as stated): state overlap_moe_expert_parallel_comm: false to plan";
        return out;
    }
    if (offloading && !planOffload) {
        out.why = "activation offload is stated, and the planner plans around it only when it chooses it (tessera plan "
                  "--offload" + (noOffload.empty() ? std::string() : "; here " + noOffload) +
                  "): state activation_offload: 0 to plan without it";
        return out;
    }
    if (request.offload && !planOffload) out.note = "offload not planned: " + noOffload;
    if (placed > plan::kMaxPlacedLayers) {
        out.why = "more than " + std::to_string(plan::kMaxPlacedLayers) + " layers to place";
        return out;
    }
    if (placed < p * v) {
        out.why = std::to_string(placed) + " layers cannot fill pp·vpp = " + std::to_string(p * v) + " chunks";
        return out;
    }

    // Where recompute that only hides more of a stage's gradient reduction can price a
    // faster step, the stage problems keep their slower choices too (StageSolver::enableFronts).
    const bool fronts = request.recompute && request.hideReductions && !planOffload && in.run.overlappedGradReduce &&
                        ((st.schedule == Schedule::Interleaved && v > 1) || (st.schedule == Schedule::ZbH1 && p > 1));

    // The planner's classes: NONE first, then the options it may choose, or the strategy's own.
    // A per-thread copy, so that the vectors the model and strategy hold keep their
    // storage from one plan to the next (a search plans thousands of candidates of one model).
    thread_local CostInput work;
    work = in;
    const plan::PlanClasses planned = plan::planClasses(st, request);
    work.strategy.classes = planned.classes;
    work.strategy.layerClass.clear();
    work.strategy.partition.clear();
    if (planOffload) work.strategy.activationOffload.assign(std::size_t(p), 0), work.run.activationOffload = 0;
    const std::vector<RecomputeClass>& classes = work.strategy.classes;
    if (m.kinds.size() * classes.size() > detail::kMaxPairs) {
        out.why = "too many layer kinds and recompute classes to plan";
        return out;
    }

    // Layer types and what each option costs a layer of that type, from the stage bodies'
    // context, whose layer costs these are (the solver starts from it).
    detail::StageContext context(work, request.layerCosts);
    const plan::PlanTypes layerTypes = plan::planTypes(context, st, request, planned, fronts);
    const std::vector<LayerType>& types = layerTypes.types;
    const std::vector<std::uint8_t>& typeOf = layerTypes.typeOf;
    const std::vector<double>& baseTime = layerTypes.baseTime;
    const std::size_t T = types.size();
    std::vector<std::vector<std::int32_t>> prefix(T, std::vector<std::int32_t>(layers + 1, 0));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t l = 0; l < layers; ++l) prefix[t][l + 1] = prefix[t][l] + (typeOf[l] == t ? 1 : 0);

    StageSolver solver(work, context, types, out.budget, planOffload ? &typeOf : nullptr);
    if (fronts) solver.enableFronts();
    std::vector<std::int32_t> counts(std::size_t(v) * T);
    // The stage holding `ranges`: its counts per (chunk, type), then its choice.
    // With one chunk, a stage's problem is (stage, layers of each type): looked up in a
    // table indexed by the counts in mixed radix when it is small, else in the solver's memo.
    std::vector<std::size_t> radix(T, 1);
    std::size_t cells = std::size_t(p);
    for (std::size_t t = 0; t < T && v == 1; ++t) {
        radix[t] = cells / std::size_t(p);
        cells *= std::size_t(prefix[t][layers]) + 1;
        if (cells > (std::size_t(1) << 20)) break;
    }
    const bool direct = v == 1 && cells <= (std::size_t(1) << 20) && !planOffload;  // with offload the order counts too
    std::vector<const StageChoice*> byCounts(direct ? cells : 0, nullptr);
    const std::size_t perStage = direct ? cells / std::size_t(p) : 0;
    auto stageChoice = [&](std::int64_t s, const detail::StageRanges& r) -> const StageChoice& {
        std::size_t cell = std::size_t(s) * perStage;
        for (std::int64_t c = 0; c < v; ++c) {
            const std::int64_t a = r.start[std::size_t(c)];
            const std::int64_t b = a + r.count[std::size_t(c)] + (s == p - 1 && c == v - 1 ? extraLast : 0);
            for (std::size_t t = 0; t < T; ++t) {
                const std::int32_t n = prefix[t][std::size_t(b)] - prefix[t][std::size_t(a)];
                counts[std::size_t(c) * T + t] = n;
                cell += radix[t] * std::size_t(n);
            }
        }
        if (!direct) return solver.solve(s, r, counts.data());
        const StageChoice*& hit = byCounts[cell];
        if (!hit) hit = &solver.solve(s, r, counts.data());
        return *hit;
    };
    const PipelineShape shape{st.schedule, int(p), int(v), int(st.mbn)};
    const plan::StepForm form(shape);
    const bool gpipe = form.splitSums();
    auto extend = [&](const Label& from, const StageChoice& c) { return form.extend(from, c); };
    auto step = [&](const Label& x) { return form.step(x); };
    // Every stage's choice when a walk took other than the fastest (StageChoice::more).
    std::vector<std::int32_t> picks;
    // `from` extended by a stage's choice c, and by each slower one of c's while the one
    // before it still leaves a longer tail than `from`'s longest (past that a slower one
    // is no better: no shorter longest tail, no less time), each handed to `keep`.
    auto extendBy = [&](const Label& from, const StageChoice& c, std::int32_t total, std::int32_t label, double ceiling,
                        auto&& keep) {
        Label x = extend(from, c);
        x.from = std::int16_t(total), x.fromLabel = label, x.pick = 0;
        keep(x);
        double tail = c.tail;
        if (!fronts) return;
        for (std::uint32_t q = 1; tail > from.maxTail; ++q) {
            const StageChoice* next = solver.after(c, q);
            if (!next) break;
            const StageChoice& cq = *next;
            if (double(st.mbn) * cq.perMicroBatch > ceiling * (1 + 1e-12)) break;
            Label y = extend(from, cq);
            y.from = std::int16_t(total), y.fromLabel = label, y.pick = std::uint16_t(q);
            keep(y);
            tail = cq.tail;
        }
    };

    // The grid of layers per [chunk][stage] the plan ends with, and each stage's choice.
    std::vector<std::vector<std::int64_t>> grid(std::size_t(v), std::vector<std::int64_t>(std::size_t(p), 0));
    auto rangesOf = [&](std::int64_t s) {
        detail::StageRanges r;
        for (std::int64_t c = 0; c < v; ++c) {
            std::int64_t start = 0;
            for (std::int64_t i = 0; i < c * p + s; ++i) start += grid[std::size_t(i / p)][std::size_t(i % p)];
            r.start[std::size_t(c)] = start, r.count[std::size_t(c)] = grid[std::size_t(c)][std::size_t(s)];
        }
        return r;
    };
    // The partition is planned over stage totals, each stage's chunks even (planner.h).
    // Where a chunk sits matters once the layers are of several kinds and a stage has
    // several chunks: the walks over the stages then carry where the chunks are
    // (plan/rounds.h), and a space too large to walk in a plan's time is kept as stated.
    // Layers are alike to the walk when they are of one type: one kind, and with the
    // recompute kept, one stated option.
    const bool oneType = std::all_of(typeOf.begin(), typeOf.end(), [&](std::uint8_t t) { return t == typeOf.front(); });
    const bool splitTower = !st.visionBlocks.empty();
    std::vector<plan::Rounds> walks;
    // Where the run of one type that ends at the last layer but one begins (the front
    // before it): it holds every later round when it begins by the least F (plan/rounds.h).
    std::int64_t front = placed - 1;
    while (front > 0 && typeOf[std::size_t(front - 1)] == typeOf[std::size_t(placed - 2)]) --front;
    if (v == 1 || oneType) walks.emplace_back(p, v, placed);
    else if (front <= plan::Rounds::leastFloors(p, v, placed)) walks.push_back(plan::Rounds::anchored(p, v, placed, front));
    else
        for (auto& g : plan::Rounds::guesses(p, v, placed)) walks.emplace_back(p, v, placed, std::move(g));
    std::uint64_t walkCells = 0;
    for (const plan::Rounds& w : walks) walkCells += w.plain() ? 0 : w.cells();
    const bool tooLarge = request.partition && p > 1 && walkCells > kMaxWalkCells;
    const bool planPartition = request.partition && p > 1 && !splitTower && !tooLarge;
    auto addNote = [&](const std::string& why) { out.note = out.note.empty() ? why : out.note + "; " + why; };
    if (request.partition && splitTower)
        addNote("the partition is not planned with the vision tower split over stages (exec.vision_partition): "
                "the stated pp_partition is kept");
    if (tooLarge && !splitTower)
        addNote("the partition is not planned: under interleaving (vpp " + std::to_string(v) + ") with several layer kinds, "
                "where each stage's chunks sit takes " + std::to_string(walkCells) + " walk states to plan exactly, past the " +
                std::to_string(kMaxWalkCells) + " the planner takes on (plan/rounds.h); the stated pp_partition is kept");
    bool fits = true;
    if (!planPartition) {
        // The strategy's partition, or the even split (a remainder on the last chunks).
        const detail::StageContext ctx(work);
        for (std::int64_t c = 0; c < v; ++c)
            for (std::int64_t s = 0; s < p; ++s)
                grid[std::size_t(c)][std::size_t(s)] =
                    st.partition.empty() ? ctx.chunkLayers(c, s) : st.partition[std::size_t(c)][std::size_t(s)];
        for (std::int64_t s = 0; s < p; ++s) fits = fits && stageChoice(s, rangesOf(s)).fits;
        if (fronts && fits) {  // each stage's choice, over its slower ones too
            std::vector<Label> labels{Label{}}, cell;
            std::vector<std::int32_t> last{0};
            for (std::int64_t s = 0; s < p; ++s) {
                const StageChoice& c = stageChoice(s, rangesOf(s));
                cell.clear();
                for (std::int32_t k : last)
                    extendBy(labels[std::size_t(k)], c, -1, k, std::numeric_limits<double>::infinity(),
                             [&](Label& x) { form.insert(cell, x); });
                last.clear();
                for (const Label& x : cell) last.push_back(std::int32_t(labels.size())), labels.push_back(x);
            }
            std::int32_t best = last.front();
            for (std::int32_t k : last)
                if (step(labels[std::size_t(k)]) < step(labels[std::size_t(best)])) best = k;
            picks.assign(std::size_t(p), 0);
            for (std::int64_t s = p - 1; s >= 0; --s) {
                const Label& x = labels[std::size_t(best)];
                picks[std::size_t(s)] = x.pick, best = x.fromLabel;
            }
        }
    } else {
        // Labels per (stage, running total, residues' histogram), as one pool with each
        // cell's span. A lower bound on what a partial plan can still become: the layers
        // not yet placed at their plain time, nothing else. A complete plan's step bounds
        // the search: the even split's where it fits, else pass 0's, which keeps one label
        // per cell (the one whose bound is least). Pass 1 keeps every label not covered by
        // another and drops those whose bound already exceeds the plan in hand.
        std::vector<double> before(std::size_t(placed + 1), 0);  // layers [0, l) at their plain time
        for (std::int64_t l = 0; l < placed; ++l) before[std::size_t(l + 1)] = before[std::size_t(l)] + baseTime[m.layerKind[std::size_t(l)]];
        double total = before[std::size_t(placed)];
        for (std::int64_t l = placed; l < placed + extraLast; ++l) total += baseTime[m.layerKind[std::size_t(l)]];
        // The later stages' straggler holds at least its share of the later layers (by
        // count at the fastest kind's time, and by time).
        const double fastest = *std::min_element(baseTime.begin(), baseTime.end());
        auto laterFloor = [&](std::int64_t s, std::int64_t j, double rest) {
            if (s + 1 >= p) return 0.0;
            const std::int64_t later = p - 1 - s, left = placed - j;
            return std::max(double((left + later - 1) / later) * fastest, rest / double(later));
        };
        std::vector<Label> pool, cell;
        std::vector<std::pair<std::int32_t, std::int32_t>> span;
        std::vector<std::pair<std::int64_t, std::int64_t>> held;  // scratch: what the earlier stages hold
        std::vector<plan::Rounds::Series> series;                 // scratch: where a stage comes from
        // The stage of n layers after running total i and residues h, written in place (a
        // StageRanges is a kilobyte, and the programme asks this often).
        detail::StageRanges r;
        auto hold = [](detail::StageRanges& out, const plan::Rounds& rounds, std::int64_t i, std::size_t h,
                       std::int64_t n) -> const detail::StageRanges& {
            rounds.place(out, i, h, n);
            return out;
        };
        double ceiling = request.ceiling, asked = request.ceiling;  // asked: the caller's
        bool upper = false;  // a plan in hand: the even split fits
        // The even split, where it fits, bounds the search at once and pass 0 is not needed.
        {
            const detail::StageContext ctx(work);
            Label even;
            bool all = true;
            for (std::int64_t s = 0; s < p && all; ++s) {
                const StageChoice& c = stageChoice(s, detail::strategyRanges(ctx, s));
                all = c.fits;
                even = extend(even, c);
            }
            if (all) ceiling = std::min(ceiling, step(even)), upper = true;
            if (all && request.ceilingGiven) asked = std::min(asked, request.ceilingGiven(step(even)));
            ceiling = std::min(ceiling, asked);
        }
        if (ceiling == -std::numeric_limits<double>::infinity()) {  // the caller has no use for any plan
            out.bounded = true;
            out.why = "no plan is faster than the ceiling asked for";
            out.stageProblems = solver.problems();
            return out;
        }
        // The caller's caps by peak (PlanRequest::peakCaps): the cap a plan whose stages
        // reach `peak` already is held to. Within a millionth of the peak, against rounding.
        const std::vector<std::pair<Bytes, double>>& caps = request.peakCaps;
        auto capAt = [&](Bytes peak) {
            const Bytes at = peak - peak / (Bytes{1} << 20);
            auto it = std::upper_bound(caps.begin(), caps.end(), at, [](Bytes m, const auto& c) { return m < c.first; });
            return it == caps.begin() ? std::numeric_limits<double>::infinity() : std::prev(it)->second;
        };
        bool capped = false;  // a walk dropped a partial plan by the caps
        double bestStep = std::numeric_limits<double>::infinity();
        Bytes bestPeak = 0;
        std::vector<std::int64_t> totals;  // the best plan's layers per stage
        // One walk over the stages for residues `rounds`; whether any plan reached the end.
        auto walk = [&](const plan::Rounds& rounds, int pass) {
            const std::size_t hs = rounds.states(), cols = std::size_t(placed + 1) * hs;
            auto at = [&](std::int64_t s, std::int64_t j, std::size_t h) -> auto& {
                return span[std::size_t(s) * cols + std::size_t(j) * hs + h];
            };
            auto rest = [&](std::int64_t j, std::size_t h) {
                if (j == placed) return total - before[std::size_t(placed)];
                double done = 0;
                rounds.held(j, h, held);
                for (const auto& [a, b] : held) done += before[std::size_t(std::min(b, placed))] - before[std::size_t(std::min(a, placed))];
                return total - done;
            };
            pool.clear();
            span.assign(std::size_t(p) * cols, {0, 0});
            // Per index, the least and most running totals the stage before holds
            // partial plans at (so that a stage's totals are walked only where they extend one).
            std::vector<std::int64_t> lo(hs, 0), hi(hs, -1), nextLo(hs), nextHi(hs);
            for (std::int64_t s = 0; s < p; ++s) {
                // Every chunk holds a layer at least: a stage v layers, the later ones v each.
                const std::int64_t jFirst = s == p - 1 ? placed : (s + 1) * v, jLast = placed - (p - 1 - s) * v;
                std::fill(nextLo.begin(), nextLo.end(), placed + 1), std::fill(nextHi.begin(), nextHi.end(), -1);
                for (std::size_t h2 = s == p - 1 ? rounds.endFirst() : 0; h2 < hs; ++h2)
                    for (std::int64_t j = rounds.firstTotal(s, h2, jFirst), jEnd = rounds.lastTotal(h2, jLast); j <= jEnd;
                         j += rounds.totalStep(h2)) {
                        cell.clear();
                        double kept = 0;  // pass 0: the bound of the one label kept
                        const double left = rest(j, h2);
                        // The later stages' straggler takes at least this long, so a partial plan's
                        // own maximum below it no longer matters: raised to it, labels that differ
                        // only there merge (exact: the whole plan's maximum is the same).
                        const double floorX = gpipe ? 0.0 : laterFloor(s, j, left);
                        auto add = [&](Label& x) {
                            x.maxX = std::max(x.maxX, floorX);
                            const double b = form.step(x, left);
                            if (b > ceiling * (1 + 1e-12)) return;
                            if (!caps.empty() && b > capAt(x.peak) * (1 + 1e-12)) {
                                capped = true;
                                return;
                            }
                            if (pass == 1) return form.insert(cell, x);
                            if (cell.empty() || b < kept) cell.assign(1, x), kept = b;
                        };
                        // Where this stage comes from, then its total from the least upwards: along
                        // a series a stage holding more layers holds those of fewer and more.
                        if (s == 0) series.assign(1, {rounds.initial(), j, 1});
                        else rounds.series(j, h2, series);
                        for (const plan::Rounds::Series& from : series) {
                            const std::size_t h = from.from;
                            if (s == 0 && rounds.after(0, h, j) != h2) continue;
                            // From the least total that reaches a partial plan to the most.
                            const std::int64_t nFrom = s == 0 ? j : std::max(from.first, from.first + (j - hi[h] - from.first + from.step - 1) / from.step * from.step);
                            for (std::int64_t n = nFrom; s == 0 ? n == j : j - n >= std::max(s * v, lo[h]); n += from.step) {
                                const std::int64_t i = j - n;
                                // A stage takes at least its layers' plain time (n of the fastest layer's,
                                // or with one chunk [i, j)'s), and the step at least m times that: past
                                // the plan in hand, no need to ask (nor for more layers).
                                const double plain = v == 1 ? before[std::size_t(j)] - before[std::size_t(i)] : double(n) * fastest;
                                if (double(st.mbn) * plain > ceiling * (1 + 1e-12)) break;
                                if (fronts) solver.limitPerMicroBatch(ceiling * (1 + 1e-12) / double(st.mbn));
                                const auto [b, e] = s == 0 ? std::pair<std::int32_t, std::int32_t>{0, 1} : at(s - 1, i, h);
                                if (b == e) continue;  // no partial plan to extend
                                const StageChoice& c = stageChoice(s, hold(r, rounds, i, h, n));  // memoised
                                if (!c.fits) break;  // a stage holding more layers fits no better
                                // The step is at least m times any stage's time. A stage holding more
                                // layers can be faster (FSDP gathers and sends hide under more compute:
                                // a last stage of the MTP layer alone exposes its gather), so no break.
                                if (double(st.mbn) * c.perMicroBatch > ceiling * (1 + 1e-12)) continue;
                                if (s == 0) {
                                    extendBy(Label{}, c, -1, -1, ceiling, add);
                                    break;
                                }
                                for (std::int32_t k = b; k < e; ++k) extendBy(pool[std::size_t(k)], c, std::int32_t(i), k, ceiling, add);
                            }
                        }
                        at(s, j, h2) = {std::int32_t(pool.size()), std::int32_t(pool.size() + cell.size())};
                        if (!cell.empty()) nextLo[h2] = std::min(nextLo[h2], j), nextHi[h2] = std::max(nextHi[h2], j);
                        pool.insert(pool.end(), cell.begin(), cell.end());
                    }
                lo.swap(nextLo), hi.swap(nextHi);
            }
            std::int32_t best = -1;
            bool ends = false;
            for (std::size_t h = rounds.endFirst(); h <= rounds.endLast(); ++h) {
                const auto [b, e] = at(p - 1, placed, h);
                ends = ends || b < e;
                for (std::int32_t k = b; k < e; ++k) {
                    const double x = step(pool[std::size_t(k)]);
                    ceiling = std::min(ceiling, x);
                    if (pass == 1 && x < bestStep) bestStep = x, bestPeak = pool[std::size_t(k)].peak, best = k;
                }
            }
            if (pass == 1) out.labels += pool.size();
            if (best >= 0) {  // the layers per stage and each stage's choice, from the last stage's label back
                totals.assign(std::size_t(p), 0), picks.assign(std::size_t(p), 0);
                for (std::int64_t s = p - 1, j = placed; s >= 0; --s) {
                    const Label& x = pool[std::size_t(best)];
                    const std::int64_t i = s == 0 ? 0 : x.from;
                    totals[std::size_t(s)] = j - i, picks[std::size_t(s)] = x.pick;
                    j = i, best = x.fromLabel;
                }
            }
            return ends;
        };
        for (int pass = upper ? 1 : 0; pass < 2; ++pass) {
            bool any = false;
            for (const plan::Rounds& w : walks) any = walk(w, pass) || any;
            // Pass 0 keeps one partial plan a cell, so under a ceiling or caps an empty pass 0
            // proves nothing (the one kept may be dropped where another would have gone on);
            // with neither, it proves that nothing fits.
            if (!any && !std::isfinite(ceiling) && !capped) break;
        }
        if (!totals.empty() && !caps.empty()) {
            // The caps keep the plans of use; the fastest of all may be one they dropped
            // (heavier, and faster still): walk again without them, under the step found.
            PlanRequest exact = request;
            exact.peakCaps.clear();
            exact.ceilingGiven = nullptr;
            exact.ceiling = std::min(asked, bestStep);
            return planStrategy(in, exact, budget);  // `work` is the callee's now; nothing here reads it again
        }
        if (!totals.empty()) out.walkedStep = bestStep, out.walkedPeak = bestPeak;
        if (totals.empty() && (std::isfinite(asked) || capped)) {
            // Nothing under the caller's ceiling (or nothing fits): no use to it either way.
            out.bounded = true;
            out.why = "no plan is faster than the ceiling asked for";
            out.stageProblems = solver.problems();
            return out;
        }
        if (totals.empty()) {
            // Nothing fits: the partition whose worst stage misses least, at the lightest options.
            fits = false;
            totals = plan::lightestTotals(walks, p, v, placed,
                                          [&](std::int64_t s, const plan::Rounds& rounds, std::int64_t i, std::size_t h, std::int64_t n) {
                                              return stageChoice(s, hold(r, rounds, i, h, n)).lightest;
                                          });
        }
        for (std::int64_t s = 0; s < p; ++s)
            for (std::int64_t c = 0; c < v; ++c) {
                const std::int64_t n = totals[std::size_t(s)];
                grid[std::size_t(c)][std::size_t(s)] = n / v + (c >= v - n % v ? 1 : 0);
            }
    }
    // Every layer's class from its stage's choice: per (chunk, type) the options with
    // more recompute on the earlier layers (as the seed assigns them).
    out.planned = true;
    out.partition = grid;
    out.classes = classes;
    out.classNames = planned.names;
    out.ruleKeep = request.ruleKeep;
    out.layerClass.assign(layers, 0);
    if (planOffload) out.offload.assign(std::size_t(p), 0);
    for (std::int64_t s = 0; s < p; ++s) {
        const detail::StageRanges r = rangesOf(s);
        const StageChoice& fastestChoice = stageChoice(s, r);
        const StageChoice& c = picks.empty() || picks[std::size_t(s)] == 0 ? fastestChoice
                                                                            : *solver.after(fastestChoice, std::uint32_t(picks[std::size_t(s)]));
        if (planOffload) out.offload[std::size_t(s)] = c.offload;
        plan::assignStage(c, solver.counts(c), r, v, s == p - 1 ? extraLast : 0, layerTypes, out.layerClass);
    }
    out.stageProblems = solver.problems();
    if (solver.frontsCut())
        addNote("a stage had more than " + std::to_string(plan::kMaxSlowerChoices) +
                " slower choices hiding its gradient reduction: the plan is the fastest over the first of them");

    // Priced as the cost model prices it: the figures the plan reports are evaluate()'s.
    CostInput& check = work;  // the planner is done with its working strategy
    check.strategy = in.strategy;
    applyPlan(out, check.strategy);
    Estimate e;
    const Summary sum = evaluate(check, request.stageFigures ? &e : nullptr);
    out.stepSeconds = sum.stepSeconds;
    out.peakMemory = sum.peakMemory;
    out.fits = fits && sum.peakMemory <= out.budget;
    for (const StageEstimate& se : e.stages) {
        out.stagePeak.push_back(se.memory.total());
        out.stageMiss.push_back(se.memory.total() > out.budget ? se.memory.total() - out.budget : 0);
    }
    return out;
}

}  // namespace tessera::core
