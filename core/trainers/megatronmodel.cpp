#include <algorithm>

#include "trainers/megatronargs.h"

namespace tessera::core::trainers {

namespace {

Value integerAt(std::int64_t n, const Mark& m) { return Value::integer(n, m); }
Value flagAt(bool b, const Mark& m) { return Value::boolean(b, m); }
Value textAt(std::string s, const Mark& m) { return Value::string(std::move(s), m); }

}  // namespace

// The model pretrain_gpt.py builds, every architecture field stated: Megatron-LM's
// defaults are not any family's.
void readMegatronModel(Args& a, Builder& b, std::int64_t tp) {
    const std::string kDefault = "Megatron-LM's default";
    auto state = [&](const char* key, const std::string& arg, std::optional<Value> v, Value fallback, const std::string& why) {
        if (v) b.set(std::string("model.") + key, std::move(*v));
        else b.assume(std::string("model.") + key, std::move(fallback), why + " (" + (arg.empty() ? "" : "--" + arg + " unstated") + ")");
    };
    const auto layers = a.integer("num-layers");
    const auto hidden = a.integer("hidden-size");
    const auto heads = a.integer("num-attention-heads");
    if (layers) b.set("model.num_hidden_layers", integerAt(*layers, a.mark("num-layers")));
    if (hidden) b.set("model.hidden_size", integerAt(*hidden, a.mark("hidden-size")));
    if (heads) b.set("model.num_attention_heads", integerAt(*heads, a.mark("num-attention-heads")));
    for (const char* required : {"num-layers", "hidden-size", "num-attention-heads"})
        if (!a.has(required)) b.refuse(Mark{}, std::string("--") + required, "pretrain_gpt.py needs it, and the arguments do not state it");
    // --swiglu, or (a configuration's fields) a SiLU activation with a gated linear unit.
    const auto activation = a.word("activation-func");
    const bool glu = a.flag("gated-linear-unit").value_or(false);
    const bool swiglu = a.flag("swiglu").value_or(false) || (activation == "silu" && glu);
    if (activation && *activation != "silu" && *activation != "gelu")
        a.refuse("activation-func", "'" + *activation + "' is not yet representable (silu with a gated linear unit, gelu)");
    if (a.flag("squared-relu").value_or(false)) a.refuse("squared-relu", "the squared ReLU is not yet representable (model.hidden_act)");
    const bool openaiGelu = a.flag("openai-gelu").value_or(false);
    b.assume("model.name", Value::string("Megatron-LM GPT model"), "pretrain_gpt.py names no model");
    const auto ffn = a.integer("ffn-hidden-size");
    if (ffn) b.set("model.intermediate_size", integerAt(*ffn, a.mark("ffn-hidden-size")));
    else if (hidden)
        b.assume("model.intermediate_size", Value::integer(swiglu ? (4 * *hidden * 2 / 3) / 64 * 64 : 4 * *hidden),
                 kDefault + ": " + (swiglu ? "int(4h·2/3 / 64)·64 under --swiglu" : "4h"));
    const bool gqa = a.flag("group-query-attention").value_or(false);
    const auto groups = a.integer("num-query-groups");
    if (gqa && groups) b.set("model.num_key_value_heads", integerAt(*groups, a.mark("num-query-groups")));
    else if (heads) b.assume("model.num_key_value_heads", Value::integer(*heads), kDefault + ": one key/value head per query head without --group-query-attention");
    if (!gqa && groups) a.refuse("num-query-groups", "takes effect with --group-query-attention only; state it, or leave this out");
    if (const auto kv = a.integer("kv-channels")) b.set("model.head_dim", integerAt(*kv, a.mark("kv-channels")));
    // The vocabulary: the tokenizer's, padded to a multiple of make-vocab-size-divisible-by · tp.
    const std::int64_t multiple = a.integer("make-vocab-size-divisible-by").value_or(128) * tp;
    const auto tokenizer = a.word("tokenizer-type");
    const auto stated = a.integer("vocab-size");
    std::optional<std::int64_t> vocab;
    std::string from;
    if (tokenizer == "NullTokenizer" && stated) vocab = *stated + 1, from = "--vocab-size + 1 (NullTokenizer's end-of-document token)";
    else if (tokenizer == "Llama2Tokenizer") vocab = 32000, from = "Llama2Tokenizer's 32,000 tokens";
    else if (stated) vocab = *stated, from = "--vocab-size";
    if (vocab) {
        const std::int64_t padded = (*vocab + multiple - 1) / multiple * multiple;
        b.assume("model.vocab_size", Value::integer(padded, a.mark(stated ? "vocab-size" : "tokenizer-type")),
                 from + ", padded to a multiple of " + num(multiple) + " (make-vocab-size-divisible-by · tp)");
    } else {
        // Not refused here: a --set model.vocab_size=N given with the import completes it.
        b.unpriced(a.mark("tokenizer-type"), "--tokenizer-type" + (tokenizer ? " " + *tokenizer : std::string()),
                   "Megatron-LM takes the vocabulary from this tokenizer, which Tessera does not load: give the padded "
                   "size with --set model.vocab_size=N (or --vocab-size with --tokenizer-type NullTokenizer)");
    }
    const auto seq = a.integer("seq-length");
    if (const auto pos = a.integer("max-position-embeddings")) b.set("model.max_position_embeddings", integerAt(*pos, a.mark("max-position-embeddings")));
    else if (seq) b.assume("model.max_position_embeddings", Value::integer(*seq), "--seq-length (Megatron-LM requires at least that many)");
    state("hidden_act", "swiglu", std::nullopt, Value::string(swiglu ? "silu" : openaiGelu ? "gelu_new" : "gelu"),
          swiglu ? "--swiglu" : kDefault + " GeLU");
    state("gated_mlp", "swiglu", std::nullopt, Value::boolean(swiglu), swiglu ? "--swiglu" : kDefault + ": two matrices");
    const auto norm = a.word("normalization");
    if (norm && *norm != "LayerNorm" && *norm != "RMSNorm") a.refuse("normalization", "expected LayerNorm or RMSNorm, got '" + *norm + "'");
    state("norm", "normalization", norm ? std::optional(textAt(*norm == "RMSNorm" ? "rmsnorm" : "layernorm", a.mark("normalization"))) : std::nullopt,
          Value::string("layernorm"), kDefault);
    const auto posType = a.word("position-embedding-type");
    const bool table = a.flag("add-position-embedding").value_or(true);
    std::string position = posType.value_or("learned_absolute");
    if (position == "learned_absolute") position = table ? "learned" : "none";
    else if (position == "rope" || position == "yarn" || position == "mrope") position = "rope";  // M-RoPE rotates alike
    else if (position != "none") a.refuse("position-embedding-type", "'" + position + "' is not yet representable (rope, learned_absolute or none)");
    state("position_embedding", "position-embedding-type", posType ? std::optional(textAt(position, a.mark("position-embedding-type"))) : std::nullopt,
          Value::string(position), table ? kDefault : "--no-position-embedding");
    const auto bias = a.flag("add-bias-linear");
    const bool qkvBias = a.flag("add-qkv-bias").value_or(false);
    const bool withBias = bias.value_or(true);
    state("attention_bias", "", bias ? std::optional(flagAt(withBias || qkvBias, a.mark("add-bias-linear"))) : std::nullopt,
          Value::boolean(withBias || qkvBias), qkvBias ? "--add-qkv-bias" : kDefault + ": biases on every linear layer");
    state("attention_out_bias", "", bias ? std::optional(flagAt(withBias, a.mark("add-bias-linear"))) : std::nullopt,
          Value::boolean(withBias), kDefault + ": biases on every linear layer");
    state("mlp_bias", "", bias ? std::optional(flagAt(withBias, a.mark("add-bias-linear"))) : std::nullopt,
          Value::boolean(withBias), kDefault + ": biases on every linear layer");
    const auto untie = a.flag("untie-embeddings-and-output-weights");
    state("tie_word_embeddings", "untie-embeddings-and-output-weights",
          untie ? std::optional(flagAt(!*untie, a.mark("untie-embeddings-and-output-weights"))) : std::nullopt,
          Value::boolean(true), kDefault + ": the output layer shares the embedding");
    for (auto [key, arg] : {std::pair{"attention_dropout", "attention-dropout"}, {"hidden_dropout", "hidden-dropout"}}) {
        const auto p = a.real(arg);
        state(key, arg, p ? std::optional(Value::number(*p, a.mark(arg))) : std::nullopt, Value::number(0.1), kDefault);
    }
    const auto qkNorm = a.flag("qk-layernorm");
    state("qk_norm", "qk-layernorm", qkNorm ? std::optional(flagAt(*qkNorm, a.mark("qk-layernorm"))) : std::nullopt,
          Value::boolean(false), kDefault);
    // Mixture of experts: every layer, unless --moe-layer-freq says otherwise.
    const auto experts = a.integer("num-experts");
    const bool mla = a.flag("multi-latent-attention").value_or(false);
    b.assume("model.arch", Value::string(mla ? "deepseek" : experts ? "mixtral" : qkNorm.value_or(false) ? "qwen3" : swiglu ? "llama" : "gpt"),
             "the family nearest the arguments; every field the cost model reads is stated");
    if (experts) {
        b.set("model.num_experts", integerAt(*experts, a.mark("num-experts")));
        const auto topk = a.integer("moe-router-topk");
        state("num_experts_per_tok", "moe-router-topk", topk ? std::optional(integerAt(*topk, a.mark("moe-router-topk"))) : std::nullopt,
              Value::integer(2), kDefault);
        if (const auto w = a.integer("moe-ffn-hidden-size")) b.set("model.moe_intermediate_size", integerAt(*w, a.mark("moe-ffn-hidden-size")));
        else if (const Value* f = b.get("model.intermediate_size")) b.assume("model.moe_intermediate_size", Value::integer(f->asInt()), kDefault + ": --ffn-hidden-size");
        if (const auto s = a.integer("moe-shared-expert-intermediate-size")) {
            b.set("model.num_shared_experts", integerAt(1, a.mark("moe-shared-expert-intermediate-size")));
            b.set("model.shared_expert_intermediate_size", integerAt(*s, a.mark("moe-shared-expert-intermediate-size")));
        } else {
            b.assume("model.num_shared_experts", Value::integer(0), kDefault + ": no shared expert");
        }
        std::int64_t dense = 0, every = 1;
        if (const auto freq = a.word("moe-layer-freq")) {
            // An integer (every n-th layer) or the pattern "([0]*k+[1]*n)" (k dense layers first).
            std::string f = *freq;
            f.erase(std::remove(f.begin(), f.end(), ' '), f.end());
            if (const auto n = wholeNumber(f); n && *n >= 1) every = *n;
            else if (f.starts_with("([0]*") && f.find("+[1]*") != std::string::npos && f.ends_with(")"))
                dense = wholeNumber(f.substr(5, f.find("+[1]*") - 5)).value_or(-1);
            else dense = -1;
            if (dense < 0) a.refuse("moe-layer-freq", "'" + *freq + "' is not yet representable: an integer, or ([0]*k+[1]*n) with the dense layers first");
        }
        b.assume("model.first_k_dense_replace", integerAt(std::max<std::int64_t>(dense, 0), a.mark("moe-layer-freq")), "--moe-layer-freq (default: every layer MoE)");
        b.assume("model.moe_layer_freq", integerAt(every, a.mark("moe-layer-freq")), "--moe-layer-freq (default: every layer MoE)");
        if (const auto g = a.integer("moe-router-num-groups")) b.set("model.n_group", integerAt(*g, a.mark("moe-router-num-groups")));
        if (const auto g = a.integer("moe-router-group-topk")) b.set("model.topk_group", integerAt(*g, a.mark("moe-router-group-topk")));
        const auto bias = a.flag("moe-router-enable-expert-bias");
        state("router_bias", "moe-router-enable-expert-bias", bias ? std::optional(flagAt(*bias, a.mark("moe-router-enable-expert-bias"))) : std::nullopt,
              Value::boolean(false), kDefault);
        b.assume("model.shared_expert_gate", Value::boolean(false), "pretrain_gpt.py's shared experts have no gate");
    }
    if (mla) {
        auto mlaField = [&](const char* key, const char* arg, std::int64_t fallback, std::int64_t least = 1) {
            const auto v = a.integer(arg, least);
            state(key, arg, v ? std::optional(integerAt(*v, a.mark(arg))) : std::nullopt, Value::integer(fallback), kDefault);
        };
        mlaField("q_lora_rank", "q-lora-rank", 0, 0);
        mlaField("kv_lora_rank", "kv-lora-rank", 32);
        mlaField("qk_nope_head_dim", "qk-head-dim", 128);
        mlaField("qk_rope_head_dim", "qk-pos-emb-head-dim", 64);
        mlaField("v_head_dim", "v-head-dim", 128);
    }
    if (const auto mtp = a.integer("mtp-num-layers", 0)) b.set("model.mtp_depth", integerAt(*mtp, a.mark("mtp-num-layers")));
    else b.assume("model.mtp_depth", Value::integer(0), kDefault + ": no multi-token prediction");
}


}  // namespace tessera::core::trainers
