#include "model/evaluation.h"

#include <algorithm>
#include <cmath>

namespace tessera::core {

PipelineInput pipelineInputFor(const Estimate& estimate, const std::string& schedule, int chunks, int microBatches,
                               WeightGradBoxes weightGrad) {
    PipelineInput in;
    in.schedule = schedule;
    in.stages = int(estimate.stages.size());
    in.chunks = chunks;
    in.microBatches = microBatches;
    const int v = std::max(chunks, 1);  // simulatePipeline refuses chunks < 1 by name
    const bool split = weightGrad == WeightGradBoxes::Split;
    for (const StageEstimate& stage : estimate.stages) {
        const StageTime& t = stage.time;
        const StageTimes perChunk{t.forward / v, (t.backward + t.recompute + (split ? 0 : t.weightGrad)) / v,
                                  split ? t.weightGrad / v : 0};
        in.times.emplace_back(std::size_t(v), perChunk);
    }
    return in;
}

Evaluation evaluateScenario(const Scenario& stated) {
    Evaluation out;
    out.resolved = resolve(stated);
    out.estimate = estimate(out.resolved);
    out.layers = stagedLayers(out.resolved);
    const ExecSpec& e = out.resolved.scenario.exec;
    // Forward and backward of every micro-batch on every chunk of every stage.
    const double events = 2.0 * double(*e.pp) * double(*e.vpp) * double(*e.micro_batch_num);
    if (events > double(kMaxSimulatedEvents)) {
        out.notSimulated = "the schedule has " + std::to_string(std::llround(events)) + " events; at most " +
                           std::to_string(kMaxSimulatedEvents) + " are simulated (the estimate prices it by its closed form)";
        return out;
    }
    try {
        out.pipeline = simulatePipeline(pipelineInputFor(out.estimate, *e.pp_schedule, int(*e.vpp), int(*e.micro_batch_num)));
    } catch (const SpecError& error) {  // resolve() keeps the simulator's rules, so this says what drifted
        out.notSimulated = error.what();
    }
    return out;
}

}  // namespace tessera::core
