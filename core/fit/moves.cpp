#include "fit/moves.h"

#include <algorithm>

#include "model/collectives.h"
#include "model/costinput.h"
#include "pipeline/closedform.h"
#include "units/units.h"

namespace tessera::core {

namespace {

std::string num(std::int64_t n) { return std::to_string(n); }

// The one option every layer recomputes, as the stated exec says it; empty when the
// layers recompute differently (ranges, per-stage counts, chosen ops).
std::string uniformRecompute(const ExecSpec& e) {
    if (e.recompute) {
        if (e.recompute->size() == 1 && e.recompute->front().first == 0 && !e.recompute->front().count &&
            !e.recompute->front().ops)
            return e.recompute->front().option;
        return e.recompute->empty() ? "none" : "";
    }
    auto all = [](const std::optional<StageCounts>& c, bool value) {
        return c && std::holds_alternative<bool>(c->value) && std::get<bool>(c->value) == value;
    };
    if (all(e.full_recompute, true)) return e.selective_recompute && !all(e.selective_recompute, false) ? "" : "full";
    if (all(e.selective_recompute, true)) return e.full_recompute && !all(e.full_recompute, false) ? "" : "selective";
    const bool none =
        (!e.full_recompute || all(e.full_recompute, false)) && (!e.selective_recompute || all(e.selective_recompute, false));
    return none ? "none" : "";
}

void recomputeKnobs(const Scenario& stated, std::vector<Knob>& out) {
    const std::string now = uniformRecompute(stated.exec);
    for (const char* option : {"full", "selective", "none"}) {
        if (now == option) continue;
        const std::string label = std::string(option) == "none" ? "no recompute" : std::string("recompute: ") + option;
        out.push_back({label, "recompute", [o = std::string(option)](ExecSpec& e) {
                           e.full_recompute.reset(), e.selective_recompute.reset();
                           e.recompute = std::vector<RecomputeRange>{RecomputeRange{0, std::nullopt, o, std::nullopt}};
                       }});
    }
}

// ZeRO's stages as the exec section spells them: optimizer_parallel, grad_shard,
// grad_shard_as_params; a knob states only the switches that change.
void shardingKnobs(const ExecSpec& e, std::vector<Knob>& out) {
    const int now = !*e.optimizer_parallel ? 0 : !*e.grad_shard ? 1 : !*e.grad_shard_as_params ? 2 : 3;
    static const char* const kNames[] = {"no optimizer sharding", "distributed optimizer (ZeRO-1)",
                                         "ZeRO-2 (gradients sharded too)", "FSDP (ZeRO-3)"};
    for (int level = 0; level < 4; ++level) {
        if (level == now) continue;
        out.push_back({kNames[level], "sharding", [level, now](ExecSpec& x) {
                           if ((level >= 1) != (now >= 1)) x.optimizer_parallel = level >= 1;
                           if ((level >= 2) != (now >= 2)) x.grad_shard = level >= 2;
                           if ((level >= 3) != (now >= 3)) x.grad_shard_as_params = level >= 3;
                       }});
    }
}

// The optimizer's shard span, under a distributed optimizer: one shard per NVLink domain
// (HSDP: gradients reduce-scatter over NVLink, and only a shard's worth all-reduces across
// the nodes) where that is narrower than the group, and from a narrower one back to one
// shard over the whole group (unstated).
void shardSpanKnobs(const ResolvedScenario& r, std::vector<Knob>& out) {
    if (!*r.scenario.exec.optimizer_parallel) return;
    const CostInput in = costInput(r);
    const Strategy& st = in.strategy;
    const std::int64_t group = st.dp * (st.shardSpansCp ? st.cp : 1), now = st.optimizerShard;
    const std::int64_t perNode = shardRanksPerNode(st, in.device);
    if (perNode > 1 && perNode < group && perNode != now)
        out.push_back({"one optimizer shard per node (optimizer_shard " + num(now) + " → " + num(perNode) + ")", "optimizer shard",
                       [perNode](ExecSpec& x) { x.optimizer_shard = perNode; }});
    if (now < group)
        out.push_back({"one optimizer shard over the whole group (optimizer_shard " + num(now) + " → " + num(group) + ")",
                       "optimizer shard", [](ExecSpec& x) { x.optimizer_shard.reset(); }});
}

// A degree doubled and halved (down to 1), each with what the move needs beside it.
void degreeKnobs(const char* key, std::int64_t now, std::int64_t most, std::optional<std::int64_t> ExecSpec::*field,
                 std::vector<Knob>& out) {
    for (const std::int64_t to : {now <= most / 2 ? now * 2 : 0, now % 2 == 0 ? now / 2 : 0}) {
        if (to < 1 || to > most) continue;
        out.push_back({std::string(key) + " " + num(now) + " → " + num(to), key, [field, to](ExecSpec& e) { e.*field = to; }});
    }
}

void tpKnobs(const ResolvedScenario& r, std::int64_t devices, std::vector<Knob>& out) {
    const ExecSpec& e = r.scenario.exec;
    const std::int64_t tp = *e.tp;
    degreeKnobs("tp", tp, devices, &ExecSpec::tp, out);
    if (tp == 1 && !out.empty() && out.back().group == "tp") {  // Megatron-LM runs TP with sequence parallelism
        out.back().label += " with sequence parallelism";
        out.back().set = [sp = *e.sequence_parallel](ExecSpec& x) {
            x.tp = 2;
            if (!sp) x.sequence_parallel = true;
        };
    }
    if (tp > 1)
        out.push_back({*e.sequence_parallel ? "sequence parallelism off" : "sequence parallelism on", "tp",
                       [sp = !*e.sequence_parallel](ExecSpec& x) { x.sequence_parallel = sp; }});
}

void scheduleKnobs(const ExecSpec& e, std::vector<Knob>& out) {
    const std::int64_t pp = *e.pp, vpp = *e.vpp;
    if (pp == 1) return;
    const std::string now = *e.pp_schedule;
    for (std::string_view name : kPipelineSchedules) {
        if (name == now || name == "gpipe") continue;  // GPipe holds every micro-batch: never lighter, never faster than 1f1b
        out.push_back({"schedule " + std::string(name), "schedule", [s = std::string(name)](ExecSpec& x) { x.pp_schedule = s; }});
    }
    if (interleavesChunks(scheduleNamed(now))) {
        for (const std::int64_t to : {vpp * 2, vpp / 2}) {
            if (to < 2 || to > 64) continue;
            out.push_back({"vpp " + num(vpp) + " → " + num(to), "schedule", [to](ExecSpec& x) { x.vpp = to; }});
        }
    }
}

void offloadKnobs(const ResolvedScenario& r, std::vector<Knob>& out) {
    const ExecSpec& e = r.scenario.exec;
    const DeviceSpec& device = *r.scenario.cluster.device;
    if (!device.host_link_gbps) return;
    const auto* every = e.activation_offload ? std::get_if<std::int64_t>(&e.activation_offload->value) : nullptr;
    const bool offloading = e.activation_offload && !(every && *every == 0);
    if (offloading) {
        out.push_back({"no activation offload", "activation offload",
                       [](ExecSpec& x) { x.activation_offload = StageCounts{std::int64_t{0}}; }});
    } else if (!r.partition.layers.empty() && !r.partition.layers.front().empty()) {
        const auto& first = r.partition.layers.front();
        const std::int64_t most = *std::min_element(first.begin(), first.end());
        std::vector<std::int64_t> counts{1};
        if (most > 1) counts.push_back(most);  // a stage's whole first chunk
        for (const std::int64_t k : counts)
            out.push_back({"offload the activations of " + num(k) + (k == 1 ? " layer" : " layers") + " a stage",
                           "activation offload", [k](ExecSpec& x) { x.activation_offload = StageCounts{k}; }});
    }
    if (!device.host_memory_gbps) return;
    const double share = e.optimizer_offload.value_or(0);
    for (const double to : {0.0, 0.5, 1.0}) {
        if (to == share) continue;
        const std::string label = to == 0 ? "no optimizer offload" : formatText("optimizer %.0f %% on the host", to * 100);
        out.push_back({label, "optimizer offload", [to](ExecSpec& x) { x.optimizer_offload = to; }});
    }
}

// FP8: the weights stored as FP8 parameters (fp8_params), which drops their BF16 copy, and
// under userbuffers the forward reduce-scatters in FP8 (fp8_reduce_scatter). Only on: off
// is never lighter, and never faster.
void precisionKnobs(const ExecSpec& e, std::vector<Knob>& out) {
    if (*e.compute_dtype != "fp8") return;
    if (!*e.fp8_params)
        out.push_back({"FP8 weights as the parameters (fp8_params)", "precision", [](ExecSpec& x) { x.fp8_params = true; }});
    if (*e.tp_comm_overlap && !*e.fp8_reduce_scatter)
        out.push_back({"FP8 forward reduce-scatters (fp8_reduce_scatter)", "precision",
                       [](ExecSpec& x) { x.fp8_reduce_scatter = true; }});
}

}  // namespace

std::vector<Knob> knobsAround(const Scenario& stated, const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    const ModelSpec& m = r.scenario.model;
    const std::int64_t devices = *r.scenario.cluster.devices;
    std::vector<Knob> out;
    recomputeKnobs(stated, out);
    shardingKnobs(e, out);
    shardSpanKnobs(r, out);
    tpKnobs(r, devices, out);
    degreeKnobs("pp", *e.pp, r.totalLayers, &ExecSpec::pp, out);
    degreeKnobs("cp", *e.cp, devices, &ExecSpec::cp, out);
    if (isMoe(m)) degreeKnobs("ep", *e.ep, *m.num_experts, &ExecSpec::ep, out);
    degreeKnobs("micro_batch_size", *e.micro_batch_size, *e.global_batch_size, &ExecSpec::micro_batch_size, out);
    scheduleKnobs(e, out);
    offloadKnobs(r, out);
    precisionKnobs(e, out);
    return out;
}

}  // namespace tessera::core
