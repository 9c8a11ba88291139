#include "search/space.h"

#include <algorithm>
#include <numeric>

namespace tessera::core {

std::string recomputeName(RecomputeMode mode) {
    return mode == RecomputeMode::Full ? "full" : mode == RecomputeMode::Selective ? "selective" : "none";
}

std::string scheduleName(Schedule schedule) {
    return schedule == Schedule::Interleaved ? "interleaved" : schedule == Schedule::GPipe ? "gpipe" : "1f1b";
}

std::vector<std::size_t> SearchSpace::radix() const {
    return {tp.size(), pp.size(), cp.size(), vpp.size(), ep.size(), mbs.size(), sp.size(),
            optimizerSharded.size(), gradSharded.size(), fsdp.size(), recompute.size(), schedule.size(),
            etp.size(), optimizerShard.size()};
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

const SearchAxis* axis(const Scenario& s, std::string_view key) {
    if (!s.search) return nullptr;
    for (const SearchAxis& a : s.search->space)
        if (a.key == key) return &a;
    return nullptr;
}

// The candidates of an integer axis: listed, `auto` (the given bound), or the exec's value.
std::vector<std::int64_t> counts(const Scenario& s, std::string_view key, const std::optional<std::int64_t>& stated,
                                 std::vector<std::int64_t> automatic, std::vector<std::string>& varied) {
    const SearchAxis* a = axis(s, key);
    if (!a) return stated ? std::vector<std::int64_t>{*stated} : std::vector<std::int64_t>{1};
    varied.emplace_back(key);
    if (!a->values) return automatic;
    std::vector<std::int64_t> out;
    for (const SearchValue& v : *a->values) out.push_back(std::get<std::int64_t>(v));
    return out;
}

std::vector<bool> flags(const Scenario& s, std::string_view key, const std::optional<bool>& stated,
                        std::vector<std::string>& varied) {
    const SearchAxis* a = axis(s, key);
    if (!a) return {stated.value_or(false)};
    varied.emplace_back(key);
    if (!a->values) return {false, true};
    std::vector<bool> out;
    for (const SearchValue& v : *a->values) out.push_back(std::get<bool>(v));
    return out;
}

RecomputeMode statedRecompute(const ExecSpec& e) {
    if (e.recompute && e.recompute->size() == 1 && e.recompute->front().first == 0 && !e.recompute->front().count) {
        const std::string& o = e.recompute->front().option;
        return o == "full" ? RecomputeMode::Full : o == "selective" ? RecomputeMode::Selective : RecomputeMode::None;
    }
    if (e.full_recompute && std::holds_alternative<bool>(e.full_recompute->value) && std::get<bool>(e.full_recompute->value))
        return RecomputeMode::Full;
    return RecomputeMode::None;
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

    // Dimensions Tessera does not search yet are refused by name, not ignored.
    static constexpr std::string_view kSearched[] = {"dp", "tp", "pp", "vpp", "cp", "ep", "micro_batch_size",
                                                     "micro_batch_num", "sequence_parallel", "optimizer_parallel",
                                                     "grad_shard", "grad_shard_as_params", "recompute", "pp_schedule",
                                                     "etp", "optimizer_shard"};
    if (s.search)
        for (const SearchAxis& a : s.search->space)
            if (std::find(std::begin(kSearched), std::end(kSearched), a.key) == std::end(kSearched))
                d.add(s.markOf("search.space." + a.key), "search.space." + a.key,
                      "is not searched yet; state it in exec (searched: dp, tp, pp, vpp, cp, ep, etp, micro_batch_size, "
                      "micro_batch_num, sequence_parallel, optimizer_parallel, optimizer_shard, grad_shard, "
                      "grad_shard_as_params, recompute, pp_schedule)");

    sp.devices = *s.cluster.devices;
    const std::optional<std::int64_t> gbs = s.search && s.search->global_batch_size ? s.search->global_batch_size
                                                                                    : e.global_batch_size;
    if (!gbs) d.add(s.markOf("search"), "search.constraints.global_batch_size",
                    "required: the global batch the strategies must keep (or exec.global_batch_size)");
    sp.globalBatch = gbs.value_or(1);
    sp.memoryLimit = setup.input.run.memoryBudget;
    if (s.search && s.search->memory_limit_gb)
        sp.memoryLimit = std::min<Bytes>(sp.memoryLimit, static_cast<Bytes>(*s.search->memory_limit_gb * double(GiB)));
    if (s.search && s.search->objective)
        sp.objective = *s.search->objective == "memory"              ? Objective::Memory
                       : *s.search->objective == "tokens_per_second" ? Objective::TokensPerSecond
                                                                     : Objective::StepTime;
    if (s.search && s.search->keep) sp.keep = std::size_t(*s.search->keep);
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
    sp.tp = counts(scenario, "tp", e.tp, tpAuto, varied);
    sp.pp = counts(scenario, "pp", e.pp, divisors(sp.devices, layers), varied);
    sp.cp = counts(scenario, "cp", e.cp, cpAuto, varied);
    sp.vpp = counts(scenario, "vpp", e.vpp, vppAuto, varied);
    sp.ep = counts(scenario, "ep", e.ep, isMoe(m) ? divisors(*m.num_experts, sp.devices) : std::vector<std::int64_t>{1}, varied);
    sp.mbs = counts(scenario, "micro_batch_size", e.micro_batch_size, divisors(sp.globalBatch, 8), varied);
    // etp is never searched by the seed: `auto` keeps the dense tp (1); a list is tried.
    sp.etp = counts(scenario, "etp", e.etp ? std::optional<std::int64_t>(std::max<std::int64_t>(*e.etp, 1)) : std::nullopt,
                    {1}, varied);
    // 0 stands for "the whole data-parallel group", what an unstated shard means.
    sp.optimizerShard = counts(scenario, "optimizer_shard", e.optimizer_shard ? e.optimizer_shard : std::optional<std::int64_t>(0),
                               {0}, varied);
    if (const SearchAxis* a = axis(scenario, "dp"); a && a->values)
        for (const SearchValue& v : *a->values) sp.dpFilter.push_back(std::get<std::int64_t>(v));
    else if (!a && e.dp) sp.dpFilter.push_back(*e.dp);
    if (axis(scenario, "dp")) varied.emplace_back("dp");
    if (const SearchAxis* a = axis(scenario, "micro_batch_num"); a && a->values)
        for (const SearchValue& v : *a->values) sp.mbnFilter.push_back(std::get<std::int64_t>(v));
    else if (!a && e.micro_batch_num) sp.mbnFilter.push_back(*e.micro_batch_num);
    if (axis(scenario, "micro_batch_num")) varied.emplace_back("micro_batch_num");
    sp.sp = flags(scenario, "sequence_parallel", e.sequence_parallel, varied);
    sp.optimizerSharded = flags(scenario, "optimizer_parallel", e.optimizer_parallel, varied);
    sp.gradSharded = flags(scenario, "grad_shard", e.grad_shard, varied);
    sp.fsdp = flags(scenario, "grad_shard_as_params", e.grad_shard_as_params, varied);

    if (const SearchAxis* a = axis(scenario, "recompute")) {
        varied.emplace_back("recompute");
        const std::vector<SearchValue> all{std::string("none"), std::string("selective"), std::string("full")};
        for (const SearchValue& v : a->values ? *a->values : all) {
            const std::string& name = std::get<std::string>(v);
            sp.recompute.push_back(name == "full" ? RecomputeMode::Full
                                   : name == "selective" ? RecomputeMode::Selective : RecomputeMode::None);
        }
    } else {
        sp.recompute = {statedRecompute(e)};
    }
    auto schedule = [](const std::string& name) {
        return name == "interleaved" ? Schedule::Interleaved : name == "gpipe" ? Schedule::GPipe : Schedule::OneFOneB;
    };
    if (const SearchAxis* a = axis(scenario, "pp_schedule")) {
        varied.emplace_back("pp_schedule");
        if (!a->values) sp.schedule = {Schedule::OneFOneB, Schedule::Interleaved, Schedule::GPipe};
        else
            for (const SearchValue& v : *a->values) sp.schedule.push_back(schedule(std::get<std::string>(v)));
    } else {
        sp.schedule = {schedule(*e.pp_schedule)};
    }
    d.raiseIfAny();
    return setup;
}

}  // namespace tessera::core
