#include "search/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>

#include "model/estimate.h"
#include "model/layercost.h"
#include "search/validity.h"

namespace tessera::core {

std::string Candidate::sharding() const {
    std::string out = fsdp ? "fsdp" : gradSharded ? "zero2" : optimizerSharded ? "zero1" : "none";
    if (optimizerSharded && optimizerShard > 0) out += "/" + std::to_string(optimizerShard);
    return out;
}

std::string Candidate::label() const {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "dp%lld tp%lld pp%lld vpp%lld cp%lld ep%lld mbs%lld×%lld %s %s%s",
                  (long long)dp, (long long)tp, (long long)pp, (long long)vpp, (long long)cp, (long long)ep,
                  (long long)mbs, (long long)mbn, recomputeName(recompute).c_str(), scheduleName(schedule),
                  sp ? " sp" : "");
    std::string out = buffer;
    if (fsdp || gradSharded || optimizerSharded) out += " " + sharding();
    if (expertTpUsed() != tp) out += " expert_tp" + std::to_string(expertTpUsed());
    if (plan) {  // the planned placement, when it is not the even split
        bool even = true;
        for (const auto& chunk : plan->partition)
            for (std::int64_t n : chunk) even = even && n == plan->partition.front().front();
        if (!even) out += " layers " + partitionText(plan->partition);
    }
    return out;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kBlock = 2048;  // candidates per work item: ~2 ms of work
constexpr double kInf = std::numeric_limits<double>::infinity();

// Smaller is better; ties break on the candidate number.
double objectiveKey(const Candidate& c, Objective o) {
    return o == Objective::Memory ? double(c.peakMemory) : c.stepSeconds;
}
bool better(const Candidate& a, const Candidate& b, Objective o) {
    const double ka = objectiveKey(a, o), kb = objectiveKey(b, o);
    return ka != kb ? ka < kb : a.index < b.index;
}
bool dominates(const Candidate& a, const Candidate& b) {
    return a.peakMemory <= b.peakMemory && a.stepSeconds <= b.stepSeconds &&
           (a.peakMemory < b.peakMemory || a.stepSeconds < b.stepSeconds || a.index < b.index);
}

struct Partial {
    std::vector<Candidate> top;     // heap by `better`, at most keep
    std::vector<Candidate> front;   // non-dominated so far
    std::array<std::uint64_t, kRefusalReasons> refused{};
    std::map<std::string, std::uint64_t> memoryRefused;
    std::optional<Candidate> lightest;
    std::uint64_t evaluated = 0, feasible = 0;
    // The front by peak, each with the least step of any kept one no heavier (planCeiling).
    std::vector<std::pair<Bytes, double>> stairs;
    bool stairsStale = true;
};

void keepTop(Partial& p, const Candidate& c, Objective o, std::size_t keep) {
    auto worse = [&](const Candidate& a, const Candidate& b) { return better(a, b, o); };  // max-heap of the worst
    if (p.top.size() < keep) {
        p.top.push_back(c);
        std::push_heap(p.top.begin(), p.top.end(), worse);
    } else if (better(c, p.top.front(), o)) {
        std::pop_heap(p.top.begin(), p.top.end(), worse);
        p.top.back() = c;
        std::push_heap(p.top.begin(), p.top.end(), worse);
    }
}

void keepFront(std::vector<Candidate>& front, const Candidate& c) {
    for (const Candidate& f : front)
        if (dominates(f, c)) return;
    std::erase_if(front, [&](const Candidate& f) { return dominates(c, f); });
    front.push_back(c);
}

void refreshStairs(Partial& part) {
    if (!part.stairsStale) return;
    part.stairs.clear();
    for (const Candidate& f : part.front) part.stairs.push_back({f.peakMemory, f.stepSeconds});
    std::sort(part.stairs.begin(), part.stairs.end());
    for (std::size_t i = 1; i < part.stairs.size(); ++i)
        part.stairs[i].second = std::min(part.stairs[i].second, part.stairs[i - 1].second);
    part.stairsStale = false;
}

// The staircase as the planner reads it (PlanRequest::peakCaps): from each stair's peak
// on, a plan slower than that stair's step (and than the K-th kept) enters neither the
// front nor the top. Lighter than every stair, no cap.
std::vector<std::pair<Bytes, double>> peakCaps(Partial& part, const SearchSpace& space) {
    std::vector<std::pair<Bytes, double>> caps;
    if (space.objective == Objective::Memory || part.top.size() < space.keep || part.front.empty()) return caps;
    refreshStairs(part);
    const double worst = part.top.front().stepSeconds;
    for (const auto& [peak, step] : part.stairs)
        if (peak <= space.memoryLimit) caps.emplace_back(peak, std::max(worst, step));
    return caps;
}

// What a candidate's plan must beat to matter to this worker, from a lower bound on
// any plan of it (plan/bound.h): +inf while the top-K or the front is still filling;
// -inf when no plan can enter either; else the step past which its plan enters
// neither the top-K (a step slower than the K-th kept) nor the front. The worker's own
// top and front are enough: the merged ones are no worse, so the result is the same
// whatever the threads (only the count of candidates bounded out differs).
//
// The front is a staircase: a plan of peak m is dominated when slower than the
// fastest kept candidate no heavier than m. The plan's peak is unknown, so each stair
// it could stand on is taken in turn, lightest first: a plan on it is lighter than the
// next stair up and, to matter, no slower than this one's step, and PlanBound::fitsUnder
// may show no plan is both. The first stair left gives the ceiling.
//
// `upper`: the step of a plan the planner has in hand (PlanRequest::ceilingGiven). The
// plan it returns is no slower, so it stands only where a plan that fast can.
double planCeiling(Partial& part, const SearchSpace& space, const PlanBound& b, double upper = kInf) {
    if (part.top.size() < space.keep || part.front.empty()) return kInf;
    if (b.peakMemory > space.memoryLimit) return -kInf;
    const Candidate& worst = part.top.front();
    if (space.objective == Objective::Memory) {  // the top by peak: the bound's own peak and step
        double front = -kInf;
        for (const Candidate& f : part.front)
            if (f.peakMemory <= b.peakMemory) front = front == -kInf ? f.stepSeconds : std::min(front, f.stepSeconds);
        if (front == -kInf) return kInf;
        const double ceiling = std::max(b.peakMemory > worst.peakMemory ? -kInf : kInf, front);
        return b.stepSeconds > ceiling ? -kInf : ceiling;
    }
    refreshStairs(part);
    // Lighter than every kept one, it may join the front whatever its step.
    const Bytes lightest = part.stairs.front().first;
    if (b.peakMemory < lightest && b.fitsUnder(lightest - 1, upper)) return kInf;
    for (std::size_t i = 0; i < part.stairs.size() && part.stairs[i].first <= space.memoryLimit; ++i) {
        // A plan standing on stair i: peak in [m_i, m_i+1), useful only up to this step.
        const double ceiling = std::max(worst.stepSeconds, part.stairs[i].second);
        const Bytes below = i + 1 < part.stairs.size() ? std::min(part.stairs[i + 1].first, space.memoryLimit + 1)
                                                      : space.memoryLimit + 1;
        if (b.stepSeconds > ceiling) break;  // not even with no recompute, nor on a heavier stair
        if (below <= b.peakMemory) continue;  // lighter than any plan can be
        if (b.fitsUnder(below - 1, std::min(ceiling, upper))) return ceiling;
    }
    return -kInf;
}

std::string memoryBucket(Bytes need, Bytes limit) {
    const double ratio = double(need) / double(limit), gib = double(limit) / double(GiB);
    char buffer[96];
    auto bucket = [&](double lo, double hi) {
        std::snprintf(buffer, sizeof buffer, "needs %.1f-%.1f GiB, limit %.1f GiB", gib * lo, gib * hi, gib);
        return std::string(buffer);
    };
    if (ratio <= 1.25) return bucket(1, 1.25);
    if (ratio <= 1.5) return bucket(1.25, 1.5);
    if (ratio <= 2) return bucket(1.5, 2);
    std::snprintf(buffer, sizeof buffer, "needs over %.1f GiB, limit %.1f GiB", gib * 2, gib);
    return buffer;
}

}  // namespace

std::optional<PlanRequest> candidatePlanRequest(const SearchSpace& space, const Candidate& c, const CostInput& filled) {
    if (!space.planPartition && c.recompute != RecomputeMode::PerLayer) return std::nullopt;
    const OpMask rule = selectiveRuleMask(space.selectiveRule, filled.strategy.flash, c.sp);
    PlanRequest request;
    request.partition = space.planPartition, request.recompute = c.recompute == RecomputeMode::PerLayer;
    request.selectiveKeep = request.ruleKeep = rule;
    request.stageFigures = false;
    return request;
}

std::optional<Summary> priceCandidate(const SearchSetup& setup, const Validity& validity, Candidate& c, CostInput& in) {
    validity.fill(c, in);
    return priceFilled(setup.space, c, in, candidatePlanRequest(setup.space, c, in));
}

std::optional<Summary> priceFilled(const SearchSpace& space, Candidate& c, const CostInput& in,
                                   std::optional<PlanRequest> request, double ceiling, Refusal* why) {
    if (!request) return evaluate(in);
    // Planned inside: its own placement and options, within the search's limit.
    request->ceiling = ceiling;
    auto plan = std::make_shared<Plan>(planStrategy(in, *request, space.memoryLimit));
    if (!plan->planned) {
        if (why) *why = plan->bounded ? Refusal::Bounded : Refusal::LayersFewerThanChunks;
        return std::nullopt;
    }
    const Summary s{plan->peakMemory, plan->stepSeconds, plan->fits};
    c.plan = std::move(plan);
    return s;
}

CostInput candidateInput(const SearchSetup& setup, const Candidate& c) {
    CostInput in = setup.input;
    Validity(setup).fill(c, in);
    if (c.plan) applyPlan(*c.plan, in.strategy);
    return in;
}

SearchResult runSearch(const SearchSetup& setup, const SearchOptions& options) {
    const SearchSpace& space = setup.space;
    const auto start = Clock::now();
    SearchResult result;
    result.spaceSize = space.size();
    const std::vector<std::size_t> radix = space.radix();
    std::atomic<std::uint64_t> next{0}, visited{0};
    std::atomic<int> running{0};
    std::mutex mutex;
    std::condition_variable wake;
    std::optional<Candidate> best;  // guarded by mutex, for progress only
    const int threads = std::max(1, options.threads);
    std::vector<Partial> partials(static_cast<std::size_t>(threads));

    auto work = [&](Partial& part) {
        CostInput in = setup.input;
        Validity validity(setup);
        LayerCostMemo layerCosts;  // the candidate's, shared by its bound and its plan
        std::size_t digits[kAxes];
        while (!(options.cancel && options.cancel->load(std::memory_order_relaxed))) {
            const std::uint64_t first = next.fetch_add(kBlock);
            if (first >= result.spaceSize) break;
            const std::uint64_t last = std::min(result.spaceSize, first + kBlock);
            // The block's first candidate's digits, then each next by carrying (no divisions).
            std::uint64_t rest = first;
            for (std::size_t a = kAxes; a-- > 0;) digits[a] = rest % radix[a], rest /= radix[a];
            auto advance = [&] {
                for (std::size_t a = kAxes; a-- > 0;) {
                    if (++digits[a] < radix[a]) return;
                    digits[a] = 0;
                }
            };
            for (std::uint64_t index = first; index < last; ++index, advance()) {
                Candidate c;
                c.index = index;
                const Refusal why = validity.check(digits, c);
                if (why != Refusal::None) {
                    ++part.refused[std::size_t(why)];
                    continue;
                }
                validity.fill(c, in);
                std::optional<PlanRequest> request = candidatePlanRequest(space, c, in);
                layerCosts.clear();
                if (request) request->layerCosts = &layerCosts;
                double ceiling = kInf;
                PlanBound bound;
                if (request && options.bound && part.top.size() >= space.keep) {
                    bound = planLowerBound(in, *request);
                    ceiling = planCeiling(part, space, bound);
                    // Once the planner has a plan in hand, its plan can be only so light.
                    if (ceiling != -kInf) {
                        request->ceilingGiven = [&](double upper) {
                            return std::min(ceiling, planCeiling(part, space, bound, upper));
                        };
                        request->peakCaps = peakCaps(part, space);
                    }
                }
                Refusal unplanned = Refusal::LayersFewerThanChunks;
                std::optional<Summary> priced;
                if (ceiling == -kInf) unplanned = Refusal::Bounded;  // not even planned
                else priced = priceFilled(space, c, in, request, ceiling, &unplanned);
                if (!priced) {
                    ++part.refused[std::size_t(unplanned)];
                    continue;
                }
                const Summary& s = *priced;
                ++part.evaluated;
                c.peakMemory = s.peakMemory;
                c.stepSeconds = s.stepSeconds;
                c.tokensPerSecond = double(space.globalBatch) * double(in.run.seq) / s.stepSeconds;
                if (s.peakMemory > space.memoryLimit) {
                    ++part.memoryRefused[memoryBucket(s.peakMemory, space.memoryLimit)];
                    if (!part.lightest || s.peakMemory < part.lightest->peakMemory ||
                        (s.peakMemory == part.lightest->peakMemory && index < part.lightest->index))
                        part.lightest = c;
                    continue;
                }
                ++part.feasible;
                keepTop(part, c, space.objective, space.keep);
                keepFront(part.front, c);
                part.stairsStale = true;
            }
            visited.fetch_add(last - first, std::memory_order_relaxed);
            if (!part.top.empty()) {
                const Candidate& mine = *std::min_element(part.top.begin(), part.top.end(),
                                                          [&](auto& a, auto& b) { return better(a, b, space.objective); });
                std::lock_guard lock(mutex);
                if (!best || better(mine, *best, space.objective)) best = mine;
            }
        }
        std::lock_guard lock(mutex);
        --running;
        wake.notify_all();
    };

    running = threads;
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, std::ref(partials[std::size_t(t)]));
    // The caller's thread works too when nobody wants progress; otherwise it reports.
    if (!options.progress) {
        work(partials[0]);
    } else {
        std::thread first(work, std::ref(partials[0]));
        std::unique_lock lock(mutex);
        while (running > 0) {
            wake.wait_for(lock, std::chrono::milliseconds(50));
            SearchProgress p;
            p.candidates = visited.load();
            p.fraction = result.spaceSize ? double(p.candidates) / double(result.spaceSize) : 1.0;
            p.best = best;
            lock.unlock();
            options.progress(p);
            lock.lock();
        }
        lock.unlock();
        first.join();
    }
    for (std::thread& t : pool) t.join();

    // Merge, in thread order; every choice breaks ties on the candidate number.
    Partial all;
    for (Partial& part : partials) {
        all.evaluated += part.evaluated;
        all.feasible += part.feasible;
        for (std::size_t r = 0; r < kRefusalReasons; ++r) all.refused[r] += part.refused[r];
        for (const auto& [why, n] : part.memoryRefused) all.memoryRefused[why] += n;
        if (part.lightest && (!all.lightest || part.lightest->peakMemory < all.lightest->peakMemory ||
                              (part.lightest->peakMemory == all.lightest->peakMemory && part.lightest->index < all.lightest->index)))
            all.lightest = part.lightest;
        for (const Candidate& c : part.top) keepTop(all, c, space.objective, space.keep);
        for (const Candidate& c : part.front) keepFront(all.front, c);
    }
    result.evaluated = all.evaluated;
    result.feasible = all.feasible;
    result.visited = visited.load();
    result.cancelled = options.cancel && options.cancel->load() && result.visited < result.spaceSize;
    for (std::size_t r = 1; r < kRefusalReasons; ++r)
        if (all.refused[r]) result.refused[refusalText(Refusal(r))] = all.refused[r];
    for (const auto& [why, n] : all.memoryRefused) result.refused[why] = n;
    result.top = std::move(all.top);
    std::sort(result.top.begin(), result.top.end(), [&](auto& a, auto& b) { return better(a, b, space.objective); });
    result.pareto = std::move(all.front);
    std::sort(result.pareto.begin(), result.pareto.end(), [](auto& a, auto& b) {
        return a.peakMemory != b.peakMemory ? a.peakMemory < b.peakMemory : a.index < b.index;
    });
    result.lightestRefused = all.lightest;
    if (result.feasible == 0) result.advice = adviceWhenNothingFits(setup, result);
    result.elapsedSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

}  // namespace tessera::core
