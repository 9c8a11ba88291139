#include <algorithm>
#include <filesystem>
#include <set>

#include "io/scenarioio.h"
#include "trainers/torchtitan.h"

namespace tessera::core::trainers {

namespace fs = std::filesystem;

// torchtitan's model flavors that are Tessera's presets (torchtitan/models/*/__init__.py).

std::vector<std::int64_t> torchtitanSplit(std::int64_t layers, std::int64_t stages, std::int64_t first, std::int64_t last) {
    if (stages == 1) return {layers};
    const std::int64_t effective = layers + first + last, per = effective / stages, extra = effective % stages;
    std::vector<std::int64_t> out;
    std::int64_t placed = 0;
    for (std::int64_t s = 0; s < stages; ++s) {
        std::int64_t n = per + (s < extra ? 1 : 0) - (s == 0 ? first : s == stages - 1 ? last : 0);
        n = std::clamp<std::int64_t>(n, 0, layers - placed);
        out.push_back(n);
        placed += n;
    }
    return out;
}

bool isTorchtitanConfig(const Value& root) {
    return root.isMap() && (root.find("parallelism") || root.find("training")) && root.find("model") && root.find("model")->isMap() &&
           !root.find("accelerator");
}

namespace {

class Titan {
public:
    Titan(const Value& root, Builder& b) : m_root(root), m_b(b) {}
    const Value* at(const std::string& section, const std::string& key) {
        m_read.insert(section + "." + key);
        const Value* s = walk(section);
        return s && s->isMap() ? s->find(key) : nullptr;
    }
    std::optional<std::int64_t> integer(const std::string& section, const std::string& key, std::int64_t least) {
        const Value* v = at(section, key);
        if (!v) return std::nullopt;
        if (v->kind() != Value::Kind::Int || v->asInt() < least || v->asInt() > kMaxStated) {
            m_b.refuse(v->mark(), label(section, key), "expected a whole number from " + num(least) + " to " + num(kMaxStated) + ", got " + v->describe());
            return std::nullopt;
        }
        return v->asInt();
    }
    std::optional<std::string> text(const std::string& section, const std::string& key) {
        const Value* v = at(section, key);
        if (!v) return std::nullopt;
        if (v->kind() != Value::Kind::String) {
            m_b.refuse(v->mark(), label(section, key), "expected text, got " + v->describe());
            return std::nullopt;
        }
        return v->asString();
    }
    std::optional<bool> flag(const std::string& section, const std::string& key) {
        const Value* v = at(section, key);
        if (!v) return std::nullopt;
        if (v->kind() != Value::Kind::Bool) {
            m_b.refuse(v->mark(), label(section, key), "expected true or false, got " + v->describe());
            return std::nullopt;
        }
        return v->asBool();
    }
    Mark mark(const std::string& section, const std::string& key) {
        const Value* s = walk(section);
        const Value* v = s && s->isMap() ? s->find(key) : nullptr;
        return v ? v->mark() : s ? s->mark() : m_root.mark();
    }
    static std::string label(const std::string& section, const std::string& key) { return "[" + section + "] " + key; }
    void refuse(const std::string& section, const std::string& key, const std::string& message) {
        m_b.refuse(mark(section, key), label(section, key), message);
    }
    // Every key no reader looked at: not priced, with why.
    void listUnread(const Value& map, const std::string& section) {
        for (const Value::Entry& e : map.entries()) {
            const std::string path = section.empty() ? e.key : section + "." + e.key;
            if (e.value.isMap() && !m_read.contains(path)) {
                listUnread(e.value, path);
                continue;
            }
            if (m_read.contains(path)) continue;
            const std::string top = path.substr(0, path.find('.'));
            static const std::set<std::string> kNeutral = {"job", "profiling", "metrics", "lr_scheduler", "checkpoint", "comm",
                                                           "validation", "debug", "fault_tolerance", "experimental",
                                                           "memory_estimation", "compile", "optimizer"};
            const std::string key = "[" + section + "] " + e.key;
            m_b.unpriced(e.value.mark(), key, kNeutral.contains(top)
                                                  ? "not priced: [" + top + "] changes no memory or step time Tessera models"
                                                  : "not priced: not a key Tessera reads, so it changes nothing it prices");
        }
    }

private:
    const Value* walk(const std::string& section) {
        const Value* at = &m_root;
        std::size_t start = 0;
        while (at && at->isMap()) {
            const auto dot = section.find('.', start);
            at = at->find(section.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
            if (dot == std::string::npos) return at;
            start = dot + 1;
        }
        return nullptr;
    }
    const Value& m_root;
    Builder& m_b;
    std::set<std::string> m_read;
};

void readModel(Titan& t, Builder& b, const std::string& baseDir) {
    const auto name = t.text("model", "name");
    const auto flavor = t.text("model", "flavor");
    const auto assets = t.text("model", "hf_assets_path");
    for (const Flavor& f : kFlavors)
        if (name == f.name && flavor == f.flavor) {
            b.set("model.preset", Value::string(f.preset, t.mark("model", "flavor")));
            if (f.mtpDepth >= 0) b.set("model.mtp_depth", Value::integer(f.mtpDepth, t.mark("model", "flavor")));
            return;
        }
    if (assets) {
        fs::path p = fs::path(*assets);
        if (p.is_relative()) p = fs::path(baseDir.empty() ? "." : baseDir) / p;
        std::error_code ec;
        if (fs::is_directory(p, ec)) p /= "config.json";
        if (fs::exists(p, ec)) {
            b.set("model.file", Value::string(fs::absolute(p).lexically_normal().string(), t.mark("model", "hf_assets_path")));
            return;
        }
    }
    // torchtitan removed its llama4 model on 2026-06-08 ("[BE] deprecate llama4", pytorch/torchtitan#3573):
    // an older job file still names it; its Hugging Face config prices it.
    if (name == "llama4")
        return t.refuse("model", "name", "torchtitan's llama4 (" + flavor.value_or("debugmodel") + ") has no Tessera preset, "
                                         "and torchtitan removed the model in June 2026 (#3573): point hf_assets_path at the "
                                         "model's folder and its config.json prices it (Llama 4's family, tower and all)");
    t.refuse("model", "flavor", "torchtitan's " + name.value_or("llama3") + " " + flavor.value_or("debugmodel") +
                                " is not a Tessera preset (llama3 8B, 70B and 405B, qwen3 32B and 235B-A22B, deepseek_v3 671B are), and hf_assets_path holds no local "
                                "config.json: point hf_assets_path at the model's folder");
}


// The layers a model has, for the pipeline split: the preset's or the config's.
std::optional<std::int64_t> modelLayers(const Builder& b) {
    try {
        Value holder = Value::map();
        Value model = Value::map();
        if (const Value* p = b.get("model.preset")) model.set("preset", *p);
        if (const Value* f = b.get("model.file")) model.set("file", *f);
        holder.set("model", model);
        holder.set("exec", Value::map());
        holder.set("cluster", Value::map());
        return *resolveModel(scenarioFromValue(holder, "torchtitan", "")).num_hidden_layers;
    } catch (const SpecError&) {
        return std::nullopt;
    }
}

void readStrategy(Titan& t, Builder& b, const ImportCluster& cluster) {
    const std::string P = "parallelism";
    auto count = [&](const char* key, const std::string& section, const char* tomlKey) {
        const auto n = t.integer(section, tomlKey, 1);
        if (n) b.set(std::string("exec.") + key, Value::integer(*n, t.mark(section, tomlKey)));
        return n.value_or(1);
    };
    const std::int64_t tp = count("tp", P, "tensor_parallel_degree");
    const std::int64_t pp = count("pp", P, "pipeline_parallel_degree");
    const std::int64_t cp = count("cp", P, "context_parallel_degree");
    const std::int64_t ep = count("ep", P, "expert_parallel_degree");
    if (tp > 1) b.assume("exec.sequence_parallel", Value::boolean(true, t.mark(P, "tensor_parallel_degree")),
                         "torchtitan's tensor parallelism always shards the norms over the sequence");
    const auto etp = t.integer(P, "expert_tensor_parallel_degree", 1);
    const bool moe = [&] {
        const Value* e = b.get("model.num_experts");
        return e && e->asInt() > 1;
    }();
    // torchtitan's default is 1: experts whole on each ep rank.
    if (ep > 1)
        if (auto v = statedExpertTp(etp.value_or(1), t.mark(P, "expert_tensor_parallel_degree"), tp,
                                    Titan::label(P, "expert_tensor_parallel_degree"), b.diagnostics()))
            b.set("exec.expert_tp", std::move(*v));
    (void)moe;
    if (const auto lp = t.flag(P, "disable_loss_parallel")) b.set("exec.loss_parallel", Value::boolean(!*lp, t.mark(P, "disable_loss_parallel")));
    // Async TP runs only under torch.compile (job_config.py): without [compile] enable it changes nothing.
    const bool compiled = t.flag("compile", "enable").value_or(false);
    if (const auto async = t.flag(P, "enable_async_tensor_parallel")) {
        if (*async && !compiled)
            b.unpriced(t.mark(P, "enable_async_tensor_parallel"), Titan::label(P, "enable_async_tensor_parallel"),
                       "not priced: torchtitan's async tensor parallelism takes effect under [compile] enable only");
        else b.set("exec.tp_comm_overlap", Value::boolean(*async, t.mark(P, "enable_async_tensor_parallel")));
    }
    if (const auto backend = t.text(P, "expert_parallel_comm_backend")) {
        if (*backend != "standard" && *backend != "deepep") t.refuse(P, "expert_parallel_comm_backend", "expected standard or deepep, got '" + *backend + "'");
        else b.set("exec.moe_enable_deepep", Value::boolean(*backend == "deepep", t.mark(P, "expert_parallel_comm_backend")));
    }
    // Devices: torchtitan takes them from its launcher, so from the command line here.
    std::optional<std::int64_t> devices = cluster.devices;
    if (devices) b.set("cluster.devices", Value::integer(*devices));
    else b.refuse(t.mark("", ""), "cluster.devices", "a torchtitan job configuration states no device count: give one (import --devices N)");
    // Data parallelism: replicas x shards, the shards -1 taking the ranks left.
    const std::int64_t replicas = t.integer(P, "data_parallel_replicate_degree", 1).value_or(1);
    std::int64_t shards = 0;  // 0: not known (refused, or -1 without a device count)
    const std::int64_t others = product({replicas, tp, pp, cp}).value_or(0);  // 0: past 2^63, divides nothing
    if (const Value* s = t.at(P, "data_parallel_shard_degree"); s && s->kind() == Value::Kind::Int && s->asInt() == -1) {
        if (devices && others > 0 && *devices % others == 0) shards = *devices / others;
        else if (devices) t.refuse(P, "data_parallel_shard_degree", "-1 takes the ranks left, and " + num(*devices) + " devices do not divide by replicas·tp·pp·cp");
    } else {
        shards = t.integer(P, "data_parallel_shard_degree", 1).value_or(0);
    }
    if (!t.at(P, "data_parallel_shard_degree") && devices && others > 0 && *devices % others == 0)
        shards = *devices / others;  // unstated: -1, torchtitan's default
    if (shards && !product({replicas, shards, cp, tp, pp})) {
        t.refuse(P, "data_parallel_shard_degree", "replicas·shards·tp·pp·cp is beyond 2^63-1, more ranks than any cluster has");
        shards = 0;
    }
    const Mark dm = t.mark(P, "data_parallel_shard_degree");
    if (shards) {
        b.set("exec.dp", Value::integer(replicas * shards, dm));
        const std::int64_t ranks = shards * cp;  // FSDP's dp_shard_cp mesh
        if (ranks > 1) {
            for (const char* key : {"optimizer_parallel", "grad_shard", "grad_shard_as_params"}) b.set(std::string("exec.") + key, Value::boolean(true, dm));
            b.set("exec.optimizer_shard", Value::integer(ranks, dm));
            if (cp > 1) b.set("exec.shard_spans_cp", Value::boolean(true, dm));
            const std::string policy = t.text(P, "fsdp_reshard_after_forward").value_or("default");
            if (policy != "default" && policy != "always" && policy != "never")
                t.refuse(P, "fsdp_reshard_after_forward", "expected default, always or never, got '" + policy + "'");
            b.assume("exec.reshard_params", Value::boolean(policy == "always" || (policy == "default" && pp == 1), t.mark(P, "fsdp_reshard_after_forward")),
                     "torchtitan's fsdp_reshard_after_forward " + policy + (policy == "default" ? " (reshards unless pipelined)" : ""));
        }
    }
    // Batches: with a pipeline, local_batch_size is cut into micro-batches.
    const std::string T = "training";
    const std::int64_t local = t.integer(T, "local_batch_size", 1).value_or(8);
    if (!t.at(T, "local_batch_size")) b.assume("exec.micro_batch_size", Value::integer(8), "torchtitan's default local_batch_size");
    const std::int64_t micro = pp > 1 ? t.integer(P, "pipeline_parallel_microbatch_size", 1).value_or(1) : local;
    if (local % micro != 0) t.refuse(P, "pipeline_parallel_microbatch_size", "must divide local_batch_size (" + num(local) + ")");
    b.set("exec.micro_batch_size", Value::integer(micro, t.mark(pp > 1 ? P : T, pp > 1 ? "pipeline_parallel_microbatch_size" : "local_batch_size")));
    const auto global = t.at(T, "global_batch_size");
    if (global && global->kind() == Value::Kind::Int && global->asInt() > 0) {
        b.set("exec.global_batch_size", Value::integer(global->asInt(), global->mark()));
        const std::optional<std::int64_t> flush = shards ? product({local, replicas, shards}) : std::nullopt;
        if (pp > 1 && shards && (!flush || global->asInt() != *flush))
            t.refuse(T, "global_batch_size", "with a pipeline, accumulating gradients over several pipeline flushes is not yet "
                                             "representable: state local_batch_size · dp" + (flush ? " = " + num(*flush) : std::string()));
    } else {
        b.set("exec.micro_batch_num", Value::integer(local / std::max<std::int64_t>(micro, 1), t.mark(T, "local_batch_size")));
    }
    if (const auto s = t.integer(T, "seq_len", 1)) b.set("exec.seq_length", Value::integer(*s, t.mark(T, "seq_len")));
    else b.assume("exec.seq_length", Value::integer(2048), "torchtitan's default seq_len");
    // training.steps of the stated global batch: the run's token budget. Without a stated
    // global batch it stays listed as not priced.
    if (const Value *gbs = b.get("exec.global_batch_size"), *seq = b.get("exec.seq_length"); gbs && seq && t.at(T, "steps"))
        if (const auto steps = t.integer(T, "steps", 1))
            b.set("exec.train_tokens", Value::integer(*steps * gbs->asInt() * seq->asInt(), t.mark(T, "steps")));
    if (const Value* norm = t.at(T, "max_norm"); norm && (norm->kind() == Value::Kind::Int || norm->kind() == Value::Kind::Float))
        b.set("exec.grad_clip", Value::boolean(norm->asDouble() > 0, norm->mark()));
    const std::string dtype = t.text(T, "dtype").value_or("float32");
    if (dtype == "bfloat16") {
        for (auto [key, n] : {std::pair{"param_bytes", 2}, {"grad_bytes", 2}, {"optimizer_state_bytes", 2}, {"main_param_bytes", 0}})
            b.set(std::string("exec.") + key, Value::integer(n, t.mark(T, "dtype")));
    } else if (dtype != "float32") {
        t.refuse(T, "dtype", "expected bfloat16 or float32, got '" + dtype + "'");
    }
    if (const auto mp = t.text(T, "mixed_precision_param")) {
        if (*mp == "float32") b.set("exec.compute_dtype", Value::string("fp32", t.mark(T, "mixed_precision_param")));
        else if (*mp != "bfloat16") t.refuse(T, "mixed_precision_param", "expected bfloat16 or float32, got '" + *mp + "'");
    }
    if (t.flag(T, "enable_cpu_offload").value_or(false))
        t.refuse(T, "enable_cpu_offload", "FSDP's offload of parameters, gradients and optimizer states is not yet representable");
    (void)t.text(T, "mixed_precision_reduce");  // float32 only: Tessera's fp32 gradient reduction
    // Pipeline: the schedule, and the layers of each (virtual) stage.
    const auto schedule = t.text(P, "pipeline_parallel_schedule").value_or("1F1B");
    static const std::pair<const char*, const char*> kSchedules[] = {
        {"1F1B", "1f1b"}, {"GPipe", "gpipe"}, {"Interleaved1F1B", "interleaved"}, {"ZBVZeroBubble", "zbv"}, {"DualPipeV", "dualpipev"}};
    std::string ours;
    for (auto [theirs, mine] : kSchedules)
        if (schedule == theirs) ours = mine;
    if (pp > 1 && ours.empty()) t.refuse(P, "pipeline_parallel_schedule", "'" + schedule + "' is not yet representable (1F1B, GPipe, Interleaved1F1B, ZBVZeroBubble, DualPipeV are)");
    const bool single = ours == "1f1b" || ours == "gpipe";
    if (pp > 1 && !ours.empty()) b.set("exec.pp_schedule", Value::string(ours, t.mark(P, "pipeline_parallel_schedule")));
    if (const auto csv = t.text(P, "pipeline_parallel_schedule_csv"); csv && !csv->empty()) t.refuse(P, "pipeline_parallel_schedule_csv", "a schedule from a file is not yet representable");
    const std::int64_t first = t.integer(P, "pipeline_parallel_first_stage_less_layers", 0).value_or(1);
    const std::int64_t last = t.integer(P, "pipeline_parallel_last_stage_less_layers", 0).value_or(1);
    const auto perStage = t.integer(P, "pipeline_parallel_layers_per_stage", 1);
    const Value* fqns = t.at(P, "module_fqns_per_model_part");
    const std::optional<std::int64_t> layers = modelLayers(b);
    std::vector<std::vector<std::int64_t>> chunks;  // [chunk][stage] layers
    bool vShape = false;
    if (layers) chunks = {{*layers}};
    if (pp > 1 && layers && !ours.empty() && pp > *layers) t.refuse(P, "pipeline_parallel_degree", "more stages than the model's " + num(*layers) + " layers");
    if (pp > 1 && layers && !ours.empty() && pp <= *layers) {
        std::int64_t stages = pp * (single ? 1 : 2);
        if (perStage) stages = (*layers + first + last + *perStage - 1) / *perStage;
        std::vector<std::int64_t> split;
        if (stages > *layers + first + last) stages = 0;  // refused below: more stages than layers
        if (fqns && fqns->isList()) {
            stages = std::int64_t(fqns->items().size());
            for (const Value& part : fqns->items()) {
                std::int64_t n = 0;
                if (part.isList())
                    for (const Value& m : part.items()) n += m.kind() == Value::Kind::String && m.asString().starts_with("layers.");
                split.push_back(n);
            }
        } else {
            split = torchtitanSplit(*layers, stages, first, last);
        }
        const std::int64_t vpp = stages / pp;
        if (stages == 0 || stages % pp != 0 || (single && vpp != 1) || (!single && vpp < 2) || ((ours == "zbv" || ours == "dualpipev") && vpp != 2)) {
            t.refuse(P, fqns ? "module_fqns_per_model_part" : "pipeline_parallel_layers_per_stage",
                     num(stages) + " stages do not suit " + schedule + " over " + num(pp) + " ranks");
        } else {
            const Mark pm = t.mark(P, fqns ? "module_fqns_per_model_part" : "pipeline_parallel_degree");
            if (vpp > 1) b.set("exec.vpp", Value::integer(vpp, pm));
            // Virtual stage v runs on rank v mod pp (loop), or on rank v and 2pp-1-v (V schedules).
            const bool v = ours == "zbv" || ours == "dualpipev";
            vShape = v;
            chunks.assign(std::size_t(vpp), std::vector<std::int64_t>(std::size_t(pp), 0));
            Value grid = Value::list(pm);
            for (std::int64_t c = 0; c < vpp; ++c) {
                Value row = Value::list(pm);
                for (std::int64_t s = 0; s < pp; ++s) {
                    const std::int64_t n = split[std::size_t(v && c == 1 ? 2 * pp - 1 - s : c * pp + s)];
                    chunks[std::size_t(c)][std::size_t(s)] = n;
                    row.push(Value::integer(n, pm));
                }
                grid.push(std::move(row));
            }
            b.set("exec.pp_partition", vpp == 1 ? grid.items().front() : grid);
        }
    }
    // Activation checkpointing.
    const std::string A = "activation_checkpoint";
    const std::string mode = t.text(A, "mode").value_or("selective");
    const std::string option = t.text(A, "selective_ac_option").value_or("2");
    const Mark am = t.mark(A, "mode");
    auto all = [&](const std::string& opt) {
        Value list = Value::list(am), one = Value::map(am);
        one.set("first", Value::integer(0, am), am);
        one.set("option", Value::string(opt, am), am);
        list.push(std::move(one));
        b.set("exec.recompute", std::move(list));
    };
    if (mode == "none" || mode == "full") all(mode);
    else if (mode == "selective" && option == "op") {
        all("selective");
        b.set("exec.selective_rule", Value::string("hyperparallel", t.mark(A, "selective_ac_option")));
    } else if (mode == "selective" && wholeNumber(option).value_or(0) >= 1 && !chunks.empty()) {
        // Every n-th layer a rank builds is checkpointed whole, counted over its chunks in order.
        const std::int64_t every = *wholeNumber(option);
        const Mark om = t.mark(A, "selective_ac_option");
        const std::size_t p = chunks.front().size(), v = chunks.size();
        std::vector<std::int64_t> start(v * p, 0);  // first layer of chunk (c, s) in model order
        std::int64_t at = 0;
        for (std::size_t c = 0; c < v; ++c)
            for (std::size_t k = 0; k < p; ++k) {
                const std::size_t s = vShape && c == 1 ? p - 1 - k : k;
                start[c * p + s] = at;
                at += chunks[c][s];
            }
        std::vector<bool> full(std::size_t(at), false);
        for (std::size_t s = 0; s < p; ++s) {
            std::int64_t count = 0;
            for (std::size_t c = 0; c < v; ++c)
                for (std::int64_t i = 0; i < chunks[c][s]; ++i)
                    if (++count % every == 0) full[std::size_t(start[c * p + s] + i)] = true;
        }
        Value list = Value::list(om);
        for (std::size_t i = 0; i < full.size();) {
            std::size_t j = i;
            while (j < full.size() && full[j] == full[i]) ++j;
            Value one = Value::map(om);
            one.set("first", Value::integer(std::int64_t(i), om), om);
            if (j < full.size()) one.set("count", Value::integer(std::int64_t(j - i), om), om);
            one.set("option", Value::string(full[i] ? "full" : "none", om), om);
            list.push(std::move(one));
            i = j;
        }
        b.set("exec.recompute", std::move(list));
    } else {
        t.refuse(A, mode == "selective" ? "selective_ac_option" : "mode",
                 mode == "memory_budget" ? "the compiler's memory budget is not yet representable" : "expected none, full, or selective with op or a layer count");
    }
    // FP8 training.
    const Value* converters = t.at("model", "converters");
    bool fp8 = false;
    if (converters && converters->isList()) {
        for (const Value& c : converters->items()) {
            if (c.kind() == Value::Kind::String && (c.asString() == "float8" || c.asString() == "quantize.linear.float8")) fp8 = true;
            else t.refuse("model", "converters", c.describe() + " is not yet representable (quantize.linear.float8 is)");
        }
    }
    if (fp8) {
        b.set("exec.compute_dtype", Value::string("fp8", converters->mark()));
        const std::string recipe = t.text("quantize.linear.float8", "recipe_name").value_or("tensorwise");
        if (recipe != "tensorwise") t.refuse("quantize.linear.float8", "recipe_name", "'" + recipe + "' is not yet representable (tensorwise is)");
        b.set("exec.fp8_recipe", Value::string("tensorwise", t.mark("quantize.linear.float8", "recipe_name")));
    }
    if (const auto name = t.text("optimizer", "name")) {
        if (*name == "AdamW" || *name == "Adam") b.set("exec.optimizer", Value::string("adamw", t.mark("optimizer", "name")));
        else t.refuse("optimizer", "name", "'" + *name + "' is not yet representable (AdamW is)");
    }
    for (const char* key : {"context_parallel_rotate_method", "context_parallel_load_balancer", "pipeline_parallel_expert_parallel_overlap"})
        if (const Value* v = t.at(P, key))
            b.unpriced(v->mark(), Titan::label(P, key), "not priced: Tessera prices context parallelism as ring attention and "
                                                        "DualPipeV's expert overlap by its F&B pairs, whichever is stated");
}

}  // namespace

Imported readTorchtitan(const Value& root, const std::string& baseDir, const ImportCluster& cluster, Diagnostics& d) {
    Builder b(d);
    Titan t(root, b);
    if (cluster.device) b.set("cluster.device", *cluster.device);
    else d.add(root.mark(), "cluster.device", "a torchtitan job configuration does not name the device: give a device preset (import --device PRESET)");
    readModel(t, b, baseDir);
    readStrategy(t, b, cluster);
    t.listUnread(root, "");
    return b.finish(ConfigFormat::Torchtitan, root.mark());
}

}  // namespace tessera::core::trainers
