#include "trainers/mindformers.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "io/dtype.h"
#include "io/specreader.h"

namespace tessera::core::trainers {

bool isMindFormersConfig(const Value& root) {
    return root.isMap() && root.find("parallel_config") && root.find("model") && root.find("model")->isMap() &&
           root.find("model")->find("model_config");
}

namespace {

// Keys by dotted path, each read once; what no reader read is listed as not priced.
class Keys {
public:
    Keys(const Value& root, Builder& b) : m_root(root), m_b(b) {}
    const Value* at(const std::string& path) {
        m_read.insert(path);
        const Value* v = &m_root;
        std::size_t start = 0;
        while (v && v->isMap()) {
            const auto dot = path.find('.', start);
            v = v->find(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
            if (dot == std::string::npos) return v && !v->isNull() ? v : nullptr;
            start = dot + 1;
        }
        return nullptr;
    }
    std::optional<std::int64_t> integer(const std::string& path, std::int64_t least = 1) {
        const Value* v = at(path);
        return v ? readInteger(*v, IntRange{least, kMaxStated}, path, m_b.diagnostics()) : std::nullopt;
    }
    std::optional<bool> flag(const std::string& path) {
        const Value* v = at(path);
        if (!v) return std::nullopt;
        if (v->kind() == Value::Kind::Bool) return v->asBool();
        m_b.refuse(v->mark(), path, "expected true or false, got " + v->describe());
        return std::nullopt;
    }
    std::optional<std::string> text(const std::string& path) {
        const Value* v = at(path);
        if (!v) return std::nullopt;
        if (v->kind() == Value::Kind::String) return v->asString();
        m_b.refuse(v->mark(), path, "expected text, got " + v->describe());
        return std::nullopt;
    }
    Mark mark(const std::string& path) {
        const bool was = m_read.contains(path);
        const Value* v = at(path);
        if (!was) m_read.erase(path);
        return v ? v->mark() : m_root.mark();
    }
    void listUnread(const Value& map, const std::string& prefix) {
        for (const Value::Entry& e : map.entries()) {
            const std::string path = prefix + e.key;
            if (m_read.contains(path)) continue;
            if (e.value.isMap()) {
                listUnread(e.value, path + ".");
                continue;
            }
            if (e.value.isNull()) continue;
            m_b.unpriced(e.value.mark(), path, "not priced: not a key Tessera reads, so it changes nothing it prices");
        }
    }

private:
    const Value& m_root;
    Builder& m_b;
    std::set<std::string> m_read;
};

// A per-stage count field of MindFormers' recompute_config: true, false, or counts.
void stageCounts(Keys& k, Builder& b, const std::string& path, const char* key) {
    const Value* v = k.at(path);
    if (!v) return;
    if (v->kind() == Value::Kind::Bool || v->isList()) b.set(std::string("exec.") + key, *v);
    else b.refuse(v->mark(), path, "expected true, false or layer counts per stage, got " + v->describe());
}

}  // namespace

Imported readMindFormers(const Value& root, const ImportCluster& cluster, Diagnostics& d) {
    Builder b(d);
    Keys k(root, b);
    const std::string M = "model.model_config.";
    // Parallelism; the device count is their product.
    auto count = [&](const char* key, const std::string& path) {
        const auto n = k.integer(path);
        if (n) b.set(std::string("exec.") + key, Value::integer(*n, k.mark(path)));
        return n.value_or(1);
    };
    const std::int64_t dp = count("dp", "parallel_config.data_parallel");
    const std::int64_t tp = count("tp", "parallel_config.model_parallel");
    const std::int64_t pp = count("pp", "parallel_config.pipeline_stage");
    const std::int64_t cp = count("cp", "parallel_config.context_parallel");
    count("ep", "parallel_config.expert_parallel");
    const std::int64_t devices = product({dp, tp, pp, cp}).value_or(0);
    if (devices == 0 || devices > (1 << 24))
        d.add(k.mark("parallel_config"), "parallel_config", "data_parallel · model_parallel · pipeline_stage · context_parallel is more than 16,777,216 devices");
    else b.set("cluster.devices", Value::integer(devices, k.mark("parallel_config")));
    if (cluster.devices && *cluster.devices != devices)
        d.add(k.mark("parallel_config"), "parallel_config", "states " + num(devices) + " devices (data_parallel · model_parallel · "
                                                            "pipeline_stage · context_parallel), and the command line says " + num(*cluster.devices));
    if (cluster.device) b.set("cluster.device", *cluster.device);
    else d.add(root.mark(), "cluster.device", "a MindFormers configuration does not name the device: give a device preset (import --device PRESET)");
    if (const auto sp = k.flag("parallel_config.use_seq_parallel")) b.set("exec.sequence_parallel", Value::boolean(*sp, k.mark("parallel_config.use_seq_parallel")));
    if (const auto v = k.flag("parallel_config.vocab_emb_dp")) b.set("exec.vocab_emb_dp", Value::boolean(*v, k.mark("parallel_config.vocab_emb_dp")));
    if (auto algo = k.text("parallel_config.context_parallel_algo")) {
        if (*algo == "hybird_cp") algo = "hybrid_cp";  // the seed accepts its own typo
        b.set("exec.cp_algo", Value::string(*algo, k.mark("parallel_config.context_parallel_algo")));
    }
    const auto vpp = k.integer(M + "pp_interleave_num");
    if (vpp) b.set("exec.vpp", Value::integer(*vpp, k.mark(M + "pp_interleave_num")));
    const auto scheduler = k.text("parallel.pipeline_config.pipeline_scheduler");
    if (scheduler && *scheduler != "1f1b")
        b.refuse(k.mark("parallel.pipeline_config.pipeline_scheduler"), "parallel.pipeline_config.pipeline_scheduler",
                 "'" + *scheduler + "' is not yet read from a MindFormers file (1f1b is)");
    (void)k.flag("parallel.pipeline_config.pipeline_interleave");
    if (vpp.value_or(1) > 1) b.assume("exec.pp_schedule", Value::string("interleaved", k.mark(M + "pp_interleave_num")), "MindFormers' 1f1b with pp_interleave_num > 1");
    // Batches: runner_config.batch_size is the micro-batch; without a pipeline the
    // accumulation steps, with one micro_batch_num, are the micro-batches of a step.
    count("micro_batch_size", "runner_config.batch_size");
    const auto mbn = k.integer("parallel_config.micro_batch_num");
    const auto accumulation = k.integer("runner_config.gradient_accumulation_steps");
    if (pp > 1 && mbn) b.set("exec.micro_batch_num", Value::integer(product({*mbn, accumulation.value_or(1)}).value_or(kMaxStated), k.mark("parallel_config.micro_batch_num")));
    else if (pp == 1) {
        b.set("exec.micro_batch_num", Value::integer(accumulation.value_or(1), k.mark("runner_config.gradient_accumulation_steps")));
        if (mbn) b.unpriced(k.mark("parallel_config.micro_batch_num"), "parallel_config.micro_batch_num",
                            "not priced: MindFormers cuts micro-batches for the pipeline only, and pipeline_stage is 1");
    }
    if (const auto s = k.integer(M + "seq_length")) b.set("exec.seq_length", Value::integer(*s, k.mark(M + "seq_length")));
    // Sharding.
    if (const auto on = k.flag("parallel.enable_parallel_optimizer")) {
        b.set("exec.optimizer_parallel", Value::boolean(*on, k.mark("parallel.enable_parallel_optimizer")));
        if (*on) {
            if (const auto g = k.flag("parallel.parallel_optimizer_config.gradient_accumulation_shard"))
                b.set("exec.grad_shard", Value::boolean(*g, k.mark("parallel.parallel_optimizer_config.gradient_accumulation_shard")));
            if (const auto s = k.integer("parallel.parallel_optimizer_config.optimizer_weight_shard_size"); s && *s > 1)
                b.set("exec.optimizer_shard", Value::integer(*s, k.mark("parallel.parallel_optimizer_config.optimizer_weight_shard_size")));
        }
    }
    // Recompute, by MindFormers' selective rule.
    stageCounts(k, b, "recompute_config.recompute", "full_recompute");
    stageCounts(k, b, "recompute_config.select_recompute", "selective_recompute");
    stageCounts(k, b, "recompute_config.select_comm_recompute", "selective_comm_recompute");
    if (b.has("exec.selective_recompute") || b.has("exec.selective_comm_recompute"))
        b.assume("exec.selective_rule", Value::string("mindformers", k.mark("recompute_config")), "MindFormers' own selective recompute");
    if (const auto slice = k.flag("recompute_config.recompute_slice_activation"))
        b.set("exec.recompute_slice_activation", Value::boolean(*slice, k.mark("recompute_config.recompute_slice_activation")));
    if (const Value* offset = k.at(M + "offset")) b.set("exec.offset", *offset);
    // Widths and kernels.
    auto width = [&](const char* key, const char* bytesKey, const std::string& path) {
        const auto name = k.text(path);
        if (!name) return false;
        const auto w = dtypeOf(*name);
        if (!w) {
            b.refuse(k.mark(path), path, "expected a dtype (bfloat16, float16, float32), got '" + *name + "'");
            return true;
        }
        b.set(std::string("exec.") + bytesKey, Value::integer(w->bytes, k.mark(path)));
        if (key) b.set(std::string("exec.") + key, Value::string(w->name, k.mark(path)));
        return true;
    };
    if (!width(nullptr, "param_bytes", M + "param_init_type")) width(nullptr, "param_bytes", M + "params_dtype");
    width("compute_dtype", "compute_bytes", M + "compute_dtype");
    if (!width(nullptr, "softmax_bytes", M + "softmax_compute_type")) width(nullptr, "softmax_bytes", M + "softmax_compute_dtype");
    if (const auto fa = k.flag(M + "use_flash_attention")) b.set("exec.flash_attention", Value::boolean(*fa, k.mark(M + "use_flash_attention")));
    if (const auto clip = k.flag("runner_wrapper.use_clip_grad")) b.set("exec.grad_clip", Value::boolean(*clip, k.mark("runner_wrapper.use_clip_grad")));
    if (const auto opt = k.text("optimizer.type")) {
        std::string lower = *opt;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower.find("adam") != std::string::npos) b.set("exec.optimizer", Value::string("adamw", k.mark("optimizer.type")));
        else if (lower.find("muon") != std::string::npos) b.set("exec.optimizer", Value::string("muon", k.mark("optimizer.type")));
        else b.refuse(k.mark("optimizer.type"), "optimizer.type", "'" + *opt + "' is not yet representable (AdamW and Muon are)");
    }
    if (const auto memory = k.text("context.max_device_memory")) {
        if (parseMemory(*memory)) b.set("exec.device_memory", *k.at("context.max_device_memory"));
        else b.refuse(k.mark("context.max_device_memory"), "context.max_device_memory", "expected an amount such as \"58GB\", got '" + *memory + "'");
    }
    // The model: the family from model.arch.type, the sizes from model_config.
    std::string arch = k.text("model.arch.type").value_or("");
    std::transform(arch.begin(), arch.end(), arch.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::string family = arch.find("deepseek") != std::string::npos ? "deepseek"
                               : arch.find("qwen3") != std::string::npos  ? "qwen3"
                               : arch.find("qwen") != std::string::npos   ? "qwen"
                               : arch.find("mixtral") != std::string::npos ? "mixtral"
                                                                           : "llama";
    b.assume("model.arch", Value::string(family, k.mark("model.arch.type")), "model.arch.type " + k.text("model.arch.type").value_or("(unstated: llama)"));
    if (const auto name = k.text("trainer.model_name")) b.set("model.name", Value::string(*name, k.mark("trainer.model_name")));
    if (k.flag(M + "is_encoder_decoder").value_or(false)) b.refuse(k.mark(M + "is_encoder_decoder"), M + "is_encoder_decoder", "an encoder-decoder model is not yet representable");
    auto size = [&](const char* key, std::initializer_list<std::string> paths, std::int64_t least = 1) {
        for (const std::string& p : paths)
            if (k.at(M + p)) {
                if (const auto n = k.integer(M + p, least)) b.set(std::string("model.") + key, Value::integer(*n, k.mark(M + p)));
                return;
            }
    };
    size("num_hidden_layers", {"num_layers", "num_hidden_layers"});
    size("hidden_size", {"hidden_size"});
    size("num_attention_heads", {"num_heads", "num_attention_heads"});
    size("num_key_value_heads", {"n_kv_heads", "num_key_value_heads"});
    size("vocab_size", {"vocab_size"});
    size("intermediate_size", {"intermediate_size"});
    size("max_position_embeddings", {"max_position_embeddings"});
    size("kv_lora_rank", {"kv_lora_rank"});
    size("q_lora_rank", {"q_lora_rank"}, 0);
    size("qk_rope_head_dim", {"qk_rope_head_dim"});
    size("mtp_depth", {"mtp_depth", "num_nextn_predict_layers"}, 0);
    if (const auto qk = k.flag(M + "qk_layernorm")) b.set("model.qk_norm", Value::boolean(*qk, k.mark(M + "qk_layernorm")));
    if (const auto tie = k.flag(M + "tie_word_embeddings")) b.set("model.tie_word_embeddings", Value::boolean(*tie, k.mark(M + "tie_word_embeddings")));
    // Llama's FFN width from multiple_of and ffn_dim_multiplier, as MindFormers computes it.
    if (!b.has("model.intermediate_size") && b.has("model.hidden_size") && k.at(M + "multiple_of")) {
        const std::int64_t h = b.get("model.hidden_size")->asInt(), multiple = k.integer(M + "multiple_of").value_or(256);
        double width = std::floor(2.0 * 4 * double(h) / 3);
        if (const Value* f = k.at(M + "ffn_dim_multiplier"); f && (f->kind() == Value::Kind::Float || f->kind() == Value::Kind::Int))
            width = std::floor(f->asDouble() * width);
        b.assume("model.intermediate_size", Value::integer(multiple * ((std::int64_t(width) + multiple - 1) / multiple), k.mark(M + "multiple_of")),
                 "MindFormers' width: multiple_of · ceil(ffn_dim_multiplier · 8h/3 / multiple_of)");
    }
    if (!b.has("model.max_position_embeddings") && b.has("exec.seq_length"))
        b.assume("model.max_position_embeddings", *b.get("exec.seq_length"), "model_config.seq_length");
    // Experts: moe_config, or the model_config's own MoE keys.
    if (k.at("moe_config")) {
        const std::string E = "moe_config.";
        auto moe = [&](const char* key, const std::string& path, std::int64_t least = 1) {
            if (const auto n = k.integer(path, least)) b.set(std::string("model.") + key, Value::integer(*n, k.mark(path)));
        };
        moe("num_experts", E + "expert_num");
        moe("num_experts_per_tok", E + "num_experts_chosen");
        moe("num_shared_experts", E + "shared_expert_num", 0);
        moe("moe_intermediate_size", E + "moe_intermediate_size");
        moe("first_k_dense_replace", E + "first_k_dense_replace", 0);
        if (const Value* cf = k.at(E + "capacity_factor"); cf && cf->asDouble() > 0) b.set("exec.capacity_factor", Value::number(cf->asDouble(), cf->mark()));
        if (const auto gmm = k.flag(E + "use_gmm")) b.set("exec.grouped_gemm", Value::boolean(*gmm, k.mark(E + "use_gmm")));
        if (const auto etp = k.integer(E + "expert_model_parallel", 0))
            if (auto v = statedExpertTp(*etp <= 1 ? tp : *etp, k.mark(E + "expert_model_parallel"), tp, E + "expert_model_parallel", d)) b.set("exec.expert_tp", *v);
    } else {
        size("num_experts", {"n_routed_experts"});
        size("num_experts_per_tok", {"num_experts_per_tok"});
        size("num_shared_experts", {"n_shared_experts"}, 0);
        size("moe_intermediate_size", {"moe_intermediate_size"});
        size("first_k_dense_replace", {"first_k_dense_replace"}, 0);
        if (const auto gmm = k.flag(M + "moe_grouped_gemm")) b.set("exec.grouped_gemm", Value::boolean(*gmm, k.mark(M + "moe_grouped_gemm")));
    }
    k.listUnread(root, "");
    return b.finish(ConfigFormat::MindFormers, root.mark());
}

}  // namespace tessera::core::trainers
