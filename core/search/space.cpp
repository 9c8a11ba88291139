#include "search/space.h"

#include <algorithm>
#include <numeric>

namespace tessera::core {

std::string recomputeName(RecomputeMode mode) {
    switch (mode) {
    case RecomputeMode::Full: return "full";
    case RecomputeMode::Selective: return "selective";
    case RecomputeMode::PerLayer: return "per_layer";
    case RecomputeMode::None: break;
    }
    return "none";
}

std::vector<std::size_t> SearchSpace::radix() const {
    return {tp.size(), pp.size(), cp.size(), vpp.size(), ep.size(), mbs.size(), sp.size(),
            optimizerSharded.size(), gradSharded.size(), fsdp.size(), recompute.size(), schedule.size(),
            etp.size(), optimizerShard.size(), dpShard.size()};
}

std::uint64_t SearchSpace::size() const {
    std::uint64_t n = 1;
    for (std::size_t r : radix()) n *= r;
    return n;
}

namespace {

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t atMost) {
    std::vector<std::int64_t> out;
    for (std::int64_t d = 1; d <= std::min(n, atMost); ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

const SearchAxis* axis(const SearchSpec& s, std::string_view key) {
    for (const SearchAxis& a : s.space)
        if (a.key == key) return &a;
    return nullptr;
}

// The candidates of an integer axis: listed, `auto` (the given bound), or the exec's value.
std::vector<std::int64_t> counts(const SearchSpec& s, std::string_view key, const std::optional<std::int64_t>& stated,
                                 std::vector<std::int64_t> automatic, std::vector<std::string>& varied) {
    const SearchAxis* a = axis(s, key);
    if (!a) return stated ? std::vector<std::int64_t>{*stated} : std::vector<std::int64_t>{1};
    varied.emplace_back(key);
    if (!a->values) return automatic;
    std::vector<std::int64_t> out;
    for (const SearchValue& v : *a->values) out.push_back(std::get<std::int64_t>(v));
    return out;
}

std::vector<bool> flags(const SearchSpec& s, std::string_view key, const std::optional<bool>& stated,
                        std::vector<std::string>& varied) {
    const SearchAxis* a = axis(s, key);
    if (!a) return {stated.value_or(false)};
    varied.emplace_back(key);
    if (!a->values) return {false, true};
    std::vector<bool> out;
    for (const SearchValue& v : *a->values) out.push_back(std::get<bool>(v));
    return out;
}

RecomputeMode modeOf(const std::string& option) {
    return option == "full" ? RecomputeMode::Full : option == "selective" ? RecomputeMode::Selective : RecomputeMode::None;
}

// The stated recompute as the one option for every layer the search carries, or
// nullopt when it says more than that (ranges, ops, per-stage counts).
std::optional<RecomputeMode> statedRecompute(const ExecSpec& e) {
    if (e.recompute) {
        if (e.recompute->empty()) return RecomputeMode::None;  // no range: no layer recomputes
        const RecomputeRange& r = e.recompute->front();
        if (e.recompute->size() == 1 && r.first == 0 && !r.count && !r.ops) return modeOf(r.option);
        return std::nullopt;
    }
    auto all = [](const std::optional<StageCounts>& c) -> std::optional<bool> {
        if (!c) return false;
        if (auto* b = std::get_if<bool>(&c->value)) return *b;
        return std::nullopt;  // counts per stage
    };
    const std::optional<bool> full = all(e.full_recompute), selective = all(e.selective_recompute);
    if (!full || !selective) return std::nullopt;
    return *full ? RecomputeMode::Full : *selective ? RecomputeMode::Selective : RecomputeMode::None;
}

std::string searchedKeys() {
    std::string out;
    for (const AxisInfo& a : searchAxes())
        if (a.searched) out += (out.empty() ? "" : ", ") + std::string(a.key);
    return out;
}

}  // namespace

SearchSetup searchSetup(const Scenario& scenario) {
    SearchSetup setup;
    setup.base = resolveRun(scenario);
    setup.input = runCostInput(setup.base);
    const Scenario& s = setup.base.scenario;
    const ModelSpec& m = s.model;
    const ExecSpec& e = s.exec;
    SearchSpace& sp = setup.space;
    Diagnostics d;
    // A section that names no axis searches the default space (searchspec.h).
    const SearchSpec search = s.search && !s.search->space.empty() ? *s.search : defaultSearchSpace(s.search);

    // Dimensions Tessera does not search yet are refused by name, not ignored.
    for (const SearchAxis& a : search.space)
        if (const AxisInfo* info = searchAxis(a.key); !info || !info->searched)
            d.add(s.markOf("search.space." + a.key), "search.space." + a.key,
                  "is not searched yet; state it in exec (searched: " + searchedKeys() + ")");

    sp.devices = *s.cluster.devices;
    const std::optional<std::int64_t> gbs = search.constraints.global_batch_size ? search.constraints.global_batch_size : e.global_batch_size;
    if (!gbs) d.add(s.markOf("search"), "search.constraints.global_batch_size",
                    "required: the global batch the strategies must keep (or exec.global_batch_size)");
    sp.globalBatch = gbs.value_or(1);
    sp.memoryLimit = setup.input.run.memoryBudget;
    if (search.constraints.memory_limit_gb)
        sp.memoryLimit = std::min<Bytes>(sp.memoryLimit, static_cast<Bytes>(*search.constraints.memory_limit_gb * double(GiB)));
    if (search.objective)
        sp.objective = *search.objective == "memory"              ? Objective::Memory
                       : *search.objective == "tokens_per_second" ? Objective::TokensPerSecond
                                                                  : Objective::StepTime;
    if (search.keep) sp.keep = std::size_t(*search.keep);
    sp.selectiveRule = *e.selective_rule;

    const std::int64_t layers = *m.num_hidden_layers + (*e.mtp_in_offset ? m.mtp_depth.value_or(0) : 0);
    const std::int64_t heads = *m.num_attention_heads, kv = isMla(m) ? heads : *m.num_key_value_heads;
    std::vector<std::int64_t> tpAuto;
    for (std::int64_t t : divisors(sp.devices, sp.devices))
        if (heads % t == 0 && kv % t == 0) tpAuto.push_back(t);
    std::vector<std::int64_t> cpAuto;
    for (std::int64_t c : divisors(sp.devices, 32))
        if (*e.seq_length % (2 * c) == 0 || c == 1) cpAuto.push_back(c);
    std::vector<std::int64_t> vppAuto;
    for (std::int64_t v : divisors(layers, 8)) vppAuto.push_back(v);
    std::vector<std::string>& varied = sp.varied;
    sp.tp = counts(search, "tp", e.tp, tpAuto, varied);
    sp.pp = counts(search, "pp", e.pp, divisors(sp.devices, layers), varied);
    sp.cp = counts(search, "cp", e.cp, cpAuto, varied);
    sp.vpp = counts(search, "vpp", e.vpp, vppAuto, varied);
    sp.ep = counts(search, "ep", e.ep, isMoe(m) ? divisors(*m.num_experts, sp.devices) : std::vector<std::int64_t>{1}, varied);
    sp.mbs = counts(search, "micro_batch_size", e.micro_batch_size, divisors(sp.globalBatch, 8), varied);
    // The expert TP degree, in one spelling (resolve/expertgrid.h). etp is never searched by
    // the seed: `auto` keeps the dense tp (1); a list is tried. expert_tp's `auto` tries
    // every degree that divides the devices and the expert width; each candidate keeps
    // those its expert grid folds (ep · expert_tp dividing tp·cp·dp).
    const SearchAxis* etpAxis = axis(search, "etp");
    const SearchAxis* expertTpAxis = axis(search, "expert_tp");
    if (etpAxis && expertTpAxis)
        d.add(s.markOf("search.space.expert_tp"), "search.space.expert_tp",
              "etp and expert_tp are two spellings of the expert TP degree: search one of them");
    else if (etpAxis && e.expert_tp)
        d.add(s.markOf("search.space.etp"), "search.space.etp",
              "exec states expert_tp, the other spelling of the expert TP degree: remove one of the two");
    else if (expertTpAxis && e.etp)
        d.add(s.markOf("search.space.expert_tp"), "search.space.expert_tp",
              "exec states etp, the other spelling of the expert TP degree: remove one of the two");
    if (expertTpAxis && !isMoe(m))
        d.add(s.markOf("search.space.expert_tp"), "search.space.expert_tp", "applies to mixture-of-experts models only");
    sp.megatronExpertTp = expertTpAxis || (!etpAxis && e.expert_tp);
    if (sp.megatronExpertTp) {
        std::vector<std::int64_t> expertTpAuto;
        for (std::int64_t t : divisors(sp.devices, sp.devices))
            if (m.moe_intermediate_size.value_or(0) % t == 0) expertTpAuto.push_back(t);
        sp.etp = counts(search, "expert_tp", e.expert_tp, expertTpAuto, varied);
    } else {
        sp.etp = counts(search, "etp", e.etp ? std::optional<std::int64_t>(std::max<std::int64_t>(*e.etp, 1)) : std::nullopt, {1},
                        varied);
    }
    // 0 stands for "the whole data-parallel group", what an unstated shard means. auto
    // tries it and one shard per NVLink domain (HSDP: gradients reduce-scattered over
    // NVLink, only a shard's worth all-reduced across the nodes), each candidate the
    // width its own grid puts in a domain; listed sizes try those.
    sp.optimizerShard = counts(search, "optimizer_shard", e.optimizer_shard ? e.optimizer_shard : std::optional<std::int64_t>(0),
                               {0, kShardPerNode}, varied);
    if (const SearchAxis* a = axis(search, "dp"); a && a->values)
        for (const SearchValue& v : *a->values) sp.dpFilter.push_back(std::get<std::int64_t>(v));
    else if (!a && e.dp) sp.dpFilter.push_back(*e.dp);
    if (axis(search, "dp")) varied.emplace_back("dp");
    if (const SearchAxis* a = axis(search, "micro_batch_num"); a && a->values)
        for (const SearchValue& v : *a->values) sp.mbnFilter.push_back(std::get<std::int64_t>(v));
    else if (!a && e.micro_batch_num) sp.mbnFilter.push_back(*e.micro_batch_num);
    if (axis(search, "micro_batch_num")) varied.emplace_back("micro_batch_num");
    sp.sp = flags(search, "sequence_parallel", e.sequence_parallel, varied);
    sp.optimizerSharded = flags(search, "optimizer_parallel", e.optimizer_parallel, varied);
    sp.gradSharded = flags(search, "grad_shard", e.grad_shard, varied);
    sp.fsdp = flags(search, "grad_shard_as_params", e.grad_shard_as_params, varied);
    // dp_shard states all of the sharding at once: beside an axis or a stated shard
    // size that says otherwise, one of the two would be dropped.
    sp.dpShard = counts(search, "dp_shard", std::optional<std::int64_t>(0), divisors(sp.devices, sp.devices), varied);
    if (axis(search, "dp_shard")) {
        for (const char* key : {"optimizer_parallel", "grad_shard", "grad_shard_as_params", "optimizer_shard"})
            if (axis(search, key))
                d.add(s.markOf("search.space." + std::string(key)), "search.space." + std::string(key),
                      "the search's dp_shard decides it (1: no sharding; n: FSDP over n ranks): remove one of the two");
        if (e.optimizer_shard)
            d.add(s.markOf("exec.optimizer_shard"), "exec.optimizer_shard",
                  "search.space.dp_shard decides the shard size of every candidate: remove one of the two");
    }

    if (const SearchAxis* a = axis(search, "recompute")) {
        varied.emplace_back("recompute");
        const std::vector<SearchValue> all{std::string("none"), std::string("selective"), std::string("full")};
        for (const SearchValue& v : a->values ? *a->values : all) {
            const std::string& name = std::get<std::string>(v);
            sp.recompute.push_back(name == "full"        ? RecomputeMode::Full
                                   : name == "selective" ? RecomputeMode::Selective
                                   : name == "per_layer" ? RecomputeMode::PerLayer
                                                         : RecomputeMode::None);
        }
    } else if (const std::optional<RecomputeMode> stated = statedRecompute(e)) {
        sp.recompute = {*stated};
    } else {
        // Until the planner carries ranges per candidate, say so rather than price another recompute.
        const char* key = e.recompute ? "exec.recompute" : e.full_recompute ? "exec.full_recompute" : "exec.selective_recompute";
        d.add(s.markOf(key), key,
              "states a recompute per layer range or per stage, which the search does not carry yet; state one option for "
              "every layer, or let the search choose it (search.space.recompute)");
    }
    if (const auto& comm = e.selective_comm_recompute;
        comm && !(std::holds_alternative<bool>(comm->value) && !std::get<bool>(comm->value)))
        d.add(s.markOf("exec.selective_comm_recompute"), "exec.selective_comm_recompute",
              "re-gathers the inputs of chosen layers, which the search does not carry yet; remove it to search");
    if (axis(search, "recompute") && (e.full_recompute || e.selective_recompute)) {
        // Each candidate states `recompute`, which replaces these; said rather than dropped.
        const char* key = e.full_recompute ? "exec.full_recompute" : "exec.selective_recompute";
        d.add(s.markOf(key), key, "the search chooses the recompute (search.space.recompute) and writes it as `recompute`; "
                                  "remove the per-stage form");
    }
    auto schedule = [](const std::string& name) { return scheduleNamed(name); };
    if (const SearchAxis* a = axis(search, "pp_schedule")) {
        varied.emplace_back("pp_schedule");
        if (!a->values)
            for (std::string_view name : kPipelineSchedules) sp.schedule.push_back(scheduleNamed(name));
        else
            for (const SearchValue& v : *a->values) sp.schedule.push_back(schedule(std::get<std::string>(v)));
    } else {
        sp.schedule = {schedule(*e.pp_schedule)};
    }

    // pp_partition: auto plans the placement of every candidate; a stated one gives way
    // (each candidate states its own pp_partition).
    if (axis(search, "pp_partition")) {
        sp.planPartition = true;
        varied.emplace_back("pp_partition");
    }
    // A stated placement of the layers is carried to every candidate whose stages and
    // chunks it places (an offset per stage fixes pp); the others are refused, as
    // resolve() refuses them. One that places no candidate's layers is refused here.
    if (!sp.planPartition && (e.offset || e.pp_partition)) {
        const char* key = e.pp_partition ? "exec.pp_partition" : "exec.offset";
        std::string lastError;
        bool any = false;
        for (std::int64_t p : sp.pp)
            for (std::int64_t v : sp.vpp) {
                auto placed = partitionLayers(layers, p, v, e.offset, e.pp_partition);
                if (auto* error = std::get_if<std::string>(&placed)) {
                    lastError = *error;
                    sp.placements.emplace_back();
                } else {
                    sp.placements.push_back(std::get<Partition>(placed).layers);
                    any = true;
                }
            }
        if (!any) d.add(s.markOf(key), key, sp.pp.size() * sp.vpp.size() == 1 ? lastError
                                            : "places the layers on none of the pp and vpp the search tries (" + lastError + ")");
    }
    // Activation offload: one count for every stage (a list names stages a candidate may not
    // have), and not under the planner, which does not plan around it yet.
    if (e.activation_offload && std::holds_alternative<StageCounts::Flat>(e.activation_offload->value))
        d.add(s.markOf("exec.activation_offload"), "exec.activation_offload",
              "a search varies the stages: state one count for every stage, not a list");
    if (setup.input.run.activationOffload > 0 && (sp.planPartition || std::find(sp.recompute.begin(), sp.recompute.end(),
                                                                                 RecomputeMode::PerLayer) != sp.recompute.end()))
        d.add(s.markOf("exec.activation_offload"), "exec.activation_offload",
              "pp_partition: auto and recompute: per_layer plan without offload (not planned around it yet): state 0");
    // A tower split over stages is a placement of one strategy (its pp, its text partition);
    // the search places the tower whole on stage 0, as the seed's does, and says so
    // rather than price something other than what estimate prices for this file.
    if (e.vision_partition)
        d.add(s.markOf("exec.vision_partition"), "exec.vision_partition",
              "the search places the vision tower whole on stage 0 (as the seed's search does); a split is priced by "
              "estimate and plan for the strategy it names: leave it out to search");
    d.raiseIfAny();
    return setup;
}

}  // namespace tessera::core
