#pragma once
// Planning inside one strategy: how many layers each pipeline stage holds and what
// each layer recomputes, chosen to minimise the step time as the cost model prices
// it (model/estimate.h: the schedule's closed-form makespan over the per-stage times
// plus the slowest stage's exposed reduction and optimizer step) with every stage's
// peak memory within the budget. The seed's pipeline balancer solves the same
// problem as a MILP (reference/hyperparallel.md §6.7-§6.8); this is an exact
// method of its own:
//
//  1. A stage's cost depends on which layers it holds only through how many of each
//     kind (identical layers are interchangeable) and on its place (first, middle,
//     last; the micro-batches it keeps in flight). For each such stage the fastest
//     choice of options is a small knapsack over the kinds, solved exactly by
//     enumeration: per kind the options left after dominance (more memory, more
//     recompute time and a larger working set than another) form a chain, the
//     working set (the largest of the options present) is enumerated as a level, and
//     the last kind's split between its two lightest-recompute options is solved in
//     closed form. Taking each stage's fastest fitting choice is optimal for the
//     step: a stage's time enters the step with weight at least one (1F1B, GPipe),
//     and more recompute can shorten its exposed reduction by no more than it adds.
//     Under interleaving (weight 1/vpp off the straggler) and zb-h1 (none off the
//     critical stages; its step m·max X + (p − 1)·max Y reads no sum) that last
//     argument fails: recompute that only hides more of an overlapped reduction can
//     price a faster step. There a stage problem whose fastest choice leaves some of
//     its reduction exposed also keeps every slower choice that exposes less (over
//     every count of every option, ties merged: plan/stagefront.cpp), and the
//     programme below walks them too, each only while the choice before it still has
//     the longer tail than the partial plan's longest (PlanRequest::hideReductions;
//     without them a plan is within 5 % of exact: tst_plan).
//  2. The partition is a dynamic programme over (stage, layers placed) whose labels
//     are Pareto sets of the partial sums and maxima the makespan formula reads (sum
//     and max of the stage times, the largest tail), so the optimum of a formula that
//     is neither a sum nor a max is exact.
//
// With vpp > 1 the partition is planned as stage totals, each stage's chunks split
// evenly (the extra layers on its later chunks). The interleaved closed form
// (pipeline/closedform.h) reads only a stage's total time, as if its chunks were
// equal, so chunks are not planned apart: a plan piling a stage's layers into its
// least-held chunk would need the least memory and be priced as fast, though its
// bubble grows (#14 prices schedules from their events). With one layer kind a
// stage's cost depends on its total alone. With several, which kinds a stage's chunks
// hold depends on the other stages' totals too (round c starts after every stage's
// chunk c−1): the programme then also carries the stages' residues (n mod vpp), and
// where the later rounds are not all of one kind it walks once per histogram of them
// (plan/rounds.h), still exact over the same family; past a walk size a plan's time
// cannot afford, the partition stays as stated and Plan::note says so. The layers'
// options are planned either way.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "model/costinput.h"
#include "units/units.h"

namespace tessera::core {

class LayerCostMemo;

// The seed's five recompute options (_ppb.py _OPTIONS, in its tie-breaking order).
enum class PlanOption : std::uint8_t { None, Slct, Comm, Both, Full };
inline constexpr std::size_t kPlanOptions = 5;
inline constexpr const char* kPlanOptionNames[kPlanOptions] = {"NONE", "SLCT", "COMM", "BOTH", "FULL"};
// The class an option is: SLCT keeps what the run's selective rule keeps, COMM re-gathers
// the sequence-parallel inputs only, BOTH does both, FULL keeps the layer's input.
RecomputeClass planOptionClass(PlanOption option, OpMask selectiveKeep);

struct PlanRequest {
    bool partition = true;   // choose the layers per stage and chunk; else keep the strategy's
    bool recompute = true;   // choose every layer's option; else keep what the strategy states
    OpMask selectiveKeep = kOpAll;  // what SLCT keeps: the run's selective recompute (planexec.h planRequest)
    OpMask ruleKeep = kOpAll;       // what a bare `selective` range means: selectiveRuleMask(rule, flash, sp)
    bool stageFigures = true;       // fill Plan::stagePeak and stageMiss (the search needs neither)
    // Let each stage offload its first layers' activations to the host (they run NONE), as
    // the seed's offload advice does: 1F1B with one chunk per stage, recompute planned, and
    // a device with a host link; otherwise the plan says why it did not (Plan::note).
    bool offload = false;
    // A step past which the caller has no use for a plan (a search's kept candidates):
    // when the fastest plan is slower, or none fits, the planner may stop early and
    // return Plan::bounded instead.
    double ceiling = std::numeric_limits<double>::infinity();
    // Once a plan is in hand (the even split, where it fits), the step the plan will be
    // no slower than: the caller may then know its plan can only be so light, and lower
    // the ceiling (-inf: no use at all; the planner stops there).
    std::function<double(double upper)> ceilingGiven;
    // A caller keeping a front of peak against step: (peak, cap) pairs ascending in peak,
    // the cap non-increasing, where a plan of peak at least that is of no use to it when
    // slower than the cap (none below the first). The planner's plan is still the fastest,
    // but when that plan would be past the cap at its own peak it may return bounded: a
    // partial plan whose step bound passes the cap at the peak its stages already reach is
    // dropped (the whole plan's peak is no less, its step no less than the bound), and a
    // walk that keeps none proves the fastest plan of no use. A walk that keeps one is
    // walked again without the caps, under the step it found, for the fastest.
    std::vector<std::pair<Bytes, double>> peakCaps;
    // Under interleaving and zb-h1 with the gradient reduction overlapped, also weigh each
    // stage's slower choices that hide more of its reduction (StageSolver::enableFronts):
    // the plan is then exact (tst_plan's brute force). Every caller plans so, a search too;
    // off, only to show what they buy (tst_plan, bench_plan).
    bool hideReductions = true;
    // Layer costs of this very strategy that the caller shares with planLowerBound of it
    // (LayerCostMemo; the caller clears it between strategies). Null: the plan's own.
    LayerCostMemo* layerCosts = nullptr;
};

struct Plan {
    bool planned = false;  // false: no partition at all (see why), or bounded
    bool bounded = false;  // no plan under the request's ceiling (so none is made)
    bool fits = false;     // every stage within the budget
    std::string why;
    // The plan, in the strategy's terms: layers per [chunk][stage], and per layer in
    // model order an index into `classes` (`options` names each class).
    std::vector<std::vector<std::int64_t>> partition;
    std::vector<RecomputeClass> classes;
    std::vector<std::string> classNames;  // NONE, SLCT, ... or STATED for a strategy's own
    std::vector<std::uint8_t> layerClass;
    std::vector<std::int64_t> offload;  // per stage, its first layers offloaded (empty: offload not planned)
    std::string note;                   // what the plan did not do that was asked (offload), and why
    OpMask ruleKeep = kOpAll;  // the request's: a class keeping this is written as a bare `selective`
    // As the cost model prices the plan (evaluate() of it; tst_plan holds the two equal).
    double stepSeconds = 0;
    // The step as the partition's walk priced the plan it chose (NaN: no walk chose it);
    // tst_plan holds it to stepSeconds, so that a walk that places a chunk wrong shows.
    double walkedStep = std::numeric_limits<double>::quiet_NaN();
    Bytes walkedPeak = 0;  // and its peak, the stages' largest (the caps read it; tst_plan holds it to peakMemory)
    Bytes peakMemory = 0, budget = 0;
    // Per stage: the planned peak; when nothing fits, the lightest plan's peak and by
    // how much it misses the budget (0 where that stage fits).
    std::vector<Bytes> stagePeak, stageMiss;
    // Work done, for the benchmark: distinct stage problems solved, labels kept.
    std::uint64_t stageProblems = 0, labels = 0;
};

// A partition ([chunk][stage]) as the reports and the window show it: layers per stage,
// a stage's chunks joined by + ("19,21,21,19"; "5+4,5+6").
std::string partitionText(const std::vector<std::vector<std::int64_t>>& grid);

// Plans `in`'s strategy within `budget` bytes per device (0: the run's memory budget).
Plan planStrategy(const CostInput& in, const PlanRequest& request, Bytes budget = 0);
// The plan written into a strategy, as the cost model reads it.
void applyPlan(const Plan& plan, Strategy& strategy);

}  // namespace tessera::core
