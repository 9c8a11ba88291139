#include "report/showreport.h"

#include "doc/emit.h"
#include "io/scenarioio.h"
#include "io/specwriter.h"
#include "model/priced.h"
#include "units/units.h"

namespace tessera::core {

Value resolvedValue(const ResolvedScenario& r) {
    Value root = scenarioValue(r.scenario);
    Value cluster = *root.find("cluster");
    if (r.scenario.cluster.device) cluster.set("device", SpecWriter::write(*r.scenario.cluster.device));
    root.set("cluster", std::move(cluster));
    return root;
}

Value parametersValue(const ParameterCount& c) {
    Value byKind = Value::map();
    for (auto [key, n] : {std::pair{"embedding", c.embedding}, {"positions", c.positions}, {"attention", c.attention},
                          {"mlp", c.mlp}, {"router", c.router}, {"routed_experts", c.routedExperts},
                          {"shared_experts", c.sharedExperts}, {"norms", c.norms}, {"output", c.output}, {"mtp", c.mtp},
                          {"vision", c.vision}}) {
        if (n != 0) byKind.set(key, Value::integer(n));
    }
    Value layers = Value::list();
    for (const KindCount& k : c.byLayerKind) {
        Value row = Value::map();
        row.set("kind", Value::string(k.kind.name()));
        row.set("layers", Value::integer(k.layers));
        row.set("per_layer", Value::integer(k.perLayer));
        layers.push(std::move(row));
    }
    Value out = Value::map();
    out.set("total", Value::integer(c.total()));
    if (c.mtp != 0) out.set("without_mtp", Value::integer(c.body()));
    if (c.active != c.body()) out.set("active", Value::integer(c.active));
    out.set("by_kind", std::move(byKind));
    out.set("by_layer_kind", std::move(layers));
    return out;
}

std::string showText(const ResolvedScenario& r) {
    const ParameterCount count = countParameters(r.scenario.model);
    std::string out = "# " + r.scenario.source + ", resolved. Fields the file did not state are marked with\n"
                      "# where they came from: the model's family, a run default, or a derivation.\n";
    const std::vector<NotPriced> unpriced = notPriced(r.scenario);
    const CommentFor comment = [&](const std::string& path) {
        for (const NotPriced& n : unpriced)
            if (n.key == path) return "not priced: " + n.why;
        if (auto it = r.filled.find(path); it != r.filled.end()) return it->second.text();
        if (path == "cluster.device" && r.scenario.cluster.device_preset) return "preset " + *r.scenario.cluster.device_preset;
        if (path == "cluster.device.memory" && r.scenario.cluster.device) return formatGiB(*r.scenario.cluster.device->memory);
        return std::string();
    };
    out += toYaml(resolvedValue(r), comment);
    Value params = Value::map();
    params.set("parameters", parametersValue(count));
    const CommentFor paramComment = [&](const std::string& path) -> std::string {
        if (path == "parameters.total") return withThousands(count.total());
        if (path == "parameters.without_mtp") return withThousands(count.body());
        if (path == "parameters.active") return withThousands(count.active) + " per token";
        return {};
    };
    out += toYaml(params, paramComment);
    std::string stages = "# Layers per stage (chunk by chunk):";
    for (const auto& chunk : r.partition.layers) {
        stages += " [";
        for (std::size_t s = 0; s < chunk.size(); ++s) stages += (s ? ", " : "") + std::to_string(chunk[s]);
        stages += "]";
    }
    return out + stages + "\n";
}

std::string showSearchText(const Scenario& s, const Diagnostic& notOneRun) {
    std::string out = "# " + s.source + ": a search, read as the scenario below. As one run it is not complete\n# (" +
                      notOneRun.path + ": " + notOneRun.message + ").\n";
    const std::vector<NotPriced> unpriced = notPriced(s);
    const CommentFor comment = [&](const std::string& path) {
        for (const NotPriced& n : unpriced)
            if (n.key == path) return "not priced: " + n.why;
        if (auto it = s.assumed.find(path); it != s.assumed.end()) return "imported: " + it->second;
        return std::string();
    };
    return out + toYaml(scenarioValue(s), comment);
}

std::string showSearchJson(const Scenario& s, const Diagnostic& notOneRun) {
    nlohmann::ordered_json out;
    out["source"] = s.source;
    out["scenario"] = toJson(scenarioValue(s));
    auto imported = nlohmann::ordered_json::object();
    for (const auto& [path, why] : s.assumed) imported[path] = why;
    out["imported"] = imported;
    out["not_one_run"] = {{"path", notOneRun.path}, {"message", notOneRun.message}};
    auto unpriced = nlohmann::ordered_json::array();
    for (const NotPriced& n : notPriced(s)) unpriced.push_back({{"key", n.key}, {"value", n.value}, {"why", n.why}});
    out["not_priced"] = unpriced;
    return out.dump(2) + "\n";
}

std::string showJson(const ResolvedScenario& r) {
    nlohmann::ordered_json out;
    out["source"] = r.scenario.source;
    out["scenario"] = toJson(resolvedValue(r));
    auto filled = nlohmann::ordered_json::object();
    for (const auto& [path, f] : r.filled) filled[path] = f.text();
    out["filled"] = filled;
    out["parameters"] = toJson(parametersValue(countParameters(r.scenario.model)));
    out["partition"] = r.partition.layers;
    auto unpriced = nlohmann::ordered_json::array();
    for (const NotPriced& n : notPriced(r.scenario)) unpriced.push_back({{"key", n.key}, {"value", n.value}, {"why", n.why}});
    out["not_priced"] = unpriced;
    return out.dump(2) + "\n";
}

}  // namespace tessera::core
