#include "io/hfimport.h"

#include <algorithm>

#include "spec/modelspec.h"

namespace tessera::core {

namespace {

struct Alias {
    std::string_view key;
    std::initializer_list<std::string_view> hf;  // first present wins
};

// Model key <- HF names, in Tessera's field order.
const Alias kAliases[] = {
    {"hidden_size", {"hidden_size", "n_embd", "d_model"}},
    {"num_hidden_layers", {"num_hidden_layers", "n_layer", "num_layers"}},
    {"num_attention_heads", {"num_attention_heads", "n_head"}},
    {"num_key_value_heads", {"num_key_value_heads", "multi_query_group_num"}},
    {"head_dim", {"head_dim"}},
    {"intermediate_size", {"intermediate_size", "n_inner", "ffn_hidden_size"}},
    {"vocab_size", {"vocab_size", "padded_vocab_size"}},
    {"max_position_embeddings", {"max_position_embeddings", "n_positions", "seq_length"}},
    {"hidden_act", {"hidden_act", "activation_function"}},
    {"attention_bias", {"attention_bias"}},
    {"mlp_bias", {"mlp_bias"}},
    {"tie_word_embeddings", {"tie_word_embeddings"}},
    {"attention_dropout", {"attention_dropout", "attn_pdrop"}},
    {"hidden_dropout", {"hidden_dropout", "resid_pdrop"}},
    {"qk_norm", {"qk_norm", "use_qk_norm", "qk_layernorm"}},
    {"attn_output_gate", {"attn_output_gate"}},
    {"num_experts", {"num_experts", "n_routed_experts", "num_local_experts"}},
    {"num_experts_per_tok", {"num_experts_per_tok", "moe_topk"}},
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
    {"layer_types", {"layer_types"}},
    {"linear_num_key_heads", {"linear_num_key_heads"}},
    {"linear_key_head_dim", {"linear_key_head_dim"}},
    {"linear_num_value_heads", {"linear_num_value_heads"}},
    {"linear_value_head_dim", {"linear_value_head_dim"}},
    {"linear_conv_kernel_dim", {"linear_conv_kernel_dim"}},
};

// model_type -> Tessera family. VL towers name themselves "<type>_text".
const std::pair<std::string_view, std::string_view> kFamilies[] = {
    {"gpt2", "gpt"},          {"openai-gpt", "gpt"},     {"llama", "llama"},         {"mistral", "llama"},
    {"qwen2", "qwen"},        {"qwen2_moe", "qwen"},     {"qwen2_vl", "qwen"},       {"qwen2_5_vl", "qwen"},
    {"qwen3", "qwen3"},       {"qwen3_moe", "qwen3"},    {"qwen3_vl", "qwen3"},      {"qwen3_vl_moe", "qwen3"},
    {"mixtral", "mixtral"},   {"deepseek_v2", "deepseek"}, {"deepseek_v3", "deepseek"}, {"qwen3_next", "qwen3_next"},
};

const Value* present(const Value& map, std::string_view key) {
    const Value* v = map.find(key);
    return v && !v->isNull() ? v : nullptr;
}

}  // namespace

bool isHfConfig(const Value& doc) {
    return doc.isMap() && (doc.find("model_type") || doc.find("architectures") || doc.find("text_config"));
}

Value importHfConfig(const Value& config, Diagnostics& d) {
    Value out = Value::map(config.mark());
    if (!config.isMap()) {
        d.add(config.mark(), "", "a config.json is a mapping, got " + config.describe());
        return out;
    }
    const Value* textConfig = present(config, "text_config");
    const Value& tower = textConfig && textConfig->isMap() ? *textConfig : config;

    // Family and name from model_type (the tower's, else the root's).
    const Value* type = present(tower, "model_type");
    if (!type) type = present(config, "model_type");
    std::string modelType = type && type->kind() == Value::Kind::String ? type->asString() : "";
    if (modelType.ends_with("_text")) modelType.resize(modelType.size() - 5);
    const Value* rootType = present(config, "model_type");
    const std::string name = rootType && rootType->kind() == Value::Kind::String ? rootType->asString() : modelType;
    if (!name.empty()) out.set("name", Value::string(name, type ? type->mark() : config.mark()));
    auto family = std::find_if(std::begin(kFamilies), std::end(kFamilies), [&](auto& p) { return p.first == modelType; });
    if (family != std::end(kFamilies)) {
        out.set("arch", Value::string(std::string(family->second), type->mark()));
    } else {
        std::string known;
        for (auto& p : kFamilies) known += (known.empty() ? "" : ", ") + std::string(p.first);
        d.add(type ? type->mark() : config.mark(), "model_type",
              "cannot tell the architecture family of model_type " + (type ? type->describe() : std::string("(absent)")) +
                  "; known: " + known + ". Import it and state arch in the model section");
    }

    for (const Alias& alias : kAliases) {
        for (std::string_view hf : alias.hf) {
            // tie_word_embeddings sits beside text_config in some VL configs.
            const Value* v = present(tower, hf);
            if (!v && &tower != &config && alias.key == "tie_word_embeddings") v = present(config, hf);
            if (!v) continue;
            out.set(std::string(alias.key), *v, v->mark());
            break;
        }
    }

    // Qwen2/Qwen3-MoE: which layers are MoE.
    if (const Value* step = present(tower, "decoder_sparse_step")) {
        if (step->kind() == Value::Kind::Int && step->asInt() > 1)
            d.add(step->mark(), "decoder_sparse_step",
                  "MoE every " + std::to_string(step->asInt()) + " layers counted from layer 1 is not representable; "
                  "Tessera places MoE layers as DeepSeek does (first_k_dense_replace, moe_layer_freq)");
        else if (step->kind() == Value::Kind::Int && !out.find("moe_layer_freq"))
            out.set("moe_layer_freq", Value::integer(1, step->mark()));
    }
    if (const Value* dense = present(tower, "mlp_only_layers"); dense && dense->isList()) {
        std::int64_t k = 0;
        bool leading = true;
        for (const Value& item : dense->items()) {
            if (item.kind() != Value::Kind::Int || item.asInt() != k) leading = false;
            ++k;
        }
        if (!leading)
            d.add(dense->mark(), "mlp_only_layers", "dense layers that are not a leading run are not representable");
        else if (!out.find("first_k_dense_replace") && present(out, "num_experts"))
            out.set("first_k_dense_replace", Value::integer(k, dense->mark()));
    }
    // Qwen2-MoE states one wide shared expert by its width only.
    if (const Value* shared = present(out, "shared_expert_intermediate_size"); shared && !present(out, "num_shared_experts"))
        out.set("num_shared_experts", Value::integer(1, shared->mark()));
    // An HF num_experts of 0 (dense Qwen2-MoE configs) means no experts.
    if (const Value* experts = present(out, "num_experts"); experts && experts->kind() == Value::Kind::Int && experts->asInt() == 0) {
        for (const char* key : {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "num_shared_experts",
                                "shared_expert_intermediate_size", "first_k_dense_replace", "moe_layer_freq"})
            out.erase(key);
    }
    // DeepSeek-V2-Lite states q_lora_rank: null (direct query projection).
    if (modelType.starts_with("deepseek") && !present(tower, "q_lora_rank") && present(out, "kv_lora_rank"))
        out.set("q_lora_rank", Value::integer(0, config.mark()));
    return out;
}

}  // namespace tessera::core
