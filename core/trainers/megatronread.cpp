#include <algorithm>
#include <map>
#include <set>

#include "trainers/megatron.h"

namespace tessera::core::trainers {

namespace {

// The arguments by name, each read once; what no reader took is listed as not priced.
class Args {
public:
    Args(const std::vector<LaunchArg>& args, Diagnostics& d) : m_d(d) {
        for (const LaunchArg& a : args) m_by[a.name].push_back(&a);
    }
    const LaunchArg* take(const std::string& name) {
        m_taken.insert(name);
        const auto it = m_by.find(name);
        return it == m_by.end() ? nullptr : it->second.back();  // argparse: the last one wins
    }
    bool has(const std::string& name) const { return m_by.contains(name); }

    std::optional<std::string> word(const std::string& name) {
        const LaunchArg* a = take(name);
        if (!a) return std::nullopt;
        if (a->values.size() != 1) {
            m_d.add(a->mark, a->spelled, a->values.empty() ? "needs a value" : "expected one value, got " + num(std::int64_t(a->values.size())));
            return std::nullopt;
        }
        if (a->values.front().find('$') != std::string::npos) {
            m_d.add(a->mark, a->spelled, "'" + a->values.front() + "' is a shell variable: Tessera reads the arguments as "
                                         "launched, so give its value");
            return std::nullopt;
        }
        return a->values.front();
    }
    std::optional<std::int64_t> integer(const std::string& name, std::int64_t least = 1) {
        const auto w = word(name);
        if (!w) return std::nullopt;
        const auto n = wholeNumber(*w);
        if (!n || *n < least || *n > kMaxStated) {
            refuse(name, "expected a whole number from " + num(least) + " to " + num(kMaxStated) + ", got '" + *w + "'");
            return std::nullopt;
        }
        return n;
    }
    std::optional<double> real(const std::string& name) {
        const auto w = word(name);
        if (!w) return std::nullopt;
        const auto x = realNumber(*w);
        if (!x || *x < 0) refuse(name, "expected a number of at least 0, got '" + *w + "'");
        return x && *x >= 0 ? x : std::nullopt;
    }
    // A store_true flag: absent, given (true), or stated true/false (the YAML's, or an alias's).
    std::optional<bool> flag(const std::string& name) {
        const LaunchArg* a = take(name);
        if (!a) return std::nullopt;
        if (a->values.empty()) return true;
        const std::string& v = a->values.front();
        if (a->values.size() == 1 && (v == "true" || v == "True")) return true;
        if (a->values.size() == 1 && (v == "false" || v == "False")) return false;
        m_d.add(a->mark, a->spelled, "is a switch and takes no value, got '" + v + "'");
        return std::nullopt;
    }
    std::vector<std::string> list(const std::string& name) {
        const LaunchArg* a = take(name);
        return a ? a->values : std::vector<std::string>{};
    }
    const Mark& mark(const std::string& name) const {
        static const Mark none;
        const auto it = m_by.find(name);
        return it == m_by.end() ? none : it->second.back()->mark;
    }
    const std::string& spelled(const std::string& name) const {
        const auto it = m_by.find(name);
        static const std::string none;
        return it == m_by.end() ? none : it->second.back()->spelled;
    }
    void refuse(const std::string& name, const std::string& message) { m_d.add(mark(name), spelled(name).empty() ? "--" + name : spelled(name), message); }
    // Every argument no reader took, and every earlier copy of one given twice.
    void listUnread(Builder& b, const std::string& program) {
        for (const auto& [name, all] : m_by)
            for (const LaunchArg* a : all) {
                std::string text = a->spelled;
                for (const std::string& v : a->values) text += " " + v;
                if (m_taken.contains(name) && a != all.back())
                    b.unpriced(a->mark, text, "given again later; " + program + " takes the last one");
                else if (!m_taken.contains(name))
                    b.unpriced(a->mark, text, whyNotPriced(name));
            }
    }

private:
    static std::string whyNotPriced(const std::string& name) {
        static const std::pair<const char*, const char*> kKinds[] = {
            {"lr", "the learning-rate schedule"},       {"min-lr", "the learning-rate schedule"},
            {"weight-decay", "an optimizer hyper-parameter"}, {"adam-", "an optimizer hyper-parameter"},
            {"train-", "the length of the run"},        {"exit-", "the length of the run"},
            {"data-", "the data"},                      {"split", "the data"},
            {"tokenizer-", "the tokenizer"},            {"vocab-file", "the tokenizer"},
            {"merge-file", "the tokenizer"},            {"save", "checkpointing"},
            {"load", "checkpointing"},                  {"no-load-", "checkpointing"},
            {"no-save-", "checkpointing"},              {"log-", "logging"},
            {"tensorboard-", "logging"},                {"wandb-", "logging"},
            {"eval-", "evaluation"},                    {"init-method", "initialisation"},
            {"seed", "initialisation"},                 {"rotary-", "the positions' numerics (no size or time)"},
            {"norm-epsilon", "the norm's numerics (no size or time)"},
        };
        for (const auto& [prefix, kind] : kKinds)
            if (name.starts_with(prefix)) return std::string("not priced: ") + kind + " changes no memory or step time Tessera models";
        return "not priced: not an argument Tessera reads, so it changes nothing it prices";
    }

    std::map<std::string, std::vector<const LaunchArg*>> m_by;
    std::set<std::string> m_taken;
    Diagnostics& m_d;
};

Value integerAt(std::int64_t n, const Mark& m) { return Value::integer(n, m); }
Value flagAt(bool b, const Mark& m) { return Value::boolean(b, m); }
Value textAt(std::string s, const Mark& m) { return Value::string(std::move(s), m); }

// The model pretrain_gpt.py builds, every architecture field stated: Megatron-LM's
// defaults are not any family's.
void readModel(Args& a, Builder& b, std::int64_t tp) {
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


// The devices: the launcher's nproc_per_node x nnodes, or the command line's.
std::optional<std::int64_t> readDevices(const Launch& launch, Builder& b, const ImportCluster& cluster) {
    Diagnostics& d = b.diagnostics();
    Diagnostics lenient;  // a launcher value that is a shell variable leaves the count to --devices
    Args l(launch.launcher, lenient);
    std::int64_t perNode = 0, nodes = 1;
    bool stated = false, variable = false;
    for (const char* name : {"nproc_per_node", "nproc-per-node", "nnodes"}) {
        if (!l.has(name)) continue;
        const auto n = l.integer(name);
        if (!n) variable = true;
        else if (name[1] == 'n') nodes = *n;  // nnodes
        else perNode = *n, stated = true;
    }
    if (variable) {
        for (const LaunchArg& arg : launch.launcher)
            if (arg.name == "nproc_per_node" || arg.name == "nproc-per-node" || arg.name == "nnodes")
                b.unpriced(arg.mark, arg.spelled + (arg.values.empty() ? "" : " " + arg.values.front()),
                           "not priced: a shell variable, so the device count comes from import --devices");
    }
    std::optional<std::int64_t> devices;
    std::int64_t product = 0;
    if (stated && !variable && (__builtin_mul_overflow(perNode, nodes, &product) || product > (1 << 24))) {
        d.add(launch.launcherMark, "--nnodes", "the launcher starts more than 16,777,216 processes");
    } else if (stated && !variable) {
        devices = product;
        if (cluster.devices && *cluster.devices != product)
            d.add(launch.launcherMark, "--nproc_per_node", "the launcher starts " + num(product) + " processes, and the command line says " +
                                                          num(*cluster.devices) + " devices");
        b.set("cluster.devices", Value::integer(product, launch.launcherMark));
    } else if (cluster.devices) {
        devices = cluster.devices;
        b.set("cluster.devices", Value::integer(*devices));
    } else {
        d.add(launch.launcherMark, "cluster.devices", std::string(variable ? "the launcher's device count is a shell variable" :
                                                      "the arguments state no device count (torchrun --nproc_per_node and --nnodes)") +
                                                      ": give one (import --devices N)");
    }
    l.listUnread(b, launch.launcherProgram.empty() ? "the launcher" : launch.launcherProgram);
    return devices;
}

void readStrategy(Args& a, Builder& b, std::optional<std::int64_t> devices) {
    const std::string kDefault = "Megatron-LM's default";
    auto count = [&](const char* key, const char* arg, std::int64_t least = 1) {
        const auto n = a.integer(arg, least);
        if (n) b.set(std::string("exec.") + key, Value::integer(*n, a.mark(arg)));
        return n;
    };
    auto onOff = [&](const char* key, const char* arg, std::optional<bool> fallback = std::nullopt, const std::string& why = {}) {
        const auto on = a.flag(arg);
        if (on) b.set(std::string("exec.") + key, Value::boolean(*on, a.mark(arg)));
        else if (fallback) b.assume(std::string("exec.") + key, Value::boolean(*fallback), why.empty() ? kDefault + " (--" + arg + " unstated)" : why);
        return on.value_or(fallback.value_or(false));
    };
    auto tp = count("tp", "tensor-model-parallel-size");
    if (!tp && a.has("model-parallel-size")) tp = count("tp", "model-parallel-size");
    const std::int64_t t = tp.value_or(1);
    const std::int64_t p = count("pp", "pipeline-model-parallel-size").value_or(1);
    const std::int64_t c = count("cp", "context-parallel-size").value_or(1);
    const std::int64_t e = count("ep", "expert-model-parallel-size").value_or(1);
    const std::string etpArg = "expert-tensor-parallel-size";
    if (a.has(etpArg))
        if (std::optional<Value> etp = statedExpertTp(a.integer(etpArg), a.mark(etpArg), t, a.spelled(etpArg), b.diagnostics()))
            b.set("exec.etp", std::move(*etp));
    // Virtual stages: per rank, or as layers per virtual stage.
    std::optional<std::int64_t> vpp = count("vpp", "num-virtual-stages-per-pipeline-rank");
    if (const auto per = a.integer("num-layers-per-virtual-pipeline-stage")) {
        const Value* layers = b.get("model.num_hidden_layers");
        if (layers && layers->asInt() % (p * *per) == 0) {
            vpp = layers->asInt() / (p * *per);
            b.set("exec.vpp", Value::integer(*vpp, a.mark("num-layers-per-virtual-pipeline-stage")));
        } else if (layers) {
            a.refuse("num-layers-per-virtual-pipeline-stage", "the " + num(layers->asInt()) + " layers do not split into " +
                                                              num(p) + " stages of chunks of " + num(*per));
        }
    }
    const Mark scheduleMark = vpp ? b.get("exec.vpp")->mark() : a.mark("pipeline-model-parallel-size");
    if (vpp.value_or(1) > 1) b.assume("exec.pp_schedule", Value::string("interleaved", scheduleMark), "Megatron-LM interleaves virtual stages");
    else if (p > 1) b.assume("exec.pp_schedule", Value::string("1f1b", scheduleMark), "Megatron-LM's schedule without virtual stages");
    const std::int64_t mtp = b.get("model.mtp_depth") ? b.get("model.mtp_depth")->asInt() : 0;
    const auto first = a.integer("decoder-first-pipeline-num-layers", 0);
    const auto last = a.integer("decoder-last-pipeline-num-layers", 0);
    if ((first || last) && vpp.value_or(1) > 1) {
        a.refuse(first ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers",
                 "an uneven first or last stage under virtual stages is not yet representable");
    } else if ((first || last) && b.get("model.num_hidden_layers")) {
        const std::int64_t layers = b.get("model.num_hidden_layers")->asInt();
        const std::int64_t middle = p > layers ? -1 : p - (first ? 1 : 0) - (last ? 1 : 0);  // more stages than layers: refused
        const std::int64_t rest = layers - first.value_or(0) - last.value_or(0);
        if (middle < 0 || (middle == 0 && rest != 0) || (middle > 0 && (rest < 0 || rest % middle != 0))) {
            a.refuse(first ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers",
                     "the other " + num(rest) + " layers do not split evenly over the other " + num(std::max<std::int64_t>(middle, 0)) + " stages");
        } else {
            const Mark m = a.mark(first ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers");
            Value stages = Value::list(m);
            for (std::int64_t s = 0; s < p; ++s)  // the MTP layers come after the decoder's, on the last stage
                stages.push(Value::integer((s == 0 && first ? *first : s == p - 1 && last ? *last : (middle ? rest / middle : 0)) +
                                           (s == p - 1 ? mtp : 0), m));
            b.set("exec.pp_partition", std::move(stages));
        }
    } else if (mtp > 0 && p > 1 && b.get("model.num_hidden_layers")) {
        // Megatron-LM splits the decoder's layers evenly and puts the MTP layers on the last stage.
        const std::int64_t layers = b.get("model.num_hidden_layers")->asInt(), v = vpp.value_or(1);
        const std::int64_t chunks = product({p, v}).value_or(0);
        if (chunks > 0 && chunks <= layers && layers % chunks == 0) {
            const Mark m = a.mark("mtp-num-layers");
            Value grid = Value::list(m);
            for (std::int64_t c = 0; c < v; ++c) {
                Value row = Value::list(m);
                for (std::int64_t s = 0; s < p; ++s) row.push(Value::integer(layers / chunks + (c == v - 1 && s == p - 1 ? mtp : 0), m));
                grid.push(std::move(row));
            }
            b.set("exec.pp_partition", v == 1 ? grid.items().front() : grid);
        }
    }
    if (a.has("pipeline-model-parallel-layout")) a.refuse("pipeline-model-parallel-layout", "a custom layout is not yet read; state the first and last stages' layers instead");
    // Megatron-LM turns sequence parallelism off at tp 1 (megatron/training/arguments.py).
    if (const auto sp = a.flag("sequence-parallel"); sp && *sp && t == 1)
        b.unpriced(a.mark("sequence-parallel"), a.spelled("sequence-parallel"), "not priced: Megatron-LM turns sequence parallelism off at tp 1");
    else if (sp)
        b.set("exec.sequence_parallel", Value::boolean(*sp, a.mark("sequence-parallel")));
    count("micro_batch_size", "micro-batch-size");
    count("global_batch_size", "global-batch-size");
    count("seq_length", "seq-length");

    // Sharding: the distributed optimizer (ZeRO-1 over dp·cp), or an FSDP.
    const bool distributed = a.flag("use-distributed-optimizer").value_or(false);
    const bool torchFsdp = a.flag("use-torch-fsdp2").value_or(false);
    const bool megatronFsdp = a.flag("use-megatron-fsdp").value_or(false);
    const auto strategy = a.word("data-parallel-sharding-strategy");
    std::string sharding = distributed ? "optim" : "no_shard";
    const Mark shardMark = a.mark(torchFsdp ? "use-torch-fsdp2" : megatronFsdp ? "data-parallel-sharding-strategy" : "use-distributed-optimizer");
    if (torchFsdp) sharding = "optim_grads_params";
    else if (megatronFsdp) sharding = strategy.value_or("optim_grads_params");
    if (sharding != "no_shard" && sharding != "optim" && sharding != "optim_grads" && sharding != "optim_grads_params")
        a.refuse("data-parallel-sharding-strategy", "expected no_shard, optim, optim_grads or optim_grads_params, got '" + sharding + "'");
    const bool sharded = sharding == "optim" || sharding == "optim_grads" || sharding == "optim_grads_params";
    if (sharded) {
        b.set("exec.optimizer_parallel", Value::boolean(true, shardMark));
        if (sharding != "optim") b.set("exec.grad_shard", Value::boolean(true, shardMark));
        if (sharding == "optim_grads_params") {
            b.set("exec.grad_shard_as_params", Value::boolean(true, shardMark));
            const auto reshard = a.flag("torch-fsdp2-reshard-after-forward");
            b.assume("exec.reshard_params", Value::boolean(reshard.value_or(true), shardMark), "FSDP frees gathered parameters after the forward unless told not to");
        }
        if (c > 1) b.assume("exec.shard_spans_cp", Value::boolean(true, shardMark), "Megatron-LM shards over the data-parallel group with context parallelism");
        if (const auto k = a.integer("num-distributed-optimizer-instances"); k && *k > 1) {
            const std::int64_t modelRanks = product({t, p, c}).value_or(0);
            if (!devices || modelRanks == 0 || *devices % modelRanks != 0 || (*devices / (t * p)) % *k != 0)
                a.refuse("num-distributed-optimizer-instances", "needs a device count whose dp·cp it divides");
            else
                b.set("exec.optimizer_shard", Value::integer(*devices / (t * p) / *k, a.mark("num-distributed-optimizer-instances")));
        }
    }
    // Recompute.
    const auto granularity = a.word("recompute-granularity");
    const auto method = a.word("recompute-method");
    const auto recomputed = a.integer("recompute-num-layers", 1);
    const auto modules = a.list("recompute-modules");
    const Mark rm = a.mark("recompute-granularity");
    auto range = [&](const std::string& option, std::optional<Value> ops = std::nullopt) {
        Value list = Value::list(rm), one = Value::map(rm);
        one.set("first", Value::integer(0, rm), rm);
        one.set("option", Value::string(option, rm), rm);
        if (ops) one.set("ops", std::move(*ops), rm);
        list.push(std::move(one));
        b.set("exec.recompute", std::move(list));
    };
    if (granularity == "selective") {
        std::set<std::string> mods(modules.begin(), modules.end());
        if (mods.empty() || mods == std::set<std::string>{"core_attn"}) {
            range("selective");
            b.set("exec.selective_rule", Value::string("megatron", rm));
        } else if (mods.contains("core_attn")) {
            a.refuse("recompute-modules", "core_attn together with other modules is not yet representable");
        } else {
            Value ops = Value::map(rm);
            for (const std::string& m : mods) {
                const char* op = m == "layernorm" ? "normOp" : m == "mla_up_proj" ? "attUp" : m == "moe_act" ? "ffAct" : nullptr;
                if (!op) a.refuse("recompute-modules", "'" + m + "' is not yet representable (core_attn, layernorm, mla_up_proj, moe_act are)");
                else ops.set(op, Value::string("recompute", rm), rm);
            }
            range("selective", std::move(ops));
        }
    } else if (granularity == "full") {
        if (method == "uniform" && recomputed.value_or(1) == 1) range("full");
        else if (method == "block" && recomputed) b.set("exec.full_recompute", Value::integer(*recomputed, a.mark("recompute-num-layers")));
        else a.refuse(method ? "recompute-method" : "recompute-granularity",
                      method == "uniform" ? "uniform groups of " + num(recomputed.value_or(1)) + " layers are not yet representable (1 is)"
                                          : "full recompute needs --recompute-method block or uniform, with --recompute-num-layers");
    } else if (granularity) {
        a.refuse("recompute-granularity", "expected full or selective, got '" + *granularity + "'");
    }
    if (!granularity && (method || recomputed || !modules.empty()))
        a.refuse(method ? "recompute-method" : recomputed ? "recompute-num-layers" : "recompute-modules", "takes effect with --recompute-granularity only");
    // Offload.
    if (a.flag("cpu-offloading").value_or(false)) {
        if (p > 1 || granularity)
            a.refuse("cpu-offloading", "Megatron-LM offloads activations only without pipeline parallelism and without recompute "
                                       "(megatron/core/transformer/transformer_config.py), so this run does not start");
        if (!a.flag("cpu-offloading-activations").value_or(true) || a.flag("cpu-offloading-weights").value_or(false))
            a.refuse("cpu-offloading-weights", "offloading weights is not yet representable (activations are)");
        b.set("exec.activation_offload", Value::integer(a.integer("cpu-offloading-num-layers", 0).value_or(0), a.mark("cpu-offloading")));
    }
    if (a.flag("optimizer-cpu-offload").value_or(false)) {
        b.set("exec.optimizer_offload", Value::number(a.real("optimizer-offload-fraction").value_or(1.0), a.mark("optimizer-cpu-offload")));
        onOff("optimizer_offload_overlap", "overlap-cpu-optimizer-d2h-h2d");
    }
    // Precision.
    const bool bf16 = a.flag("bf16").value_or(false), fp16 = a.flag("fp16").value_or(false);
    const auto fp8 = a.word("fp8-format");
    const Mark dm = a.mark(fp8 ? "fp8-format" : bf16 ? "bf16" : "fp16");
    if (fp8) {
        if (*fp8 != "e4m3" && *fp8 != "hybrid") a.refuse("fp8-format", "expected e4m3 or hybrid, got '" + *fp8 + "'");
        b.set("exec.compute_dtype", Value::string("fp8", dm));
        if (const auto recipe = a.word("fp8-recipe")) {
            if (*recipe == "custom") a.refuse("fp8-recipe", "a custom recipe is not yet representable");
            else b.set("exec.fp8_recipe", Value::string(*recipe, a.mark("fp8-recipe")));
        }
        onOff("fp8_attention", "fp8-dot-product-attention");
    } else if (bf16 || fp16) {
        b.set("exec.compute_dtype", Value::string(bf16 ? "bf16" : "fp16", dm));
    } else {
        b.assume("exec.compute_dtype", Value::string("fp32"), kDefault + ": fp32 without --bf16 or --fp16");
        for (const char* key : {"param_bytes", "compute_bytes", "softmax_bytes", "norm_bytes"})
            b.assume(std::string("exec.") + key, Value::integer(4), kDefault + ": fp32 without --bf16 or --fp16");
    }
    if (a.flag("grad-reduce-in-bf16").value_or(false)) b.set("exec.grad_bytes", Value::integer(2, a.mark("grad-reduce-in-bf16")));
    if (a.flag("attention-softmax-in-fp32").value_or(false)) b.set("exec.softmax_bytes", Value::integer(4, a.mark("attention-softmax-in-fp32")));
    if (a.flag("use-precision-aware-optimizer").value_or(false)) {
        const auto width = [](const std::optional<std::string>& dt) -> std::optional<std::int64_t> {
            if (!dt) return std::nullopt;
            return *dt == "fp32" ? 4 : (*dt == "bf16" || *dt == "fp16") ? 2 : *dt == "fp8" ? 1 : 0;
        };
        if (const auto w = width(a.word("main-params-dtype"))) b.set("exec.main_param_bytes", Value::integer(*w, a.mark("main-params-dtype")));
        const auto avg = width(a.word("exp-avg-dtype")), sq = width(a.word("exp-avg-sq-dtype"));
        if (avg && sq && *avg != *sq) a.refuse("exp-avg-sq-dtype", "moments of two widths are not yet representable");
        else if (avg || sq) b.set("exec.optimizer_state_bytes", Value::integer(avg ? *avg : *sq, a.mark(avg ? "exp-avg-dtype" : "exp-avg-sq-dtype")));
    }
    // Overlap, kernels, experts.
    onOff("overlapped_grad_reduce", "overlap-grad-reduce", false);
    onOff("overlap_param_gather", "overlap-param-gather", false);
    onOff("tp_comm_overlap", "tp-comm-overlap");
    if (a.has("overlap-p2p-comm")) onOff("overlap_p2p_comm", "overlap-p2p-comm");
    const auto backend = a.word("attention-backend");
    if (backend && *backend != "flash" && *backend != "fused" && *backend != "auto" && *backend != "unfused" && *backend != "local")
        a.refuse("attention-backend", "expected flash, fused, unfused, local or auto, got '" + *backend + "'");
    if (backend) b.set("exec.flash_attention", Value::boolean(*backend != "unfused" && *backend != "local", a.mark("attention-backend")));
    else onOff("flash_attention", "use-flash-attn");
    if (const auto clip = a.real("clip-grad")) b.set("exec.grad_clip", Value::boolean(*clip > 0, a.mark("clip-grad")));
    if (const auto opt = a.word("optimizer")) {
        if (*opt == "adam" || *opt == "muon") b.set("exec.optimizer", Value::string(*opt == "adam" ? "adamw" : "muon", a.mark("optimizer")));
        else a.refuse("optimizer", "'" + *opt + "' is not yet representable (adam and muon are)");
    }
    if (b.get("model.num_experts")) {
        onOff("grouped_gemm", "moe-grouped-gemm", false);
        if (const auto cf = a.real("moe-expert-capacity-factor")) b.set("exec.capacity_factor", Value::number(*cf, a.mark("moe-expert-capacity-factor")));
        onOff("overlap_moe_expert_parallel_comm", "overlap-moe-expert-parallel-comm");
        onOff("moe_enable_deepep", "moe-enable-deepep");
        onOff("activation_func_fp8_input_store", "activation-func-fp8-input-store");
        const auto dispatcher = a.word("moe-token-dispatcher-type");
        const std::string kind = dispatcher.value_or("allgather");
        if (kind == "allgather" && e > 1)
            a.refuse(dispatcher ? "moe-token-dispatcher-type" : "expert-model-parallel-size",
                     "the allgather dispatcher (Megatron-LM's default) is not priced over expert parallelism: Tessera prices "
                     "alltoall (and flex with --moe-enable-deepep); state --moe-token-dispatcher-type alltoall");
        else if (kind != "allgather" && kind != "alltoall" && kind != "flex")
            a.refuse("moe-token-dispatcher-type", "expected allgather, alltoall or flex, got '" + kind + "'");
    }
    // Megatron-LM's cp_comm_type: p2p is the ring, a2a Ulysses' all-to-all, a2a+p2p both.
    const auto cpComm = a.list("cp-comm-type");
    if (!cpComm.empty()) {
        const std::string& kind = cpComm.front();
        if (std::any_of(cpComm.begin(), cpComm.end(), [&](const std::string& k) { return k != kind; }))
            a.refuse("cp-comm-type", "one type per layer is not yet representable");
        else if (kind == "p2p" || kind == "a2a" || kind == "a2a+p2p")
            b.set("exec.cp_algo", Value::string(kind == "p2p" ? "colossalai_cp" : kind == "a2a" ? "ulysses_cp" : "hybrid_cp", a.mark("cp-comm-type")));
        else a.refuse("cp-comm-type", "'" + kind + "' is not yet representable (p2p, a2a, a2a+p2p are)");
    }
}

}  // namespace

Imported readMegatron(const Launch& launch, ConfigFormat format, const Mark& root, const ImportCluster& cluster, Diagnostics& d) {
    Builder b(d);
    Args a(launch.args, d);
    if (cluster.device) b.set("cluster.device", *cluster.device);
    const std::optional<std::int64_t> devices = readDevices(launch, b, cluster);
    std::int64_t tp = 1;  // for the vocabulary's padding; read (and refused) with the strategy
    for (const LaunchArg& arg : launch.args)
        if (arg.name == "tensor-model-parallel-size" && arg.values.size() == 1) tp = std::max<std::int64_t>(1, wholeNumber(arg.values.front()).value_or(1));
    readModel(a, b, tp);
    readStrategy(a, b, devices);
    a.listUnread(b, "pretrain_gpt.py");
    if (!cluster.device) d.add(root, "cluster.device", "Megatron-LM's arguments do not name the device: give a device preset "
                                                       "(import --device PRESET; `tessera presets` lists them)");
    return b.finish(format, root);
}

}  // namespace tessera::core::trainers
