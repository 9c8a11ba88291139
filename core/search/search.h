#pragma once
// The strategy search: every candidate of a SearchSpace, checked against the
// validity rules (each refusal counted under its reason), priced with the
// closed-form cost model, and kept only while it can still matter: a running top-K
// by the objective and the Pareto front of peak memory against step time, so memory
// stays bounded however large the space.
//
// Candidates are numbered in mixed radix over the axes; worker threads take blocks
// of numbers from a shared counter and keep their own top-K, front and counts, which
// are merged at the end with ties broken by candidate number - so the result is the
// same whatever the thread count. In a planned space (pp_partition: auto, recompute:
// per_layer) a worker skips planning a candidate that a lower bound shows can enter
// neither its own top-K nor its front, and hands the planner the step past which the
// plan is of no use (search.cpp planCeiling), and again once the planner has a plan in
// hand and so knows how light its plan can be (PlanRequest::ceilingGiven: it may stop
// there); the top and the front are unchanged, only how many were bounded out
// depends on the threads. The caller's thread reports
// progress at least ten times a second and watches the cancel flag; workers check it
// every block (a few milliseconds of work). No Qt: the GUI wraps this in its own worker.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/planner.h"
#include "search/space.h"

namespace tessera::core {

struct Candidate {
    std::uint64_t index = 0;  // position in the space: ties resolve by it
    std::int64_t dp = 1, tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, mbs = 1, mbn = 1;
    // The expert TP degree in the spelling the space states it (resolve/expertgrid.h): the
    // seed's etp (at most 1 runs experts at tp), or, when expertTp > 0, Megatron's expert_tp.
    std::int64_t etp = 1;
    std::int64_t expertTp = 0;
    std::int64_t expertTpUsed() const { return expertTp > 0 ? expertTp : seedExpertTp(etp, tp); }
    std::int64_t optimizerShard = 0;  // 0: the whole data-parallel group
    std::int64_t dpShard = 0;         // the searched FSDP degree; 0: dp_shard not searched
    std::uint32_t placement = 0;      // SearchSpace::placements index, when a placement is stated
    bool sp = false, optimizerSharded = false, gradSharded = false, fsdp = false;
    RecomputeMode recompute = RecomputeMode::None;
    Schedule schedule = Schedule::OneFOneB;
    // The plan inside the candidate (pp_partition: auto, recompute: per_layer): its layers
    // per stage and each layer's option, which its figures price and its exec states.
    std::shared_ptr<const Plan> plan;
    Bytes peakMemory = 0;
    double stepSeconds = 0;
    double tokensPerSecond = 0;
    std::string label() const;  // "dp2 tp8 pp4 vpp1 mbs1 selective", "... per_layer 1f1b planned"
    // "none", "zero1", "zero2" or "fsdp", and "/n" where a shard spans n ranks by the
    // space's own value (optimizer_shard listed or auto) rather than the whole group.
    std::string sharding() const;
};

struct SearchProgress {
    double fraction = 0;
    std::uint64_t candidates = 0;  // looked at so far
    std::optional<Candidate> best;
};

struct SearchOptions {
    int threads = 1;
    std::function<void(const SearchProgress&)> progress;  // called on the caller's thread
    const std::atomic<bool>* cancel = nullptr;
    // Skip planning a candidate whose lower bound (plan/bound.h) can enter neither the
    // top-K nor the front: the same top and front, far fewer plans. Off: every valid
    // candidate is planned (the tests compare the two).
    bool bound = true;
};

struct SearchResult {
    std::uint64_t spaceSize = 0, evaluated = 0, feasible = 0, visited = 0;
    std::map<std::string, std::uint64_t> refused;  // reason -> count
    std::vector<Candidate> top;     // best first, by the objective
    std::vector<Candidate> pareto;  // by peak memory, ascending
    std::optional<Candidate> lightestRefused;  // the least memory any over-limit candidate needs
    bool cancelled = false;
    double elapsedSeconds = 0;
    std::vector<std::string> advice;  // when nothing fits: what to widen
};

SearchResult runSearch(const SearchSetup& setup, const SearchOptions& options = {});

// The candidate as a strategy the cost model prices, on the setup's base.
CostInput candidateInput(const SearchSetup& setup, const Candidate& c);

}  // namespace tessera::core
