#include "trainers/mindspeed.h"

#include <algorithm>

#include "trainers/launch.h"
#include "trainers/megatron.h"

namespace tessera::core::trainers {

namespace {

struct Module {
    std::string path;
    const Value* map;
};

void modules(const Value& v, const std::string& path, std::vector<Module>& out) {
    if (!v.isMap()) return;
    if (v.find("model_id")) out.push_back({path, &v});
    for (const Value::Entry& e : v.entries())
        if (e.value.isMap()) modules(e.value, path.empty() ? e.key : path + "." + e.key, out);
}

bool hasLayers(const Value& m) {
    const Value* n = m.find("num_layers");
    return n && n->kind() == Value::Kind::Int && n->asInt() > 0;
}

}  // namespace

bool isMindSpeedConfig(const Value& root) {
    if (!root.isMap()) return false;
    std::vector<Module> found;
    modules(root, "", found);
    return std::any_of(found.begin(), found.end(), [](const Module& m) { return hasLayers(*m.map); });
}

Imported readMindSpeed(const Value& root, const ImportCluster& cluster, Diagnostics& d) {
    std::vector<Module> found;
    modules(root, "", found);
    std::vector<Module> towers;
    for (const Module& m : found)
        if (hasLayers(*m.map)) towers.push_back(m);
    // The text decoder is the body Tessera prices; a second tower is refused by name.
    const auto body = std::find_if(towers.begin(), towers.end(), [](const Module& m) { return m.path.ends_with("text_decoder"); });
    const Module chosen = body != towers.end() ? *body : towers.front();
    for (const Module& m : towers)
        if (m.path != chosen.path)
            d.add(m.map->mark(), m.path.empty() ? "(top)" : m.path,
                  "a second module with layers (" + m.map->find("model_id")->describe() + ") is not yet representable from "
                  "MindSpeed: Tessera prices a Qwen2-VL vision tower from a config.json (model.vision_*), but not a tower "
                  "its trainer freezes or places by its own pipeline_num_layers; the body read is " +
                      (chosen.path.empty() ? "the top-level module" : chosen.path));
    // The chosen module as Megatron-LM arguments, its pipeline split apart.
    Launch launch;
    const Value* split = nullptr;
    for (const Value::Entry& e : chosen.map->entries()) {
        if (e.value.isNull() || e.value.isMap()) continue;
        if (e.key == "pipeline_num_layers") {
            split = &e.value;
            continue;
        }
        Value one = Value::map(root.mark());
        one.set(e.key, e.value, e.keyMark);
        Launch part = megatronYamlArgs(one, d);
        for (LaunchArg& a : part.args) {
            a.spelled = (chosen.path.empty() ? "" : chosen.path + ".") + e.key;
            launch.args.push_back(std::move(a));
        }
    }
    ImportCluster c = cluster;
    Imported out = readMegatron(launch, ConfigFormat::MindSpeed, root.mark(), c, d);
    if (split && split->isList()) {
        Value* exec = out.scenario.find("exec");
        Value stages = Value::list(split->mark());
        bool any = false;
        for (const Value& n : split->items()) {
            stages.push(n);
            any = any || (n.kind() == Value::Kind::Int && n.asInt() > 0);
        }
        if (any && split->items().size() > 1) exec->set("pp_partition", std::move(stages), split->mark());
        if (any && split->items().size() > 1 && !exec->find("pp"))
            exec->set("pp", Value::integer(std::int64_t(split->items().size()), split->mark()), split->mark());
    }
    // Everything outside the chosen module is listed, never dropped.
    for (const Module& m : found)
        if (m.path != chosen.path)
            for (const Value::Entry& e : m.map->entries())
                if (!e.value.isMap()) out.unpriced.push_back({e.value.mark(), m.path + "." + e.key, "not priced: outside the module Tessera prices"});
    for (const Value::Entry& e : root.entries())
        if (!e.value.isMap() && !chosen.path.empty())
            out.unpriced.push_back({e.value.mark(), e.key, "not priced: not a key Tessera reads, so it changes nothing it prices"});
    return out;
}

}  // namespace tessera::core::trainers
