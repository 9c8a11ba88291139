#include <filesystem>
#include <set>

#include "io/hfimport.h"
#include "io/seedsearch.h"
#include "trainers/launch.h"
#include "trainers/megatron.h"
#include "trainers/mindformers.h"
#include "trainers/mindspeed.h"
#include "trainers/toml.h"
#include "trainers/torchtitan.h"
#include "trainyaml/trainyaml.h"

namespace tessera::core {

using namespace trainers;

std::string formatName(ConfigFormat format) {
    switch (format) {
    case ConfigFormat::HfConfig: return "Hugging Face config.json";
    case ConfigFormat::TrainYaml: return "HyperParallel train.yaml";
    case ConfigFormat::SeedSearch: return "HyperParallel search configuration";
    case ConfigFormat::MegatronArgs: return "Megatron-LM arguments";
    case ConfigFormat::MegatronYaml: return "Megatron-LM YAML configuration";
    case ConfigFormat::Torchtitan: return "torchtitan job configuration (TOML)";
    case ConfigFormat::MindSpeed: return "MindSpeed model JSON";
    case ConfigFormat::MindFormers: return "MindFormers YAML";
    }
    return "?";
}

namespace {

bool isTrainYaml(const Value& root) {
    if (!root.isMap()) return false;
    if (const Value* train = root.find("train"); train && train->isMap() && train->find("accelerator")) return true;
    for (const char* key : {"accelerator", "fsdp_config", "activation_checkpoint"})
        if (root.find(key)) return true;
    const Value* model = root.find("model");
    return model && model->isMap() && (model->find("config_overrides") || model->find("pretrained_model_name_or_path"));
}

// The document a YAML or JSON file holds, or nullopt when the text is neither.
std::optional<Value> structured(std::string_view text, const std::string& name) {
    const Format format = formatForName(name);
    try {
        Value v = parseDocument(text, name, format);
        if (v.isMap()) return v;
    } catch (const LoadError&) {
        if (format == Format::Json || (!looksLikeMegatronArgs(text) && !looksLikeToml(text))) throw;
    }
    return std::nullopt;
}

// Where every value the reader wrote into the scenario stood in the file.
void positions(const Value& v, std::set<std::pair<int, int>>& out) {
    if (v.mark().line) out.insert({v.mark().line, v.mark().column});
    for (const Value& item : v.items()) positions(item, out);
    for (const Value::Entry& e : v.entries()) positions(e.value, out);
}

// The file's values no reader carried into the scenario: what the readers Tessera
// already had (config.json's, train.yaml's) read from a file, they keep the place of.
void listUnused(const Value& source, const std::string& path, const std::set<std::pair<int, int>>& used,
                const std::string& why, std::vector<Unpriced>& out) {
    for (const Value::Entry& e : source.entries()) {
        const std::string at = path.empty() ? e.key : path + "." + e.key;
        if (e.value.isMap()) listUnused(e.value, at, used, why, out);
        else if (!e.value.isNull() && e.value.mark().line && !used.contains({e.value.mark().line, e.value.mark().column}))
            out.push_back({e.value.mark(), at, why});
    }
}

void listUnused(const Value& source, Imported& imported, const std::string& why) {
    std::set<std::pair<int, int>> used;
    positions(imported.scenario, used);
    listUnused(source, "", used, why, imported.unpriced);
}

}  // namespace

std::optional<ConfigFormat> detectFormat(std::string_view text, const std::string& name, std::string* why) {
    if (looksLikeToml(text)) return ConfigFormat::Torchtitan;
    if (const std::optional<Value> doc = structured(text, name)) {
        if (isHfConfig(*doc)) return ConfigFormat::HfConfig;
        if (isSeedSearchConfig(*doc)) return ConfigFormat::SeedSearch;
        if (isMegatronYaml(*doc)) return ConfigFormat::MegatronYaml;
        if (isMindFormersConfig(*doc)) return ConfigFormat::MindFormers;
        if (isMindSpeedConfig(*doc)) return ConfigFormat::MindSpeed;
        if (isTrainYaml(*doc)) return ConfigFormat::TrainYaml;
        if (why) *why = "a mapping whose sections (" + [&] {
            std::string keys;
            for (const Value::Entry& e : doc->entries()) keys += (keys.empty() ? "" : ", ") + e.key;
            return keys.substr(0, 120);
        }() + ") are none of the formats Tessera reads";
        return std::nullopt;
    }
    if (looksLikeMegatronArgs(text)) return ConfigFormat::MegatronArgs;
    if (why) *why = "neither a YAML or JSON mapping, a TOML job configuration, nor Megatron-LM arguments (--num-layers, ...)";
    return std::nullopt;
}

Imported importConfig(std::string_view text, const std::string& name, const std::string& baseDir, const ImportCluster& cluster,
                      Diagnostics& d) {
    const Mark top{name, 1, 1};
    if (text.size() > kMaxFileBytes) {
        d.add(Mark{name, 0, 0}, "", "the text is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxFileBytes));
        return {};
    }
    std::string why;
    const std::optional<ConfigFormat> format = detectFormat(text, name, &why);
    if (!format) {
        d.add(top, "", "not a configuration Tessera reads: " + why);
        return {};
    }
    Imported out;
    out.format = *format;
    switch (*format) {
    case ConfigFormat::Torchtitan: return readTorchtitan(parseToml(text, name), baseDir, cluster, d);
    case ConfigFormat::MegatronArgs: return readMegatron(parseLaunch(text, name, d), *format, top, cluster, d);
    case ConfigFormat::MegatronYaml: {
        const Value doc = parseDocument(text, name, formatForName(name));
        return readMegatron(megatronYamlArgs(doc, d), *format, doc.mark(), cluster, d);
    }
    case ConfigFormat::HfConfig: {
        // The one call into the Hugging Face importer: its model section, nothing else.
        const Value doc = parseDocument(text, name, Format::Json);
        out.scenario = Value::map(doc.mark());
        const HfImport hf = importHf(doc, d);
        out.scenario.set("model", hf.model);
        Value c = Value::map();
        if (cluster.device) c.set("device", *cluster.device);
        if (cluster.devices) c.set("devices", Value::integer(*cluster.devices));
        out.scenario.set("exec", Value::map());
        out.scenario.set("cluster", std::move(c));
        // The importer's own account of what it left: keys that may matter, and keys
        // that change neither memory nor time ("text_config.rope_theta" is found nested).
        auto at = [&](const std::string& key) {
            const Value* v = &doc;
            for (std::size_t from = 0; v;) {
                const std::size_t dot = key.find('.', from);
                v = v->isMap() ? v->find(key.substr(from, dot == std::string::npos ? std::string::npos : dot - from)) : nullptr;
                if (dot == std::string::npos) break;
                from = dot + 1;
            }
            return v ? v->mark() : doc.mark();
        };
        for (const std::string& k : hf.unpriced)
            out.unpriced.push_back({at(k), k, "not priced: the model is priced without it (model.unpriced_keys)"});
        for (const std::string& k : hf.noEffect)
            out.unpriced.push_back({at(k), k, "read: changes neither memory nor time (token ids, RoPE, epsilons, ...)"});
        for (const auto& [key, why] : hf.classDefaults) out.assumed["model." + key] = why;
        return out;
    }
    case ConfigFormat::SeedSearch: {
        const Value doc = parseDocument(text, name, formatForName(name));
        out.scenario = scenarioFromSeedSearch(doc, d, &out.assumed);
        return out;
    }
    case ConfigFormat::TrainYaml: {
        const Value doc = parseDocument(text, name, formatForName(name));
        TrainCluster tc;
        tc.device = cluster.device;
        tc.devices = cluster.devices;
        out.scenario = trainScenario(doc, baseDir, tc, d);
        listUnused(doc, out, "not priced: not a key Tessera reads, so it changes nothing it prices");
        return out;
    }
    case ConfigFormat::MindSpeed: return readMindSpeed(parseDocument(text, name, formatForName(name)), cluster, d);
    case ConfigFormat::MindFormers: return readMindFormers(parseDocument(text, name, formatForName(name)), cluster, d);
    }
    return out;
}

std::optional<ExportTarget> exportTargetOf(std::string_view name) {
    if (name == "megatron") return ExportTarget::Megatron;
    if (name == "torchtitan") return ExportTarget::Torchtitan;
    if (name == "train-yaml") return ExportTarget::TrainYaml;
    return std::nullopt;
}

Exported exportScenario(const ResolvedScenario& r, ExportTarget target) {
    switch (target) {
    case ExportTarget::Megatron: return writeMegatron(r);
    case ExportTarget::Torchtitan: return writeTorchtitan(r);
    case ExportTarget::TrainYaml: {
        // HyperParallel's writer refuses (throws) what its trainer would run otherwise.
        Exported out;
        out.text = trainYaml(r, nullptr);
        out.unexpressed = trainYamlUnexpressed(r);
        return out;
    }
    }
    return {};
}

}  // namespace tessera::core
