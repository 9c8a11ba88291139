#include "report/planreport.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/specwriter.h"
#include "doc/emit.h"
#include "plan/planexec.h"
#include "report/estimatereport.h"
#include "units/units.h"

namespace tessera::core {

namespace {

// The layers of stage s (all chunks) and their ranges of one option, in model order.
struct StageLayers {
    std::vector<std::int64_t> perChunk;
    std::vector<RecomputeRange> ranges;
};

StageLayers stageLayers(const Plan& plan, std::int64_t s) {
    StageLayers out;
    const std::int64_t p = std::int64_t(plan.partition.front().size());
    std::int64_t start = 0;
    for (std::size_t c = 0; c < plan.partition.size(); ++c)
        for (std::int64_t t = 0; t < p; ++t) {
            const std::int64_t n = plan.partition[c][std::size_t(t)];
            if (t == s) {
                out.perChunk.push_back(n);
                // The MTP layers after the body ride on the last stage when not in the partition.
                const bool tail = t == p - 1 && c + 1 == plan.partition.size();
                const std::int64_t end = tail ? std::int64_t(plan.layerClass.size()) : start + n;
                for (const RecomputeRange& r : planRanges(plan)) {
                    const std::int64_t a = std::max(r.first, start), b = std::min(r.first + *r.count, end);
                    if (a < b) out.ranges.push_back({a, b - a, r.option, r.ops});
                }
            }
            start += n;
        }
    return out;
}

std::string rangeText(const RecomputeRange& r) {
    std::string layers = r.count == 1 ? std::to_string(r.first) : std::to_string(r.first) + "-" + std::to_string(r.first + *r.count - 1);
    std::string option = r.option;
    if (r.ops) {
        option += " (";
        for (std::size_t i = 0; i < r.ops->size(); ++i) option += (i ? ", " : "") + (*r.ops)[i].first;
        option += ")";
    }
    return layers + " " + option;
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.resize(width, ' ');
    return s;
}

}  // namespace

std::string planText(const PlanReport& rep) {
    const Plan& plan = rep.plan;
    std::ostringstream out;
    out << headline(rep.stated) << '\n' << strategyLine(rep.stated) << "\n\n";
    if (!plan.planned) {
        out << "No plan: " << plan.why << '\n';
        return out.str();
    }
    out << "Budget " << formatGiB(plan.budget) << " per device. ";
    if (plan.fits)
        out << "Planned step " << formatSeconds(plan.stepSeconds) << " (stated " << formatSeconds(rep.before.stepSeconds)
            << (rep.before.fits ? "" : ", does not fit") << "); peak " << formatGiB(plan.peakMemory) << " (stated "
            << formatGiB(rep.before.peakMemory) << ").\n";
    else
        out << "Nothing fits: the lightest plan (below) needs " << formatGiB(plan.peakMemory) << " on its heaviest stage.\n";
    if (!plan.note.empty()) out << "Note: " << plan.note << ".\n";
    if (plan.offload.empty()) {
        out << "Offload: not planned" << (plan.note.find("offload") == std::string::npos
                                               ? " (tessera plan --offload lets stages offload their first layers)" : "")
            << ".\n\n";
    } else {
        std::string counts;
        for (std::int64_t k : plan.offload) counts += (counts.empty() ? "" : ", ") + std::to_string(k);
        out << "Offload: the first layers of each stage whose activations go to the host, per stage: " << counts << ".\n\n";
    }
    std::size_t layersWidth = 12;  // chunk counts joined by + can be long (vpp 8)
    for (std::size_t s = 0; s < plan.stagePeak.size(); ++s) {
        std::size_t w = 0;
        for (std::int64_t n : stageLayers(plan, std::int64_t(s)).perChunk) w += std::to_string(n).size() + 1;
        layersWidth = std::max(layersWidth, w + 2);
    }
    out << pad("Stage", 7) << pad("Layers", layersWidth) << pad("Peak stated", 13) << pad(plan.fits ? "Peak planned" : "Lightest", 13)
        << pad(plan.fits ? "" : "Misses", plan.fits ? 0 : 11) << pad("Time stated", 13) << pad("Time planned", 14) << "Recompute\n";
    const auto& stagesAfter = rep.after ? rep.after->stages : std::vector<StageEstimate>{};
    for (std::size_t s = 0; s < plan.stagePeak.size(); ++s) {
        const StageLayers l = stageLayers(plan, std::int64_t(s));
        std::string layers;
        for (std::size_t c = 0; c < l.perChunk.size(); ++c) layers += (c ? "+" : "") + std::to_string(l.perChunk[c]);
        std::string recompute;
        for (const RecomputeRange& r : l.ranges) recompute += (recompute.empty() ? "" : ", ") + rangeText(r);
        const StageEstimate& b = rep.before.stages[s];
        out << pad(std::to_string(s), 7) << pad(layers, layersWidth) << pad(formatGiB(b.memory.total()), 13)
            << pad(formatGiB(plan.stagePeak[s]), 13);
        if (!plan.fits) out << pad(plan.stageMiss[s] > 0 ? formatGiB(plan.stageMiss[s]) : "fits", 11);
        if (!plan.offload.empty() && plan.offload[s] > 0) recompute += "; offloads its first " + std::to_string(plan.offload[s]);
        out << pad(formatSeconds(b.time.perMicroBatch()), 13)
            << pad(s < stagesAfter.size() ? formatSeconds(stagesAfter[s].time.perMicroBatch()) : "-", 14) << recompute << '\n';
    }
    if (plan.fits && rep.planned) {
        ExecSpec only;
        only.pp_partition = rep.planned->scenario.exec.pp_partition;
        only.recompute = rep.planned->scenario.exec.recompute;
        if (!plan.offload.empty()) only.activation_offload = rep.planned->scenario.exec.activation_offload;
        out << "\nState it in the exec section (tessera plan FILE -o OUT writes the scenario):\n"
            << toYaml(SpecWriter::write(only));
    }
    return out.str();
}

std::string planJson(const PlanReport& rep) {
    const Plan& plan = rep.plan;
    nlohmann::ordered_json j;
    j["planned"] = plan.planned;
    if (!plan.planned) {
        j["why"] = plan.why;
        return j.dump(2) + "\n";
    }
    j["fits"] = plan.fits;
    j["budget_bytes"] = plan.budget;
    j["step_seconds"] = plan.stepSeconds;
    j["peak_bytes"] = plan.peakMemory;
    j["stated"] = {{"step_seconds", rep.before.stepSeconds}, {"peak_bytes", rep.before.peakMemory}, {"fits", rep.before.fits}};
    if (plan.offload.empty()) j["offload"] = "not planned";
    else j["offload"] = plan.offload;
    if (!plan.note.empty()) j["note"] = plan.note;
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < plan.stagePeak.size(); ++s) {
        const StageLayers l = stageLayers(plan, std::int64_t(s));
        nlohmann::ordered_json st;
        st["stage"] = s;
        st["layers"] = l.perChunk;
        nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
        for (const RecomputeRange& r : l.ranges) {
            nlohmann::ordered_json x{{"first", r.first}, {"count", *r.count}, {"option", r.option}};
            if (r.ops) {
                nlohmann::ordered_json ops = nlohmann::ordered_json::object();
                for (const auto& [op, state] : *r.ops) ops[op] = state;
                x["ops"] = ops;
            }
            ranges.push_back(x);
        }
        st["recompute"] = ranges;
        st["peak_bytes_stated"] = rep.before.stages[s].memory.total();
        st["peak_bytes"] = plan.stagePeak[s];
        st["misses_bytes"] = plan.stageMiss[s];
        st["seconds_per_micro_batch_stated"] = rep.before.stages[s].time.perMicroBatch();
        if (rep.after) st["seconds_per_micro_batch"] = rep.after->stages[s].time.perMicroBatch();
        stages.push_back(st);
    }
    j["stages"] = stages;
    if (plan.fits && rep.planned) {
        ExecSpec only;
        only.pp_partition = rep.planned->scenario.exec.pp_partition;
        only.recompute = rep.planned->scenario.exec.recompute;
        if (!plan.offload.empty()) only.activation_offload = rep.planned->scenario.exec.activation_offload;
        j["exec"] = toJson(SpecWriter::write(only));
    }
    j["work"] = {{"stage_problems", plan.stageProblems}, {"labels", plan.labels}};
    return j.dump(2) + "\n";
}

}  // namespace tessera::core
