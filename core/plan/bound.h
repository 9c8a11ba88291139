#pragma once
// What no plan of a strategy can beat, for a search that plans every candidate
// (pp_partition: auto, recompute: per_layer) and wants to skip the ones that can
// enter neither its top-K nor its Pareto front. Whatever the partition and the
// options, the plan's step is at least, and its peak memory at least, what this
// returns (tst_plan holds both to every plan of a space):
//
//  - every layer at its fastest option (NONE when the recompute is planned, else the
//    strategy's own), and the stages' times summing to the layers' times plus what
//    each stage costs holding no layer (its ends, its sends); the straggler holds at
//    least the mean. The schedule's makespan is monotone in the sums and maxima it
//    reads, so those bounds give a bound on it.
//  - the slowest stage's once-per-step tail is at least the mean of the optimizer
//    step's linear part, or the largest empty stage's tail, with the reduction taken
//    as hidden as the run's overlap ever allows.
//  - the peak stage holds at least what the largest stage holds empty, and at least a
//    weighted mean over the stages of what they hold empty plus each layer's static
//    memory (weights, gradients, states, master copy, and what FSDP holds per weight
//    in its working set: StageBody::workingLinear) and the least its options keep,
//    times the micro-batches the stage holds in flight (bound.cpp heldBound).
//
//  - together: a plan both lighter than M and faster than T (PlanBound::fitsUnder), which
//    a search reads once the planner has a plan in hand (PlanRequest::ceilingGiven).
//
// A handful of stage bodies (three empty, one full, one per layer kind): a few
// microseconds, against a plan's hundred or more.
#include <array>
#include <utility>
#include <vector>

#include "model/costinput.h"
#include "pipeline/closedform.h"
#include "plan/planner.h"
#include "units/units.h"

namespace tessera::core {

struct PlanBound {
    double stepSeconds = 0;
    Bytes peakMemory = 0;

    // The two bounds together (fitsUnder): a plan no slower than T has no stage slower
    // than the makespan leaves it (every form is linear in the slowest stage X:
    // makespan >= base + coef·X, with the sums at their least), so each stage holds only
    // so much layer time; and under a peak M only so many layers fit its memory, each at
    // some mix of its kind's options (hull: recompute seconds, bytes kept a micro-batch,
    // fastest to lightest), a whole number of them. The layers of the most numerous kind
    // must all find a stage, and every chunk holds a layer: a stage that cannot take one
    // of that kind a chunk takes the other kinds' (as if they cost nothing, a relaxation),
    // and there are only so many of those.
    PipelineShape shape;
    std::vector<std::pair<double, double>> hull;
    double layers = 0, others = 0, layerSeconds = 0, layerStatic = 0;  // others: layers of the other kinds
    double layerWeightGrad = 0;  // what one zb-h1 weight gradient held back keeps of the kind
    double base = 0, coef = 0, tail = 0;
    // The stages holding no layer: first, middle, last.
    std::array<double, 3> emptySeconds{}, emptyMemory{}, embeddingKept{}, outputKept{};
    // What a stage holding a layer holds at least in its working set's transient buffers
    // past what it holds empty (bound.cpp heldBound): first, middle, last.
    std::array<double, 3> layerTransient{};

    // False when no plan has peak <= memory and step <= step.
    bool fitsUnder(Bytes memory, double step) const;
};

PlanBound planLowerBound(const CostInput& in, const PlanRequest& request);

}  // namespace tessera::core
