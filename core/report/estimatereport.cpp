#include "report/estimatereport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "io/calibrationio.h"
#include "model/priced.h"
#include "pipeline/closedform.h"
#include "report/fitreport.h"
#include "units/units.h"

namespace tessera::core {

std::string strategyLine(const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    std::string line = formatText("dp %lld · tp %lld · pp %lld", (long long)*e.dp, (long long)*e.tp, (long long)*e.pp);
    if (*e.vpp > 1) line += formatText(" · vpp %lld", (long long)*e.vpp);
    if (*e.cp > 1) line += formatText(" · cp %lld", (long long)*e.cp);
    if (*e.ep > 1) line += formatText(" · ep %lld", (long long)*e.ep);
    if (e.expert_tp && *e.expert_tp != *e.tp) line += formatText(" · expert_tp %lld", (long long)*e.expert_tp);
    line += formatText(" · mbs %lld × %lld micro-batches · seq %lld · %s", (long long)*e.micro_batch_size,
                   (long long)*e.micro_batch_num, (long long)*e.seq_length, e.pp_schedule->c_str());
    if (runsSequenceParts(scheduleNamed(*e.pp_schedule))) line += formatText(" in %lld sequence parts", (long long)e.seq_split.value_or(1));
    if (*e.optimizer_post_validation) line += " · optimizer post-validated";
    if (*e.overlap_moe_expert_parallel_comm) line += " · all-to-all overlapped";
    if (*e.moe_enable_deepep) line += " · DeepEP dispatch";
    if (*e.sequence_parallel) line += " · SP";
    if (*e.optimizer_parallel) line += *e.grad_shard_as_params ? " · FSDP" : *e.grad_shard ? " · ZeRO-2" : " · ZeRO-1";
    if (e.activation_offload) {
        if (const auto* all = std::get_if<std::int64_t>(&e.activation_offload->value); all && *all > 0)
            line += formatText(" · offload %lld layers a stage", (long long)*all);
        if (const auto* each = std::get_if<StageCounts::Flat>(&e.activation_offload->value)) {
            std::string counts;
            for (std::int64_t k : *each) counts += (counts.empty() ? "" : ",") + std::to_string(k);
            line += " · offload layers " + counts;
        }
    }
    if (e.optimizer_offload && *e.optimizer_offload > 0) line += formatText(" · optimizer %.0f %% on the host", *e.optimizer_offload * 100);
    return line;
}

std::string headline(const ResolvedScenario& r) {
    const Scenario& s = r.scenario;
    return formatText("%s on %lld × %s", s.model.name.value_or("model").c_str(), (long long)*s.cluster.devices,
                  s.cluster.device->name->c_str());
}

std::string timeToTrain(const Estimate& e) {
    const std::string perTrillion =
        formatText("%s GPU-hours per trillion tokens", countText(e.gpuHoursPerTrillionTokens).c_str());
    if (!e.trainDays) return "Time to train: " + perTrillion + " (no token budget: state exec.train_tokens for the days)";
    return formatText("Time to train: %s tokens in %s steps, %s on %lld devices · %s", shortCount(*e.trainTokens).c_str(),
                      withThousands(*e.trainSteps).c_str(), formatDays(*e.trainDays).c_str(), (long long)e.devices,
                      perTrillion.c_str());
}

std::vector<std::string> keyFigures(const Estimate& e) {
    std::vector<std::string> out;
    const bool mirrored = !e.stages.empty() && e.stages.front().hasMirror;  // dualpipe: a row is a device of two stages
    out.push_back(formatText("Peak %s GiB of %s GiB (%s %d): %s", gibNumber(e.peakMemory).c_str(), gibNumber(e.deviceMemory).c_str(),
                         mirrored ? "device" : "stage", e.peakStage, e.fits ? "fits" : "DOES NOT FIT"));
    out.push_back(formatText("Step %s · %s tokens/s · MFU %.1f %% · bubble %.1f %%", formatSeconds(e.stepSeconds).c_str(),
                         countText(e.tokensPerSecond).c_str(), e.mfu * 100, e.bubbleFraction * 100));
    const TimeBreakdown& b = e.breakdown;
    out.push_back(formatText("Where the step goes: compute %s · recompute %s · exposed communication %s · bubble %s · optimizer %s",
                         formatSeconds(b.compute).c_str(), formatSeconds(b.recompute).c_str(),
                         formatSeconds(b.communicationExposed).c_str(), formatSeconds(b.bubble).c_str(),
                         formatSeconds(b.optimizer).c_str()));
    if (e.lastStageEnd > 0 && e.stepIsStageSpan)
        out.push_back(formatText("zb-h2 with optimizer post-validation: the step is the longest stage's span; the pipeline's "
                                 "last stage ends %s after the first starts, and the next step's first forwards run beside it",
                                 formatSeconds(e.lastStageEnd).c_str()));
    else if (e.lastStageEnd > 0)
        out.push_back(formatText("zb-h2 without optimizer post-validation: the step waits for its last stage, which ends %s "
                                 "after the first starts (exec.optimizer_post_validation would make it the longest stage's span)",
                                 formatSeconds(e.lastStageEnd).c_str()));
    if (e.postValidationUnused)
        out.push_back("exec.optimizer_post_validation changes nothing here: the first stage is busy from the step's start to "
                      "its end under this schedule (it shortens zb-h2's staggered stages only)");
    if (b.computeSlowedBySms > 0)
        out.push_back(formatText("Compute includes %s of F&B pairs run on the SMs DeepEP's kernels leave them (moe_deepep_sms)",
                             formatSeconds(b.computeSlowedBySms).c_str()));
    if (b.computeWaitingOnSlowest > 0)
        out.push_back(formatText("Compute and recompute include %s of waiting for the slowest of %s devices, %.1f %% slower "
                                 "than the mean (cluster.rank_speed_spread)",
                                 formatSeconds(b.computeWaitingOnSlowest).c_str(), withThousands(e.devices).c_str(),
                                 (e.slowestDeviceFactor - 1) * 100));
    auto oneNic = [&](const char* which, std::int64_t ranks) {
        if (ranks > 1)
            out.push_back(formatText("%s collectives are priced at one NIC per rank: NCCL can carry this group's %lld ranks "
                                     "in a node on %lld NICs, up to %lldx faster on the network (not priced; README, the "
                                     "collectives)",
                                     which, (long long)ranks, (long long)ranks, (long long)ranks));
    };
    oneNic("Data-parallel", e.dpRanksPerNodeOnOneNic);
    oneNic("The routed experts' data-parallel", e.expertDpRanksPerNodeOnOneNic);
    if (b.communicationHiddenBySchedule > 0)
        out.push_back(formatText("The schedule's F&B pairs hide %s more communication on the busiest device",
                             formatSeconds(b.communicationHiddenBySchedule).c_str()));
    out.push_back(timeToTrain(e));
    out.push_back(formatText("Parameters: %s in all, at most %s on one device", withThousands(e.totalParameters).c_str(),
                         countText(e.perDeviceMaxParameters).c_str()));
    return out;
}

std::string visionShareText(const StageEstimate& st) {
    if (!st.vision.any()) return {};
    const VisionShare& v = st.vision;
    const std::string what = v.endBlock - v.firstBlock == v.blocks
                                 ? std::string("the vision tower")
                                 : formatText("vision blocks %lld-%lld of %lld%s", (long long)v.firstBlock, (long long)v.endBlock - 1,
                                              (long long)v.blocks, v.firstBlock == 0 ? " and the patch embedding"
                                                                   : v.endBlock == v.blocks ? " and the projector" : "");
    return formatText("%s %d holds %s, in the figures above: %s parameters on one device, %s GiB kept a "
                      "micro-batch in flight, %s forward and %s backward a micro-batch",
                      st.hasMirror ? "Device" : "Stage", st.stage, what.c_str(), countText(st.vision.parameters).c_str(),
                      gibNumber(Bytes(std::min(st.vision.keptPerMicroBatch, 0x1p62)), 2).c_str(), formatSeconds(st.vision.forwardSeconds).c_str(),
                      formatSeconds(st.vision.backwardSeconds).c_str());
}

std::string estimateText(const ResolvedScenario& r, const Estimate& e, const FitAdvice* fit) {
    std::string out = headline(r) + "\n" + strategyLine(r) + "\n\n";
    out += "Memory per device, GiB (2^30 bytes)\n";
    out += "stage layers in-flight   params  grads  optim master  activ buffers working reserve   total\n";
    for (const StageEstimate& st : e.stages) {
        const StageMemory& m = st.memory;
        out += formatText("%5d %6lld %9lld %8s %6s %6s %6s %6s %7s %7s %7s %7s%s\n", st.stage, (long long)st.layers,
                      (long long)st.inFlightMicroBatches, gibNumber(m.parameters).c_str(), gibNumber(m.gradients).c_str(),
                      gibNumber(m.optimizerStates).c_str(), gibNumber(m.mainParameters).c_str(), gibNumber(m.activations).c_str(),
                      gibNumber(m.buffers).c_str(), gibNumber(m.working).c_str(), gibNumber(m.reserve).c_str(), gibNumber(m.total()).c_str(),
                      m.total() > e.deviceMemory ? "  over" : "");
    }
    for (const StageEstimate& st : e.stages)
        if (st.vision.any()) out += visionShareText(st) + "\n";
    if (fit) out += "\n" + fitText(*fit);
    out += "\nTime per micro-batch on each stage\n";
    out += "stage    forward   backward     w-grad  recompute  exposed comm\n";
    auto timeRow = [&](const std::string& label, const StageTime& t) {
        out += formatText("%5s %10s %10s %10s %10s %13s\n", label.c_str(), formatSeconds(t.forward).c_str(),
                      formatSeconds(t.backward).c_str(), formatSeconds(t.weightGrad).c_str(),
                      formatSeconds(t.recompute).c_str(), formatSeconds(t.communication).c_str());
    };
    const bool mirrored = !e.stages.empty() && e.stages.front().hasMirror;
    for (const StageEstimate& st : e.stages) {
        timeRow(std::to_string(st.stage), st.time);
        if (st.hasMirror)  // DualPipe: the same device runs the mirrored stage for the other direction
            timeRow("+" + std::to_string(int(e.stages.size()) - 1 - st.stage), st.mirror);
    }
    if (mirrored)
        out += "(dualpipe: each device runs its stage s one way and the row marked +(p-1-s) the other;\n"
               " memory above is per device, both stages' parameters and activations)\n";
    out += "\n";
    for (const std::string& line : keyFigures(e)) out += line + "\n";
    out += "Efficiencies: " + calibrationStatus(r.scenario.calibration) +
           (r.scenario.calibration ? " (" + *r.scenario.cluster.calibration + ")" : std::string(", the built-in fits")) + "\n";
    if (const std::vector<NotPriced> unpriced = notPriced(r.scenario); !unpriced.empty()) {
        out += "\nStated but not priced (the figures above are without them):\n";
        for (const NotPriced& n : unpriced) out += "  " + n.key + ": " + n.value + " - " + n.why + "\n";
    }
    return out;
}

namespace {
nlohmann::ordered_json timeJson(const StageTime& t) {
    return {{"forward_s", t.forward}, {"backward_s", t.backward + t.weightGrad}, {"backward_input_s", t.backward},
            {"weight_grad_s", t.weightGrad}, {"recompute_s", t.recompute}, {"communication_s", t.communication},
            {"communication_forward_s", t.forwardComm}, {"communication_backward_s", t.backwardComm},
            {"communication_by_dimension_s", {{"tp", t.tp}, {"cp", t.cp}, {"ep", t.ep}, {"pp", t.pp}, {"dp", t.dp}}},
            // per micro-batch, forward + backward: what each layer leaves exposed, and the rest of it hidden
            {"communication_exposed_by_dimension_s",
             {{"tp", t.exposed.tp}, {"cp", t.exposed.cp}, {"ep", t.exposed.ep}, {"pp", t.exposed.pp}, {"dp", t.exposed.dp},
              {"host", t.exposed.host}}},
            {"communication_hidden_by_dimension_s",
             {{"tp", t.tp - t.exposed.tp}, {"cp", t.cp - t.exposed.cp}, {"ep", t.ep - t.exposed.ep},
              {"pp", t.pp - t.exposed.pp}, {"host", t.host - t.exposed.host}}},
            {"dp_exposed_s", t.dpExposed}, {"optimizer_s", t.optimizer}, {"host_copy_s", t.host}};
}

nlohmann::ordered_json memoryJson(const StageMemory& m) {
    nlohmann::ordered_json out;
    for (const MemoryTerm& term : kMemoryTerms) out[term.key] = m.*term.bytes;
    out["total"] = m.total();
    return out;
}
// A count as a JSON integer; past int64 (a hostile input) the double itself, never the
// wrapped value llround gives there.
nlohmann::ordered_json countJson(double x) {
    if (std::isfinite(x) && std::abs(x) < 9.2e18) return std::llround(x);
    return x;
}
}  // namespace

std::string estimateJson(const ResolvedScenario& r, const Estimate& e, const FitAdvice* fit) {
    using json = nlohmann::ordered_json;
    json out;
    out["parameters"] = {{"total", e.totalParameters}, {"per_device_max", countJson(e.perDeviceMaxParameters)}};
    json stages = json::array();
    for (const StageEstimate& st : e.stages) {
        json stage = {{"stage", st.stage},
                      {"layers", st.layers},
                      {"in_flight_micro_batches", st.inFlightMicroBatches},
                      {"in_flight_per_chunk", st.inFlightPerChunk},
                      {"parameters", countJson(st.parameters)},
                      {"memory", memoryJson(st.memory)},
                      {"time", timeJson(st.time)}};
        if (st.hasMirror) {  // dualpipe: this device's second stage, run for the other direction
            stage["mirror_stage"] = int(e.stages.size()) - 1 - st.stage;
            stage["mirror_time"] = timeJson(st.mirror);
        }
        if (st.vision.any())  // of the figures above, the vision tower's
            stage["vision_tower"] = {{"parameters", countJson(st.vision.parameters)},
                                     {"kept_bytes_per_micro_batch", countJson(st.vision.keptPerMicroBatch)},
                                     {"first_block", st.vision.firstBlock},
                                     {"block_count", st.vision.endBlock - st.vision.firstBlock},
                                     {"forward_s", st.vision.forwardSeconds},
                                     {"backward_s", st.vision.backwardSeconds}};
        stages.push_back(stage);
    }
    out["stages"] = stages;
    out["peak_memory_bytes"] = e.peakMemory;
    out["peak_stage"] = e.peakStage;
    out["device_memory_bytes"] = e.deviceMemory;
    out["fits"] = e.fits;
    out["step_time_s"] = e.stepSeconds;
    out["bubble_fraction"] = e.bubbleFraction;
    if (e.lastStageEnd > 0) {  // zb-h2: where its last stage ends, and which of the two the step is
        out["last_stage_end_s"] = e.lastStageEnd;
        out["step_is_stage_span"] = e.stepIsStageSpan;
    }
    out["mfu"] = e.mfu;
    out["tokens_per_second"] = e.tokensPerSecond;
    out["model_flops_per_step"] = e.modelFlopsPerStep;
    out["gpu_hours_per_trillion_tokens"] = e.gpuHoursPerTrillionTokens;
    // Absent is not zero: without exec.train_tokens there is no run length to price.
    out["train_tokens"] = e.trainTokens ? json(*e.trainTokens) : json(nullptr);
    out["train_steps"] = e.trainSteps ? json(*e.trainSteps) : json(nullptr);
    out["train_days"] = e.trainDays ? json(*e.trainDays) : json(nullptr);
    json unpriced = json::array();
    for (const NotPriced& n : notPriced(r.scenario)) unpriced.push_back({{"key", n.key}, {"value", n.value}, {"why", n.why}});
    out["not_priced"] = unpriced;
    out["calibration"] = calibrationStatus(r.scenario.calibration);
    out["time_breakdown_s"] = {{"compute", e.breakdown.compute}, {"recompute", e.breakdown.recompute},
                               {"communication_exposed", e.breakdown.communicationExposed},
                               {"bubble", e.breakdown.bubble}, {"optimizer", e.breakdown.optimizer},
                               {"communication_hidden_by_schedule", e.breakdown.communicationHiddenBySchedule},
                               {"compute_slowed_by_sms", e.breakdown.computeSlowedBySms},
                               {"compute_waiting_on_slowest_device", e.breakdown.computeWaitingOnSlowest}};
    out["slowest_device_factor"] = e.slowestDeviceFactor;
    // Absent is not zero: null where no data-parallel ring shares a node's NICs.
    out["dp_ranks_per_node_priced_on_one_nic"] = e.dpRanksPerNodeOnOneNic > 1 ? json(e.dpRanksPerNodeOnOneNic) : json(nullptr);
    out["expert_dp_ranks_per_node_priced_on_one_nic"] =
        e.expertDpRanksPerNodeOnOneNic > 1 ? json(e.expertDpRanksPerNodeOnOneNic) : json(nullptr);
    if (fit) out["fit_suggestions"] = fitJson(*fit);
    return out.dump(2) + "\n";
}

}  // namespace tessera::core
