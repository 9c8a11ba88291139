#include "trainers/mindspeed.h"

#include <algorithm>
#include <map>
#include <optional>

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

// MindSpeed-MM's Qwen2-VL vision tower (image_encoder.vision_encoder, model_id qwen2vit)
// and its projector (vision_projector, model_id lnmlp: LayerNorm, then an MLP over the
// spatial_merge_size² concatenated patches - Qwen2-VL's PatchMerger) as model.vision_*,
// its freeze as exec.freeze_vision_tower. What Tessera cannot price that way is refused by
// name. Returns the keys it read of each module (the rest are listed as not priced).
struct VisionRead {
    std::vector<std::string> encoderKeys, projectorKeys;
};

std::optional<VisionRead> readVision(const Module& encoder, const Module* projector, const Value& body, Value& model, Value& exec,
                                     std::map<std::string, std::string>& assumed, Diagnostics& d) {
    const Value& v = *encoder.map;
    VisionRead read;
    auto refuse = [&](const Value& at, const std::string& path, const std::string& why) {
        d.add(at.mark(), path, why);
        return std::nullopt;
    };
    auto integer = [](const Value* x) { return x && x->kind() == Value::Kind::Int ? x->asInt() : std::int64_t{0}; };
    auto flag = [](const Value* x, bool otherwise) { return x && x->kind() == Value::Kind::Bool ? x->asBool() : otherwise; };
    const std::string at = encoder.path;
    if (v.find("model_id")->kind() != Value::Kind::String || v.find("model_id")->asString() != "qwen2vit")
        return refuse(*v.find("model_id"), at + ".model_id",
                      "Tessera prices MindSpeed's qwen2vit vision encoder (Qwen2-VL's ViT); got " + v.find("model_id")->describe());
    if (!projector) return refuse(v, at, "a vision encoder without a vision_projector beside it: the tower's tokens never reach the text decoder");
    const Value& pj = *projector->map;
    const std::int64_t hv = integer(v.find("hidden_size")), merge = integer(v.find("spatial_merge_size"));
    const std::int64_t llm = integer(v.find("llm_hidden_size")), layers = integer(v.find("num_layers"));
    if (hv <= 0 || merge <= 0 || layers <= 0) return refuse(v, at, "hidden_size, spatial_merge_size and num_layers are required");
    // The projector must be the PatchMerger Tessera prices: LayerNorm over hv, then hv·merge² -> hv·merge² -> llm.
    if (const Value* id = pj.find("model_id"); !id || id->kind() != Value::Kind::String || id->asString() != "lnmlp")
        return refuse(pj, projector->path + ".model_id", "Tessera prices the lnmlp projector (Qwen2-VL's PatchMerger)");
    if (integer(pj.find("input_size")) != hv || integer(pj.find("ffn_hidden_size")) != hv * merge * merge ||
        integer(pj.find("hidden_size")) != llm || flag(pj.find("gated_linear_unit"), false))
        return refuse(pj, projector->path,
                      "expected Qwen2-VL's PatchMerger: input_size = the encoder's hidden_size, ffn_hidden_size = hidden_size · "
                      "spatial_merge_size², hidden_size = llm_hidden_size, no gated_linear_unit");
    if (const Value* bodyWidth = body.find("hidden_size"); integer(bodyWidth) != llm)
        return refuse(v, at + ".llm_hidden_size", "must equal the text decoder's hidden_size");
    // The tower's blocks per stage: whole on the first, or split as exec.vision_partition
    // (resolve checks the order and the text's partition around it).
    if (const Value* split = v.find("pipeline_num_layers"); split && split->isList()) {
        std::int64_t first = -1, sum = 0;
        for (const Value& n : split->items()) sum += integer(&n), first = first < 0 ? integer(&n) : first;
        if (sum != layers)
            return refuse(*split, at + ".pipeline_num_layers",
                          "the stages hold " + std::to_string(sum) + " vision blocks, but num_layers is " + std::to_string(layers));
        if (first != layers) exec.set("vision_partition", *split, split->mark());
    }
    const bool freezeEncoder = flag(v.find("freeze"), false), freezeProjector = flag(pj.find("freeze"), false);
    if (freezeEncoder != freezeProjector)
        return refuse(pj.find("freeze") ? *pj.find("freeze") : pj, projector->path + ".freeze",
                      "Tessera freezes the tower and its projector together (exec.freeze_vision_tower); here one is frozen and "
                      "the other trained");
    const std::string norm = v.find("normalization") && v.find("normalization")->kind() == Value::Kind::String
                                 ? v.find("normalization")->asString() : "LayerNorm";
    if (norm != "LayerNorm" && norm != "RMSNorm") return refuse(*v.find("normalization"), at + ".normalization", "expected LayerNorm or RMSNorm");
    auto set = [&](const char* key, Value value, std::initializer_list<const char*> from) {
        model.set(key, std::move(value), v.mark());
        for (const char* k : from) read.encoderKeys.push_back(k);
    };
    set("vision_hidden_size", Value::integer(hv), {"hidden_size"});
    set("vision_depth", Value::integer(layers), {"num_layers", "pipeline_num_layers", "model_id"});
    set("vision_num_heads", Value::integer(integer(v.find("num_attention_heads"))), {"num_attention_heads"});
    set("vision_intermediate_size", Value::integer(integer(v.find("ffn_hidden_size"))), {"ffn_hidden_size"});
    set("vision_out_hidden_size", Value::integer(llm), {"llm_hidden_size"});
    set("vision_patch_size", Value::integer(integer(v.find("patch_size"))), {"patch_size"});
    set("vision_spatial_merge_size", Value::integer(merge), {"spatial_merge_size"});
    if (v.find("temporal_patch_size")) set("vision_temporal_patch_size", Value::integer(integer(v.find("temporal_patch_size"))), {"temporal_patch_size"});
    if (v.find("in_channels")) set("vision_in_channels", Value::integer(integer(v.find("in_channels"))), {"in_channels"});
    set("vision_norm", Value::string(norm == "LayerNorm" ? "layernorm" : "rmsnorm"), {"normalization"});
    set("vision_gated_mlp", Value::boolean(flag(v.find("gated_linear_unit"), false)), {"gated_linear_unit"});
    set("vision_outer_norms", Value::integer(flag(v.find("post_layer_norm"), false) ? 1 : 0), {"post_layer_norm"});
    // qwen2vit's blocks carry biases (Qwen2-VL's qkv and proj, fc1 and fc2); the projector's
    // add_bias_linear must say the same, since one vision_bias covers both.
    const bool projectorBias = flag(pj.find("add_bias_linear"), true);
    if (const Value* b = v.find("add_bias_linear"); b && flag(b, true) != projectorBias)
        return refuse(*b, at + ".add_bias_linear", "the blocks and the projector must agree on biases (one model.vision_bias)");
    set("vision_bias", Value::boolean(projectorBias), {"add_bias_linear", "add_qkv_bias"});
    if (!v.find("add_bias_linear"))
        assumed["model.vision_bias"] = "qwen2vit's blocks carry biases as Qwen2-VL's do; the projector's add_bias_linear says " +
                                       std::string(projectorBias ? "true" : "false");
    if (freezeEncoder) exec.set("freeze_vision_tower", Value::boolean(true), v.find("freeze")->mark());
    read.encoderKeys.push_back("freeze");
    for (const char* k : {"model_id", "input_size", "hidden_size", "ffn_hidden_size", "gated_linear_unit", "add_bias_linear", "freeze",
                          "num_layers"})
        read.projectorKeys.push_back(k);
    return read;
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
    // The text decoder is the body Tessera prices; a vision encoder is its tower (read
    // below); any other module with layers is refused by name.
    const auto body = std::find_if(towers.begin(), towers.end(), [](const Module& m) { return m.path.ends_with("text_decoder"); });
    const Module chosen = body != towers.end() ? *body : towers.front();
    const Module* encoder = nullptr;
    for (const Module& m : towers)
        if (m.path != chosen.path) {
            if (!encoder && m.path.ends_with("vision_encoder")) {
                encoder = &m;
                continue;
            }
            if (m.path.ends_with("vision_projector")) continue;  // the encoder's, read with it
            d.add(m.map->mark(), m.path.empty() ? "(top)" : m.path,
                  "a second module with layers (" + m.map->find("model_id")->describe() + ") is not representable: Tessera "
                  "prices the text decoder and one vision encoder; the body read is " +
                      (chosen.path.empty() ? "the top-level module" : chosen.path));
        }
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
    std::optional<VisionRead> vision;
    const Module* projector = nullptr;
    if (encoder) {
        const std::string parent = encoder->path.substr(0, encoder->path.size() - std::string("vision_encoder").size());
        for (const Module& m : found)
            if (m.path == parent + "vision_projector") projector = &m;
        Value* model = out.scenario.find("model");
        Value* exec = out.scenario.find("exec");
        if (model && model->isMap() && exec) vision = readVision(*encoder, projector, *chosen.map, *model, *exec, out.assumed, d);
    }
    // Everything outside the modules read is listed, never dropped.
    for (const Module& m : found) {
        if (m.path == chosen.path || m.path.empty()) continue;  // the top level's keys are listed below
        const std::vector<std::string>* read = !vision ? nullptr
                                               : encoder && m.path == encoder->path ? &vision->encoderKeys
                                               : projector && m.path == projector->path ? &vision->projectorKeys
                                                                                        : nullptr;
        // Of a tower read, the keys that change neither memory nor time in Tessera's model
        // (precisions it takes from exec, epsilons, activation kind, fused kernels, zero dropout).
        static const char* const kNoEffect[] = {"activation_func", "layernorm_epsilon", "fp16", "bf16", "params_dtype",
                                                "use_fused_rotary_pos_emb", "bias_activation_fusion", "num_attention_heads"};
        for (const Value::Entry& e : m.map->entries()) {
            if (e.value.isMap() || (read && std::find(read->begin(), read->end(), e.key) != read->end())) continue;
            const bool zeroDropout = e.key.find("dropout") != std::string::npos &&
                                     (e.value.kind() == Value::Kind::Int || e.value.kind() == Value::Kind::Float) && e.value.asDouble() == 0;
            const bool noEffect = read && (zeroDropout || std::find_if(std::begin(kNoEffect), std::end(kNoEffect), [&](const char* k) {
                                                              return e.key == k;
                                                          }) != std::end(kNoEffect));
            out.unpriced.push_back({e.value.mark(), m.path + "." + e.key,
                                    noEffect ? "read: changes neither memory nor time (precision, epsilon, activation kind, fused kernel, zero dropout)"
                                             : read ? "not priced: the vision tower is priced without it"
                                                    : "not priced: outside the module Tessera prices"});
        }
    }
    for (const Value::Entry& e : root.entries())
        if (!e.value.isMap() && !chosen.path.empty())
            out.unpriced.push_back({e.value.mark(), e.key, "not priced: not a key Tessera reads, so it changes nothing it prices"});
    return out;
}

}  // namespace tessera::core::trainers
