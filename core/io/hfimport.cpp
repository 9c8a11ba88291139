#include "io/hfimport.h"

#include <algorithm>

#include "spec/modelspec.h"

namespace tessera::core {

namespace {

struct Alias {
    std::string_view key;
    std::initializer_list<std::string_view> hf;  // first present wins
};

// Model key <- HF names, in Tessera's field order. The layer layouts (layer_types,
// sliding_window, ...) are read by hf::deriveLayout.
const Alias kAliases[] = {
    {"hidden_size", {"hidden_size", "n_embd", "d_model"}},
    {"num_hidden_layers", {"num_hidden_layers", "n_layer", "num_layers"}},
    {"num_attention_heads", {"num_attention_heads", "n_head"}},
    {"num_key_value_heads", {"num_key_value_heads", "multi_query_group_num"}},
    {"head_dim", {"head_dim"}},
    {"intermediate_size", {"intermediate_size", "n_inner", "ffn_hidden_size"}},
    {"vocab_size", {"vocab_size", "padded_vocab_size"}},
    {"max_position_embeddings", {"max_position_embeddings", "n_positions", "seq_length"}},
    {"hidden_act", {"hidden_act", "activation_function", "hidden_activation"}},
    {"attention_bias", {"attention_bias"}},
    {"mlp_bias", {"mlp_bias"}},
    {"tie_word_embeddings", {"tie_word_embeddings"}},
    {"attention_dropout", {"attention_dropout", "attn_pdrop"}},
    {"hidden_dropout", {"hidden_dropout", "resid_pdrop"}},
    {"qk_norm", {"qk_norm", "use_qk_norm", "qk_layernorm"}},
    {"attn_output_gate", {"attn_output_gate"}},
    {"num_experts", {"num_experts", "n_routed_experts", "num_local_experts"}},
    {"num_experts_per_tok", {"num_experts_per_tok", "moe_topk", "experts_per_token"}},
    {"num_shared_experts", {"n_shared_experts", "num_shared_experts"}},
    {"moe_intermediate_size", {"moe_intermediate_size"}},
    {"shared_expert_intermediate_size", {"shared_expert_intermediate_size"}},
    {"first_k_dense_replace", {"first_k_dense_replace"}},
    {"n_group", {"n_group"}},
    {"topk_group", {"topk_group"}},
    {"moe_layer_freq", {"moe_layer_freq"}},
    {"q_lora_rank", {"q_lora_rank"}},
    {"kv_lora_rank", {"kv_lora_rank"}},
    {"qk_rope_head_dim", {"qk_rope_head_dim"}},
    {"qk_nope_head_dim", {"qk_nope_head_dim"}},
    {"v_head_dim", {"v_head_dim"}},
    {"mtp_depth", {"mtp_depth", "num_nextn_predict_layers", "mtp_num_hidden_layers"}},
    {"linear_num_key_heads", {"linear_num_key_heads"}},
    {"linear_key_head_dim", {"linear_key_head_dim"}},
    {"linear_num_value_heads", {"linear_num_value_heads"}},
    {"linear_value_head_dim", {"linear_value_head_dim"}},
    {"linear_conv_kernel_dim", {"linear_conv_kernel_dim"}},
};

// model_type -> Tessera family. VL towers name themselves "<type>_text". Phi-3 and
// InternLM2 fuse their projections (qkv_proj / wqkv, gate_up_proj) but hold Llama's
// matrices (transformers/models/phi3/modeling_phi3.py; InternLM2's remote code).
const std::pair<std::string_view, std::string_view> kFamilies[] = {
    {"gpt2", "gpt"},          {"openai-gpt", "gpt"},       {"llama", "llama"},          {"mistral", "llama"},
    {"phi3", "llama"},        {"internlm2", "llama"},      {"qwen2", "qwen"},           {"qwen2_moe", "qwen"},
    {"qwen2_vl", "qwen"},     {"qwen2_5_vl", "qwen"},      {"qwen3", "qwen3"},          {"qwen3_moe", "qwen3"},
    {"qwen3_vl", "qwen3"},    {"qwen3_vl_moe", "qwen3"},   {"mixtral", "mixtral"},      {"deepseek_v2", "deepseek"},
    {"deepseek_v3", "deepseek"}, {"kimi_k2", "deepseek"},  {"qwen3_next", "qwen3_next"}, {"gpt_oss", "gpt_oss"},
    {"gemma2", "gemma2"},     {"gemma3", "gemma3"},        {"llama4", "llama4"},        {"glm4_moe", "glm4_moe"},
    {"olmo2", "olmo2"},
};

// Architectures class -> family, for a model_type Tessera does not know.
const std::pair<std::string_view, std::string_view> kArchitectures[] = {
    {"LlamaForCausalLM", "llama"},      {"MistralForCausalLM", "llama"},     {"Phi3ForCausalLM", "llama"},
    {"InternLM2ForCausalLM", "llama"},  {"Qwen2ForCausalLM", "qwen"},        {"Qwen2MoeForCausalLM", "qwen"},
    {"Qwen3ForCausalLM", "qwen3"},      {"Qwen3MoeForCausalLM", "qwen3"},    {"MixtralForCausalLM", "mixtral"},
    {"DeepseekV2ForCausalLM", "deepseek"}, {"DeepseekV3ForCausalLM", "deepseek"}, {"Qwen3NextForCausalLM", "qwen3_next"},
    {"GptOssForCausalLM", "gpt_oss"},   {"Gemma2ForCausalLM", "gemma2"},     {"Gemma3ForCausalLM", "gemma3"},
    {"Gemma3ForConditionalGeneration", "gemma3"}, {"Llama4ForCausalLM", "llama4"},
    {"Llama4ForConditionalGeneration", "llama4"}, {"Glm4MoeForCausalLM", "glm4_moe"}, {"Olmo2ForCausalLM", "olmo2"},
    {"GPT2LMHeadModel", "gpt"},
};

const Value* present(const Value& map, std::string_view key) {
    const Value* v = map.find(key);
    return v && !v->isNull() ? v : nullptr;
}

std::string text(const Value* v) { return v && v->kind() == Value::Kind::String ? v->asString() : std::string(); }

template <class Table>
std::string lookup(const Table& table, std::string_view key) {
    for (const auto& [from, to] : table)
        if (from == key) return std::string(to);
    return {};
}

// The family, by model_type (the tower's, then the root's), else by architectures.
std::string familyOf(const Value& config, const Value& tower, const std::string& modelType, Diagnostics& d) {
    if (std::string f = lookup(kFamilies, modelType); !f.empty()) return f;
    if (const Value* archs = present(config, "architectures"); archs && archs->isList())
        for (const Value& a : archs->items())
            if (std::string f = lookup(kArchitectures, text(&a)); !f.empty()) return f;
    std::string known;
    for (auto& p : kFamilies) known += (known.empty() ? "" : ", ") + std::string(p.first);
    const Value* type = present(tower, "model_type") ? present(tower, "model_type") : present(config, "model_type");
    d.add(type ? type->mark() : config.mark(), "model_type",
          "cannot tell the architecture family of model_type " + (type ? type->describe() : std::string("(absent)")) +
              " or its architectures; known: " + known + ". Import it and state arch in the model section");
    return {};
}

// MoE layout as Qwen2/Qwen3-MoE state it: MoE on every decoder_sparse_step-th layer
// counted from 1, except mlp_only_layers (Qwen2MoeDecoderLayer).
void qwenMoeLayout(const Value& tower, Value& out, std::vector<std::string>& read, Diagnostics& d) {
    const Value* step = present(tower, "decoder_sparse_step");
    const Value* dense = present(tower, "mlp_only_layers");
    if (step) read.push_back("decoder_sparse_step");
    if (dense) read.push_back("mlp_only_layers");
    if (!present(out, "num_experts")) return;
    const Value* layers = present(out, "num_hidden_layers");
    if (step && step->kind() != Value::Kind::Int) {
        d.add(step->mark(), "decoder_sparse_step", "expected a whole number, got " + step->describe());
        return;
    }
    if (dense && !dense->isList()) {
        d.add(dense->mark(), "mlp_only_layers", "expected a list of layer indices, got " + dense->describe());
        return;
    }
    const std::int64_t every = step ? step->asInt() : 1;
    std::vector<std::int64_t> denseAt;
    if (dense)
        for (const Value& item : dense->items()) {
            if (item.kind() != Value::Kind::Int) return d.add(item.mark(), "mlp_only_layers", "expected a layer index, got " + item.describe());
            denseAt.push_back(item.asInt());
        }
    // A leading run of dense layers and MoE everywhere else reads as DeepSeek's keys.
    std::sort(denseAt.begin(), denseAt.end());
    bool leading = true;
    for (std::size_t i = 0; i < denseAt.size(); ++i) leading &= denseAt[i] == std::int64_t(i);
    if (every == 1 && leading) {
        if (!denseAt.empty() && !out.find("first_k_dense_replace"))
            out.set("first_k_dense_replace", Value::integer(std::int64_t(denseAt.size()), dense->mark()));
        if (step && !out.find("moe_layer_freq")) out.set("moe_layer_freq", Value::integer(1, step->mark()));
        return;
    }
    if (!layers || layers->kind() != Value::Kind::Int || every < 1) return;  // the resolver asks for what is missing
    Value types = Value::list(step ? step->mark() : dense->mark());
    for (std::int64_t i = 0; i < layers->asInt() && i < (std::int64_t{1} << 20); ++i) {
        const bool moe = (i + 1) % every == 0 && !std::binary_search(denseAt.begin(), denseAt.end(), i);
        types.push(Value::string(moe ? "moe" : "dense", types.mark()));
    }
    out.set("mlp_layer_types", types, types.mark());
}

// Llama 4's text tower: experts at intermediate_size, dense layers at
// intermediate_size_mlp, one shared expert of the experts' width (Llama4TextMoe).
void llama4Widths(const Value& tower, Value& out, std::vector<std::string>& read) {
    const Value* experts = present(tower, "intermediate_size");
    if (experts && present(out, "num_experts")) {
        out.set("moe_intermediate_size", *experts, experts->mark());
        out.set("num_shared_experts", Value::integer(1, experts->mark()));
        out.set("shared_expert_intermediate_size", *experts, experts->mark());
        out.erase("intermediate_size");
    }
    if (const Value* dense = present(tower, "intermediate_size_mlp")) {
        read.push_back("intermediate_size_mlp");
        out.set("intermediate_size", *dense, dense->mark());
    }
}

// Keys of `map` neither read nor without effect, named with `prefix`.
void unreadKeys(const Value& map, const std::string& prefix, const std::vector<std::string>& read, HfImport& result) {
    for (const Value::Entry& e : map.entries()) {
        if (std::find(read.begin(), read.end(), e.key) != read.end()) continue;
        const bool off = e.value.isNull() || (e.value.kind() == Value::Kind::Bool && !e.value.asBool()) ||
                         ((e.value.kind() == Value::Kind::Int || e.value.kind() == Value::Kind::Float) && e.value.asDouble() == 0 &&
                          (e.key.find("dropout") != std::string::npos || e.key.find("pdrop") != std::string::npos));
        if (hf::hasNoEffect(e.key) || (off && e.key != "vision_config")) result.noEffect.push_back(prefix + e.key);
        else result.unpriced.push_back(prefix + e.key);
    }
}

}  // namespace

bool isHfConfig(const Value& doc) {
    return doc.isMap() && (doc.find("model_type") || doc.find("architectures") || doc.find("text_config"));
}

HfImport importHf(const Value& config, Diagnostics& d) {
    HfImport result;
    Value& out = result.model;
    out = Value::map(config.mark());
    if (!config.isMap()) {
        d.add(config.mark(), "", "a config.json is a mapping, got " + config.describe());
        return result;
    }
    const Value* textConfig = present(config, "text_config");
    const Value& tower = textConfig && textConfig->isMap() ? *textConfig : config;
    std::vector<std::string> read = {"model_type", "architectures", "text_config"}, rootRead = read;

    // Family and name from model_type (the tower's, else the root's).
    const Value* type = present(tower, "model_type");
    if (!type) type = present(config, "model_type");
    std::string modelType = text(type);
    if (modelType.ends_with("_text")) modelType.resize(modelType.size() - 5);
    const Value* rootType = present(config, "model_type");
    const std::string name = rootType ? text(rootType) : modelType;
    if (!name.empty()) out.set("name", Value::string(name, type ? type->mark() : config.mark()));
    const std::string family = familyOf(config, tower, modelType, d);
    if (!family.empty()) out.set("arch", Value::string(family, type ? type->mark() : config.mark()));

    for (const Alias& alias : kAliases) {
        const Value* chosen = nullptr;
        for (std::string_view hfKey : alias.hf) {
            // tie_word_embeddings sits beside text_config in some VL configs.
            const Value* v = present(tower, hfKey);
            const bool atRoot = !v && &tower != &config && alias.key == "tie_word_embeddings" && (v = present(config, hfKey));
            if (!v) continue;
            // A synonym that agrees is read; one that disagrees is listed, not silently lost.
            if (chosen && !v->sameAs(*chosen)) continue;
            (atRoot ? rootRead : read).push_back(std::string(hfKey));
            if (!chosen) out.set(std::string(alias.key), *v, v->mark()), chosen = v;
        }
    }
    // InternLM2 names its attention biases `bias` (wqkv, wo; its MLP has none).
    if (modelType == "internlm2")
        if (const Value* bias = present(tower, "bias")) out.set("attention_bias", *bias, bias->mark()), read.push_back("bias");
    if (family == "llama4") llama4Widths(tower, out, read);
    if (family == "qwen" || family == "qwen3") qwenMoeLayout(tower, out, read, d);
    // Qwen2-MoE states one wide shared expert by its width only.
    if (const Value* shared = present(out, "shared_expert_intermediate_size"); shared && !present(out, "num_shared_experts"))
        out.set("num_shared_experts", Value::integer(1, shared->mark()));
    // An HF num_experts of 0 (dense Qwen2-MoE configs) means no experts.
    if (const Value* experts = present(out, "num_experts"); experts && experts->kind() == Value::Kind::Int && experts->asInt() == 0) {
        for (const char* key : {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "num_shared_experts",
                                "shared_expert_intermediate_size", "first_k_dense_replace", "moe_layer_freq", "mlp_layer_types"})
            out.erase(key);
    }
    if (family == "deepseek") {
        // DeepSeek-V2-Lite states q_lora_rank: null (direct query projection).
        if (!present(tower, "q_lora_rank") && present(out, "kv_lora_rank")) out.set("q_lora_rank", Value::integer(0, config.mark()));
        // Only V3's auxiliary-loss-free balancing keeps a per-expert bias on the router
        // (DeepseekV3TopkRouter.e_score_correction_bias, topk_method noaux_tc); V2's
        // greedy and group-limited routers are a bias-free linear layer.
        if (const Value* method = present(tower, "topk_method")) {
            read.push_back("topk_method");
            out.set("router_bias", Value::boolean(text(method) == "noaux_tc", method->mark()));
        }
    }
    // A size the configuration class defaults and published configs omit: what
    // Transformers builds the model with, said as such.
    if (family == "gemma3" && !present(out, "vocab_size")) {
        out.set("vocab_size", Value::integer(262208, tower.mark()));
        result.classDefaults.emplace_back("vocab_size", "262208: Gemma3TextConfig's default (configuration_gemma3.py), which config.json "
                                                        "does not state");
    }
    hf::deriveLayout(family, modelType, tower, out, read, d);
    // The vision tower, where Tessera prices it; its own unread keys are listed by name.
    const Value* vision = present(config, "vision_config");
    std::vector<std::string> visionRead;
    const std::string rootModelType = text(present(config, "model_type"));
    if (vision && hf::visionTower(rootModelType, config, *vision, out, visionRead, rootRead, d)) read.push_back("vision_config"), rootRead.push_back("vision_config");
    else vision = nullptr;

    unreadKeys(tower, &tower == &config ? "" : "text_config.", read, result);
    if (&tower != &config) unreadKeys(config, "", rootRead, result);
    if (vision) unreadKeys(*vision, "vision_config.", visionRead, result);
    if (!result.unpriced.empty()) {
        Value keys = Value::list(config.mark());
        for (const std::string& k : result.unpriced) keys.push(Value::string(k, config.mark()));
        out.set("unpriced_keys", keys);
    }
    return result;
}

Value importHfConfig(const Value& config, Diagnostics& d) { return importHf(config, d).model; }

}  // namespace tessera::core
