// Layer layouts as each family's Transformers configuration class derives them, and
// the config.json keys that change neither memory nor time.
#include <algorithm>
#include <functional>

#include "io/hfimport.h"

namespace tessera::core::hf {

namespace {

constexpr std::int64_t kMaxListedLayers = std::int64_t{1} << 20;  // the resolver's layer cap

const Value* present(const Value& map, std::string_view key) {
    const Value* v = map.find(key);
    return v && !v->isNull() ? v : nullptr;
}

// A whole number key, or null (and a problem) if it is stated as something else.
const Value* wholeNumber(const Value& map, std::string_view key, std::vector<std::string>& read, Diagnostics& d) {
    const Value* v = present(map, key);
    if (!v) return nullptr;
    read.push_back(std::string(key));
    if (v->kind() == Value::Kind::Int && v->asInt() >= 1) return v;
    d.add(v->mark(), std::string(key), "expected a whole number of at least 1, got " + v->describe());
    return nullptr;
}

// layer_types built per layer index by `type`, unless the config states them.
void setLayerTypes(const Value& tower, Value& out, const Value& at, const std::function<std::string(std::int64_t)>& type) {
    if (present(out, "layer_types")) return;
    const Value* layers = present(out, "num_hidden_layers");
    if (!layers || layers->kind() != Value::Kind::Int) return;  // the resolver asks for it
    Value types = Value::list(at.mark());
    for (std::int64_t i = 0; i < layers->asInt() && i < kMaxListedLayers; ++i) types.push(Value::string(type(i), at.mark()));
    out.set("layer_types", types, at.mark());
    (void)tower;
}

// The window size, where some layer uses it.
void copyWindow(const Value& tower, Value& out, std::vector<std::string>& read) {
    if (const Value* w = present(tower, "sliding_window")) out.set("sliding_window", *w, w->mark());
    read.push_back("sliding_window");
}

}  // namespace

void deriveLayout(const std::string& family, const std::string& modelType, const Value& tower, Value& out,
                  std::vector<std::string>& read, Diagnostics& d) {
    if (const Value* types = present(tower, "layer_types")) {
        out.set("layer_types", *types, types->mark());
        read.push_back("layer_types");
    }
    if (family == "qwen3_next") {
        // Qwen3NextConfig: layer i is full attention when (i + 1) % interval == 0, else
        // Gated DeltaNet; without the key Transformers' default interval is 4.
        const Value* interval = wholeNumber(tower, "full_attention_interval", read, d);
        const std::int64_t every = interval ? interval->asInt() : 4;
        setLayerTypes(tower, out, interval ? *interval : tower,
                      [every](std::int64_t i) { return (i + 1) % every ? "linear_attention" : "full_attention"; });
    } else if (family == "gpt_oss" || family == "gemma2") {
        // GptOssConfig and Gemma2Config: sliding and full layers alternate, sliding first.
        copyWindow(tower, out, read);
        if (present(tower, "sliding_window"))
            setLayerTypes(tower, out, *present(tower, "sliding_window"),
                          [](std::int64_t i) { return (i + 1) % 2 ? "sliding_attention" : "full_attention"; });
    } else if (family == "gemma3") {
        // Gemma3TextConfig: every sliding_window_pattern-th layer is full (default 6).
        copyWindow(tower, out, read);
        const Value* pattern = wholeNumber(tower, "sliding_window_pattern", read, d);
        const std::int64_t every = pattern ? pattern->asInt() : 6;
        if (present(tower, "sliding_window"))
            setLayerTypes(tower, out, *present(tower, "sliding_window"),
                          [every](std::int64_t i) { return (i + 1) % every ? "sliding_attention" : "full_attention"; });
    } else if (family == "llama4") {
        // Llama4TextConfig: no_rope_layers[i] is 1 for a RoPE layer, which attends in
        // chunks of attention_chunk_size; 0 for a NoPE layer, full attention. Unstated,
        // every no_rope_layer_interval-th layer (default 4) is NoPE.
        const Value* chunk = wholeNumber(tower, "attention_chunk_size", read, d);
        const Value* flags = present(tower, "no_rope_layers");
        const Value* interval = wholeNumber(tower, "no_rope_layer_interval", read, d);
        if (flags) read.push_back("no_rope_layers");
        if (chunk) {
            out.set("attention_chunk_size", *chunk, chunk->mark());
            std::vector<bool> rope;
            if (flags && flags->isList()) {
                for (const Value& f : flags->items()) {
                    if (f.kind() != Value::Kind::Int && f.kind() != Value::Kind::Bool)
                        return d.add(f.mark(), "no_rope_layers", "expected 0 or 1 per layer, got " + f.describe());
                    rope.push_back(f.kind() == Value::Kind::Bool ? f.asBool() : f.asInt() != 0);
                }
            } else if (flags) {
                return d.add(flags->mark(), "no_rope_layers", "expected a list of 0 or 1 per layer, got " + flags->describe());
            }
            const std::int64_t every = interval ? interval->asInt() : 4;
            setLayerTypes(tower, out, *chunk, [&](std::int64_t i) {
                const bool usesRope = std::size_t(i) < rope.size() ? rope[std::size_t(i)] : (i + 1) % every != 0;
                return usesRope ? "chunked_attention" : "full_attention";
            });
        }
        // MoE on every interleave_moe_layer_step-th layer counted from 1 (Llama4TextModel's
        // moe_layers), unless the config lists them.
        const Value* step = wholeNumber(tower, "interleave_moe_layer_step", read, d);
        const Value* listed = present(tower, "moe_layers");
        if (listed) read.push_back("moe_layers");
        std::vector<std::int64_t> moeAt;
        if (listed && listed->isList()) {
            for (const Value& i : listed->items()) {
                if (i.kind() != Value::Kind::Int) return d.add(i.mark(), "moe_layers", "expected a layer index, got " + i.describe());
                moeAt.push_back(i.asInt());
            }
        }
        std::sort(moeAt.begin(), moeAt.end());
        const Value* layers = present(out, "num_hidden_layers");
        if (present(out, "num_experts") && (step || listed) && layers && layers->kind() == Value::Kind::Int) {
            const std::int64_t every = step ? step->asInt() : 1;
            Value types = Value::list(step ? step->mark() : listed->mark());
            for (std::int64_t i = 0; i < layers->asInt() && i < kMaxListedLayers; ++i) {
                const bool moe = listed ? std::binary_search(moeAt.begin(), moeAt.end(), i) : (i + 1) % every == 0;
                types.push(Value::string(moe ? "moe" : "dense", types.mark()));
            }
            out.set("mlp_layer_types", types, types.mark());
        }
    } else if (family == "qwen" || family == "qwen3") {
        // Qwen2Config / Qwen3Config: the window applies only under use_sliding_window, to
        // the layers from max_window_layers on.
        const Value* use = present(tower, "use_sliding_window");
        read.insert(read.end(), {"use_sliding_window", "max_window_layers", "sliding_window"});
        if (use && use->kind() == Value::Kind::Bool && use->asBool() && present(tower, "sliding_window")) {
            const Value* from = wholeNumber(tower, "max_window_layers", read, d);
            const std::int64_t first = from ? from->asInt() : 0;
            out.set("sliding_window", *present(tower, "sliding_window"), present(tower, "sliding_window")->mark());
            setLayerTypes(tower, out, *use, [first](std::int64_t i) { return i >= first ? "sliding_attention" : "full_attention"; });
        }
    } else if (family == "llama" || family == "mixtral") {
        // Mistral, Mixtral, Phi-3: a stated window applies to every layer (the resolver
        // derives layer_types from it).
        copyWindow(tower, out, read);
    }
    (void)modelType;
}

bool hasNoEffect(std::string_view key) {
    // Token ids, positional-encoding frequencies and scaling, norm epsilons, score
    // scales (applied inside the attention kernel), initialisation, inference-only and
    // runtime switches: none changes what a training step holds or how long it takes.
    static constexpr std::string_view kKeys[] = {
        "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id", "image_token_id",
        "video_token_id", "vision_start_token_id", "vision_end_token_id", "vision_token_id", "image_token_index",
        "boi_token_index", "eoi_token_index", "rope_theta", "rope_scaling", "rope_parameters", "rope_interleave",
        "rope_local_base_freq", "partial_rotary_factor", "original_max_position_embeddings", "rms_norm_eps",
        "layer_norm_eps", "layer_norm_epsilon", "norm_epsilon", "norm_eps", "initializer_range", "initializer_factor", "init_std",
        "use_cache", "torch_dtype", "dtype", "transformers_version", "auto_map", "_name_or_path", "attn_implementation",
        "_attn_implementation", "return_dict", "output_attentions", "output_hidden_states", "is_encoder_decoder",
        "tokenizer_class", "pretraining_tp", "query_pre_attn_scalar", "attn_logit_softcapping", "router_aux_loss_coef",
        "aux_loss_alpha", "output_router_logits", "router_jitter_noise", "norm_topk_prob", "routed_scaling_factor",
        "scoring_func", "seq_aux", "router_z_loss_coef", "swiglu_limit", "ep_size", "cache_implementation",
        "attn_temperature_tuning", "floor_scale", "attn_scale", "for_llm_compressor", "use_bfloat16", "bias_delta",
        "rope_type", "use_mla", "moe_aux_loss_coeff", "max_window_layers", "use_sliding_window",
        "tokens_per_second", "model_type", "hidden_act",  // a vision tower's: its temporal RoPE, its name, its activation
    };
    return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

}  // namespace tessera::core::hf
