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
    const Schedule kind = scheduleNamed(schedule);
    const bool split = !estimate.expertCommPaired && (weightGrad == WeightGradBoxes::Split || splitsWeightGrad(kind));
    in.pairSteadyState = estimate.expertCommPaired;
    if (kind == Schedule::DualPipe) {  // device r: its own stage one way, the mirrored stage the other
        in.chunks = 2;
        for (const StageEstimate& stage : estimate.stages)
            in.times.push_back({simulatorTimes(stage.time, 1, split),
                                simulatorTimes(stage.hasMirror ? stage.mirror : stage.time, 1, split)});
        return in;
    }
    const int v = std::max(chunks, 1);  // simulatePipeline refuses chunks < 1 by name
    in.seqSplit = runsSequenceParts(kind) ? estimate.seqSplit : 1;
    for (const StageEstimate& stage : estimate.stages) {
        StageTimes t = simulatorTimes(stage.time, v, split, estimate.expertCommPaired);
        const double n = in.seqSplit;  // seqpipe's and seqsmartvpp's times are one sequence part's
        t.forward /= n, t.backward /= n, t.weightGrad /= n, t.forwardComm /= n, t.backwardComm /= n;
        t.forwardHidden /= n, t.backwardHidden /= n, t.forwardUnpaired /= n, t.backwardUnpaired /= n;
        in.times.emplace_back(std::size_t(v), t);
    }
    return in;
}

Evaluation evaluateScenario(const Scenario& stated) {
    Evaluation out;
    out.resolved = resolve(stated);
    out.estimate = estimate(out.resolved);
    out.layers = stagedLayers(out.resolved);
    const ExecSpec& e = out.resolved.scenario.exec;
    // Forward, backward and (split) weight gradient of every micro-batch on every chunk of every stage.
    const int chunks = *e.pp_schedule == "dualpipe" ? 2 : int(*e.vpp);
    const double parts = runsSequenceParts(scheduleNamed(*e.pp_schedule)) ? double(e.seq_split.value_or(1)) : 1.0;
    const double events = 3.0 * double(*e.pp) * double(chunks) * double(*e.micro_batch_num) * parts;
    if (events > double(kMaxSimulatedEvents)) {
        out.notSimulated = "the schedule has " + std::to_string(std::llround(events)) + " events; at most " +
                           std::to_string(kMaxSimulatedEvents) + " are drawn (" +
                           (pricedBySimulation(scheduleNamed(*e.pp_schedule)) || out.estimate.expertCommPaired
                                ? "the estimate simulated it to price it)"
                                : "the estimate prices it by its closed form)");
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
