#include "io/searchreport.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "io/emit.h"
#include "io/estimatereport.h"
#include "units/units.h"

namespace tessera::core {

Value candidateExec(const Candidate& c) {
    Value e = Value::map();
    e.set("dp", Value::integer(c.dp));
    e.set("tp", Value::integer(c.tp));
    e.set("pp", Value::integer(c.pp));
    e.set("vpp", Value::integer(c.vpp));
    e.set("cp", Value::integer(c.cp));
    e.set("ep", Value::integer(c.ep));
    e.set("etp", Value::integer(c.etp));
    e.set("micro_batch_size", Value::integer(c.mbs));
    e.set("micro_batch_num", Value::integer(c.mbn));
    e.set("sequence_parallel", Value::boolean(c.sp));
    e.set("optimizer_parallel", Value::boolean(c.optimizerSharded));
    if (c.optimizerShard > 0) e.set("optimizer_shard", Value::integer(c.optimizerShard));
    e.set("grad_shard", Value::boolean(c.gradSharded));
    e.set("grad_shard_as_params", Value::boolean(c.fsdp));
    e.set("recompute", Value::string(recomputeName(c.recompute)));
    e.set("pp_schedule", Value::string(scheduleName(c.schedule)));
    return e;
}

Scenario scenarioWithCandidate(const Scenario& scenario, const Candidate& c) {
    Scenario out = scenario;
    ExecSpec& e = out.exec;
    e.dp = c.dp, e.tp = c.tp, e.pp = c.pp, e.vpp = c.vpp, e.cp = c.cp, e.ep = c.ep, e.etp = c.etp;
    e.micro_batch_size = c.mbs, e.micro_batch_num = c.mbn, e.global_batch_size = c.mbs * c.mbn * c.dp;
    e.sequence_parallel = c.sp;
    e.optimizer_parallel = c.optimizerSharded, e.grad_shard = c.gradSharded, e.grad_shard_as_params = c.fsdp;
    e.optimizer_shard.reset();  // derived again (the whole data-parallel group) unless the candidate chose one
    if (c.optimizerShard > 0 && c.optimizerSharded) e.optimizer_shard = c.optimizerShard;
    e.pp_schedule = scheduleName(c.schedule);
    e.full_recompute.reset(), e.selective_recompute.reset(), e.offset.reset(), e.pp_partition.reset();
    e.recompute = std::vector<RecomputeRange>{RecomputeRange{0, std::nullopt, recomputeName(c.recompute), std::nullopt}};
    out.search.reset();
    return out;
}

namespace {

std::string gib(Bytes b) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", double(b) / double(GiB));
    return buffer;
}

std::string row(std::size_t rank, const Candidate& c) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, "%4zu %4lld %3lld %3lld %4lld %3lld %3lld %4lld %5lld %3s %-6s %-10s %-12s %8s %10s %12s\n",
                  rank, (long long)c.dp, (long long)c.tp, (long long)c.pp, (long long)c.vpp, (long long)c.cp, (long long)c.ep,
                  (long long)c.mbs, (long long)c.mbn, c.sp ? "yes" : "no",
                  c.fsdp ? "fsdp" : c.gradSharded ? "zero2" : c.optimizerSharded ? "zero1" : "none",
                  recomputeName(c.recompute).c_str(), scheduleName(c.schedule).c_str(), gib(c.peakMemory).c_str(),
                  formatSeconds(c.stepSeconds).c_str(), withThousands(std::llround(c.tokensPerSecond)).c_str());
    return buffer;
}

const char* kHeader = "rank   dp  tp  pp  vpp  cp  ep  mbs  mb#   sp shard  recompute  schedule     peak GiB       step     tokens/s\n";

nlohmann::ordered_json candidateJson(const Candidate& c) {
    return {{"strategy", toJson(candidateExec(c))},
            {"peak_memory_bytes", c.peakMemory},
            {"step_time_s", c.stepSeconds},
            {"tokens_per_second", c.tokensPerSecond},
            {"label", c.label()}};
}

}  // namespace

std::string searchText(const SearchSetup& setup, const SearchResult& r, std::size_t top) {
    const SearchSpace& s = setup.space;
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "Searched %s of %s candidates in %s (%s per second)%s\n",
                  withThousands(std::int64_t(r.visited)).c_str(), withThousands(std::int64_t(r.spaceSize)).c_str(),
                  formatSeconds(r.elapsedSeconds).c_str(),
                  withThousands(std::llround(double(r.visited) / std::max(r.elapsedSeconds, 1e-9))).c_str(),
                  r.cancelled ? " - cancelled" : "");
    out += line;
    std::snprintf(line, sizeof line, "%s valid and priced, %s fit in %s GiB\n", withThousands(std::int64_t(r.evaluated)).c_str(),
                  withThousands(std::int64_t(r.feasible)).c_str(), gib(s.memoryLimit).c_str());
    out += line;
    if (!r.refused.empty()) {
        out += "\nRefused:\n";
        std::vector<std::pair<std::uint64_t, std::string>> byCount;
        for (const auto& [why, n] : r.refused) byCount.emplace_back(n, why);
        std::sort(byCount.begin(), byCount.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
        for (const auto& [n, why] : byCount) {
            std::string count = withThousands(std::int64_t(n));
            out += "  " + std::string(count.size() < 11 ? 11 - count.size() : 0, ' ') + count + "  " + why + "\n";
        }
    }
    if (!r.top.empty()) {
        out += "\nBest strategies:\n" + std::string(kHeader);
        for (std::size_t i = 0; i < std::min(top, r.top.size()); ++i) out += row(i + 1, r.top[i]);
        out += "\nPareto front (peak memory against step time):\n" + std::string(kHeader);
        for (std::size_t i = 0; i < r.pareto.size(); ++i) out += row(i + 1, r.pareto[i]);
    } else {
        out += "\nNo strategy fits.\n";
        for (const std::string& a : r.advice) out += "  - " + a + "\n";
    }
    return out;
}

std::string searchJson(const SearchSetup&, const SearchResult& r, std::size_t top) {
    using json = nlohmann::ordered_json;
    json out;
    out["space_size"] = r.spaceSize;
    out["visited"] = r.visited;
    out["evaluated"] = r.evaluated;
    out["feasible"] = r.feasible;
    out["refused"] = r.refused;
    out["cancelled"] = r.cancelled;
    out["best"] = r.top.empty() ? json() : candidateJson(r.top.front());
    json topList = json::array(), front = json::array();
    for (std::size_t i = 0; i < std::min(top, r.top.size()); ++i) topList.push_back(candidateJson(r.top[i]));
    for (const Candidate& c : r.pareto) front.push_back(candidateJson(c));
    out["top"] = topList;
    out["pareto"] = front;
    if (r.lightestRefused) out["lightest_refused"] = candidateJson(*r.lightestRefused);
    out["advice"] = r.advice;
    out["elapsed_s"] = r.elapsedSeconds;
    out["candidates_per_second"] = double(r.visited) / std::max(r.elapsedSeconds, 1e-9);
    return out.dump(2) + "\n";
}

}  // namespace tessera::core
