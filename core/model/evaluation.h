#pragma once
// One scenario, evaluated: what the views, the CLI's reports and the review PDF all
// draw from. evaluateScenario() resolves the stated scenario, prices its strategy
// (estimate.h) and runs its pipeline schedule as events (pipeline/schedule.h) on the
// estimate's per-stage times, in one call, on any thread: everything it calls is a
// pure function of its input.
#include <string>

#include "model/estimate.h"
#include "model/stagelayers.h"
#include "pipeline/schedule.h"
#include "resolve/resolve.h"

namespace tessera::core {

// The schedule drawn as events is capped: a step of a million events is past what a
// timeline can show, and the estimate's closed forms price it anyway.
inline constexpr std::int64_t kMaxSimulatedEvents = std::int64_t{1} << 20;

struct Evaluation {
    ResolvedScenario resolved;
    Estimate estimate;
    PipelineResult pipeline;      // the step as the schedule runs it; empty when not simulated
    std::string notSimulated;     // why the schedule was not simulated (empty when it was)
    StagedLayers layers;          // each stage's layers and what each recomputes (stagelayers.h)
};

// Throws SpecError with every problem of the scenario.
Evaluation evaluateScenario(const Scenario& stated);

// Whether the weight gradient gets boxes of its own. Tessera's cost model runs the
// backward as one piece, as Megatron-LM's 1f1b does (the input gradient leaves the
// stage only when the weight gradient is done too), so Merged simulates the makespan
// the estimate reports; Split simulates a zero-bubble-style split backward, which
// sends the input gradient upstream earlier and so shows a slightly shorter step.
enum class WeightGradBoxes { Merged, Split };

// The simulator's input for an estimate's strategy. Estimate times are per
// micro-batch over all of a stage's chunks, so each chunk gets 1/chunks of them.
// The zero-bubble and dual schedules always split the weight gradient (their orders
// place it); dualpipe runs two chunks per device, its own stage and its mirror. The
// recompute (re-running forward pieces to rebuild dropped activations) happens at
// the start of the backward, so it is inside the backward box. No p2p: the
// estimate's closed forms leave it out too.
PipelineInput pipelineInputFor(const Estimate& estimate, const std::string& schedule, int chunks, int microBatches,
                               WeightGradBoxes weightGrad = WeightGradBoxes::Merged);

}  // namespace tessera::core
