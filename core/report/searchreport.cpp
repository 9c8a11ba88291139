#include "report/searchreport.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "doc/emit.h"
#include "io/specwriter.h"
#include "search/strategy.h"
#include "units/units.h"

namespace tessera::core {

namespace {

std::string row(std::size_t rank, const Candidate& c) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, "%4zu %4lld %3lld %3lld %4lld %3lld %3lld %4lld %5lld %3s %-8s %-10s %-12s %8s %10s %12s\n",
                  rank, (long long)c.dp, (long long)c.tp, (long long)c.pp, (long long)c.vpp, (long long)c.cp, (long long)c.ep,
                  (long long)c.mbs, (long long)c.mbn, c.sp ? "yes" : "no",
                  c.sharding().c_str(), recomputeName(c.recompute).c_str(), scheduleName(c.schedule), gibNumber(c.peakMemory).c_str(),
                  formatSeconds(c.stepSeconds).c_str(), countText(c.tokensPerSecond).c_str());
    std::string out = buffer;
    if (c.expertTpUsed() != c.tp)  // the expert layers' own TP degree (resolve/expertgrid.h)
        out.insert(out.size() - 1, "   expert_tp " + std::to_string(c.expertTpUsed()));
    if (c.plan && !c.plan->partition.empty())  // a planned candidate: its own layers per stage
        out.insert(out.size() - 1, "   layers " + partitionText(c.plan->partition));
    return out;
}

const char* kHeader = "rank   dp  tp  pp  vpp  cp  ep  mbs  mb#   sp shard    recompute  schedule     peak GiB       step     tokens/s\n";

nlohmann::ordered_json candidateJson(const Candidate& c) {
    return {{"strategy", toJson(SpecWriter::write(strategyExec(c)))},
            {"peak_memory_bytes", c.peakMemory},
            {"step_time_s", c.stepSeconds},
            {"tokens_per_second", c.tokensPerSecond},
            {"label", c.label()}};
}

}  // namespace

std::vector<std::pair<std::uint64_t, std::string>> refusalsByCount(const SearchResult& r) {
    std::vector<std::pair<std::uint64_t, std::string>> byCount;
    for (const auto& [why, n] : r.refused) byCount.emplace_back(n, why);
    std::sort(byCount.begin(), byCount.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    return byCount;
}

std::string searchSummary(const SearchSetup& setup, const SearchResult& r, bool narrow) {
    const SearchSpace& s = setup.space;
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "Searched %s of %s candidates in %s (%s per second)%s\n",
                  withThousands(std::int64_t(r.visited)).c_str(), withThousands(std::int64_t(r.spaceSize)).c_str(),
                  formatSeconds(r.elapsedSeconds).c_str(),
                  countText(double(r.visited) / std::max(r.elapsedSeconds, 1e-9)).c_str(),
                  r.cancelled ? " - cancelled" : "");
    out += line;
    std::snprintf(line, sizeof line, "%s valid and priced, %s fit in %s GiB\n", withThousands(std::int64_t(r.evaluated)).c_str(),
                  withThousands(std::int64_t(r.feasible)).c_str(), gibNumber(s.memoryLimit).c_str());
    out += line;
    if (!r.refused.empty()) {
        out += "\nRefused:\n";
        for (const auto& [n, why] : refusalsByCount(r)) {
            std::string count = withThousands(std::int64_t(n));
            if (narrow) {
                out += count + " × " + why + "\n\n";
                continue;
            }
            out += "  " + std::string(count.size() < 11 ? 11 - count.size() : 0, ' ') + count + "  " + why + "\n";
        }
    }
    if (r.top.empty()) {
        out += "\nNo strategy fits.\n";
        for (const std::string& a : r.advice) out += "  - " + a + "\n";
    }
    return out;
}

std::string searchText(const SearchSetup& setup, const SearchResult& r, std::size_t top) {
    std::string out = searchSummary(setup, r);
    if (!r.top.empty()) {
        out += "\nBest strategies:\n" + std::string(kHeader);
        for (std::size_t i = 0; i < std::min(top, r.top.size()); ++i) out += row(i + 1, r.top[i]);
        out += "\nPareto front (peak memory against step time):\n" + std::string(kHeader);
        for (std::size_t i = 0; i < r.pareto.size(); ++i) out += row(i + 1, r.pareto[i]);
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
