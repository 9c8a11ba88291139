#include <algorithm>
#include <map>
#include <set>

#include "trainers/layout.h"
#include "trainers/megatron.h"
#include "trainers/megatronargs.h"

namespace tessera::core::trainers {

namespace {

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
            b.set("exec.expert_tp", std::move(*etp));
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
    // A custom layout states every virtual stage's layers, and so the virtual stages.
    const std::int64_t mtp = b.get("model.mtp_depth") ? b.get("model.mtp_depth")->asInt() : 0;
    bool laidOut = false;
    if (const auto layout = a.word("pipeline-model-parallel-layout"); layout && b.get("model.num_hidden_layers")) {
        const auto parsed = parseLayout(*layout, p, b.get("model.num_hidden_layers")->asInt(), mtp);
        const Mark m = a.mark("pipeline-model-parallel-layout");
        if (const auto* why = std::get_if<std::string>(&parsed)) {
            a.refuse("pipeline-model-parallel-layout", *why);
        } else if (const StageGrid& grid = std::get<StageGrid>(parsed); vpp && *vpp != std::int64_t(grid.size())) {
            a.refuse("pipeline-model-parallel-layout", "lays out " + num(std::int64_t(grid.size())) + " virtual stages per rank, and the "
                                                       "virtual-stage argument says " + num(*vpp));
        } else {
            laidOut = true;
            vpp = std::int64_t(grid.size());
            b.set("exec.vpp", Value::integer(*vpp, m));
            Value rows = Value::list(m);
            for (const auto& chunk : grid) {
                Value row = Value::list(m);
                for (std::int64_t n : chunk) row.push(Value::integer(n, m));
                rows.push(std::move(row));
            }
            b.set("exec.pp_partition", grid.size() == 1 ? rows.items().front() : rows);
        }
    }
    const Mark scheduleMark = vpp ? b.get("exec.vpp")->mark() : a.mark("pipeline-model-parallel-size");
    if (vpp.value_or(1) > 1) b.assume("exec.pp_schedule", Value::string("interleaved", scheduleMark), "Megatron-LM interleaves virtual stages");
    else if (p > 1) b.assume("exec.pp_schedule", Value::string("1f1b", scheduleMark), "Megatron-LM's schedule without virtual stages");
    const auto first = a.integer("decoder-first-pipeline-num-layers", 0);
    const auto last = a.integer("decoder-last-pipeline-num-layers", 0);
    if ((first || last) && laidOut) {
        a.refuse(first ? "decoder-first-pipeline-num-layers" : "decoder-last-pipeline-num-layers",
                 "Megatron-LM takes either a layout or the first and last stages' layers, not both");
    } else if ((first || last) && vpp.value_or(1) > 1) {
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
    } else if (!laidOut && mtp > 0 && p > 1 && b.get("model.num_hidden_layers")) {
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
    // Megatron-LM turns sequence parallelism off at tp 1 (megatron/training/arguments.py).
    if (const auto sp = a.flag("sequence-parallel"); sp && *sp && t == 1)
        b.unpriced(a.mark("sequence-parallel"), a.spelled("sequence-parallel"), "not priced: Megatron-LM turns sequence parallelism off at tp 1");
    else if (sp)
        b.set("exec.sequence_parallel", Value::boolean(*sp, a.mark("sequence-parallel")));
    count("micro_batch_size", "micro-batch-size");
    count("global_batch_size", "global-batch-size");
    count("seq_length", "seq-length");
    // The run's length as a token budget: iterations of a global batch, or samples, of
    // seq-length tokens each (megatron/training/arguments.py: --train-iters or --train-samples).
    {
        const Value* gbs = b.get("exec.global_batch_size");
        const Value* seq = b.get("exec.seq_length");
        // Read only where it becomes a budget; otherwise it stays listed as not priced.
        if (const auto iters = seq && gbs ? a.integer("train-iters") : std::nullopt)
            b.set("exec.train_tokens", Value::integer(*iters * gbs->asInt() * seq->asInt(), a.mark("train-iters")));
        else if (const auto samples = seq ? a.integer("train-samples") : std::nullopt)
            b.set("exec.train_tokens", Value::integer(*samples * seq->asInt(), a.mark("train-samples")));
    }

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
        onOff("fp8_params", "fp8-param-gather");
    } else if (bf16 || fp16) {
        b.set("exec.compute_dtype", Value::string(bf16 ? "bf16" : "fp16", dm));
        if (a.flag("fp8-param-gather").value_or(false))
            b.unpriced(a.mark("fp8-param-gather"), a.spelled("fp8-param-gather"),
                       "not priced: FP8 parameters need --fp8-format; without it the weights stay in the parameter dtype");
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
    readMegatronModel(a, b, tp);
    readStrategy(a, b, devices);
    a.listUnread(b, "pretrain_gpt.py");
    if (!cluster.device) d.add(root, "cluster.device", "Megatron-LM's arguments do not name the device: give a device preset "
                                                       "(import --device PRESET; `tessera presets` lists them)");
    return b.finish(format, root);
}

}  // namespace tessera::core::trainers
