#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>

#include "trainers/layout.h"
#include "trainers/megatron.h"
#include "trainyaml/trainyaml.h"

namespace tessera::core::trainers {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }


class ArgWriter {
public:
    void add(const std::string& flag, const std::string& value = {}) { m_lines.push_back(value.empty() ? flag : flag + " " + value); }
    void add(const std::string& flag, std::int64_t n) { add(flag, num(n)); }
    void real(const std::string& flag, double x) {
        std::ostringstream s;
        s << x;
        std::string t = s.str();
        if (t.find_first_of(".e") == std::string::npos) t += ".0";
        add(flag, t);
    }
    const std::vector<std::string>& lines() const { return m_lines; }

private:
    std::vector<std::string> m_lines;
};

void writeModel(const ResolvedScenario& r, ArgWriter& w, std::vector<std::string>& no) {
    const ModelSpec& m = r.scenario.model;
    const ExecSpec& e = r.scenario.exec;
    const std::int64_t tp = *e.tp;
    w.add("--num-layers", *m.num_hidden_layers);
    w.add("--hidden-size", *m.hidden_size);
    w.add("--num-attention-heads", *m.num_attention_heads);
    if (m.intermediate_size) w.add("--ffn-hidden-size", *m.intermediate_size);
    if (*m.num_key_value_heads != *m.num_attention_heads) {
        w.add("--group-query-attention");
        w.add("--num-query-groups", *m.num_key_value_heads);
    }
    if (m.head_dim && !m.kv_lora_rank) w.add("--kv-channels", *m.head_dim);
    // NullTokenizer adds an end-of-document token; padding to a multiple of d·tp keeps V.
    const std::int64_t v = *m.vocab_size;
    std::int64_t d = 128;
    while (d > 1 && v % (d * tp) != 0) d /= 2;
    if (v % (d * tp) != 0)
        no.push_back("model.vocab_size: Megatron-LM pads the vocabulary to a multiple of tp (" + num(tp) + "), so " + num(v) +
                     " runs as " + num((v + tp - 1) / tp * tp));
    w.add("--tokenizer-type", "NullTokenizer");
    w.add("--vocab-size", v - 1);
    if (d != 128) w.add("--make-vocab-size-divisible-by", d);
    if (m.max_position_embeddings) w.add("--max-position-embeddings", *m.max_position_embeddings);
    if (*m.gated_mlp && *m.hidden_act == "silu") w.add("--swiglu");
    else if (*m.gated_mlp || (*m.hidden_act != "gelu" && *m.hidden_act != "gelu_new"))
        no.push_back("model.hidden_act: " + *m.hidden_act + (*m.gated_mlp ? " gated" : "") + " has no Megatron-LM argument (--swiglu is SiLU gated, the default GeLU)");
    else if (*m.hidden_act == "gelu_new") w.add("--openai-gelu");
    w.add("--normalization", *m.norm == "rmsnorm" ? "RMSNorm" : "LayerNorm");
    w.add("--position-embedding-type", *m.position_embedding == "rope" ? "rope" : *m.position_embedding == "learned" ? "learned_absolute" : "none");
    const bool qkv = *m.attention_bias, out = m.attention_out_bias.value_or(qkv), mlp = *m.mlp_bias;
    if (!out && !mlp) w.add("--disable-bias-linear");
    if (qkv && !out && !mlp) w.add("--add-qkv-bias");
    if (!(qkv == out && out == mlp) && !(qkv && !out && !mlp))
        no.push_back("model.attention_bias/mlp_bias: Megatron-LM biases every linear layer or none (--add-qkv-bias: the QKV projection only)");
    if (!*m.tie_word_embeddings) w.add("--untie-embeddings-and-output-weights");
    w.real("--attention-dropout", m.attention_dropout.value_or(0));
    w.real("--hidden-dropout", m.hidden_dropout.value_or(0));
    if (m.qk_norm.value_or(false)) w.add("--qk-layernorm");
    if (m.num_experts.value_or(1) > 1) {
        w.add("--num-experts", *m.num_experts);
        w.add("--moe-router-topk", *m.num_experts_per_tok);
        if (m.moe_intermediate_size) w.add("--moe-ffn-hidden-size", *m.moe_intermediate_size);
        const std::int64_t shared = m.shared_expert_intermediate_size.value_or(m.num_shared_experts.value_or(0) * m.moe_intermediate_size.value_or(0));
        if (m.num_shared_experts.value_or(0) > 0 && shared > 0) w.add("--moe-shared-expert-intermediate-size", shared);
        const std::int64_t dense = m.first_k_dense_replace.value_or(0), every = m.moe_layer_freq.value_or(1);
        if (dense > 0 && every > 1) no.push_back("model.moe_layer_freq: dense leading layers and an MoE frequency together have no Megatron-LM spelling");
        else if (dense > 0) w.add("--moe-layer-freq", "\"([0]*" + num(dense) + "+[1]*" + num(*m.num_hidden_layers - dense) + ")\"");
        else if (every > 1) w.add("--moe-layer-freq", every);
        if (m.n_group) w.add("--moe-router-num-groups", *m.n_group);
        if (m.topk_group) w.add("--moe-router-group-topk", *m.topk_group);
        if (m.router_bias.value_or(false)) w.add("--moe-router-enable-expert-bias");
        if (m.shared_expert_gate.value_or(false)) no.push_back("model.shared_expert_gate: pretrain_gpt.py's shared experts have no gate");
    }
    if (m.kv_lora_rank) {
        w.add("--multi-latent-attention");
        if (m.q_lora_rank.value_or(0) > 0) w.add("--q-lora-rank", *m.q_lora_rank);
        w.add("--kv-lora-rank", *m.kv_lora_rank);
        w.add("--qk-head-dim", *m.qk_nope_head_dim);
        w.add("--qk-pos-emb-head-dim", *m.qk_rope_head_dim);
        w.add("--v-head-dim", *m.v_head_dim);
    }
    if (m.mtp_depth.value_or(0) > 0) w.add("--mtp-num-layers", *m.mtp_depth);
    if (m.layer_types || m.attn_output_gate.value_or(false))
        no.push_back("model.layer_types/attn_output_gate: linear attention and gated attention outputs have no pretrain_gpt.py argument");
}

}  // namespace

Exported writeMegatron(const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    const ModelSpec& m = r.scenario.model;
    std::vector<std::string> no;
    std::set<std::string> done;
    ArgWriter w;
    writeModel(r, w, no);
    const std::int64_t tp = *e.tp, pp = *e.pp, cp = *e.cp, vpp = *e.vpp;
    w.add("--tensor-model-parallel-size", tp);
    w.add("--pipeline-model-parallel-size", pp);
    w.add("--context-parallel-size", cp);
    const bool moe = m.num_experts.value_or(1) > 1;
    if (moe) w.add("--expert-model-parallel-size", *e.ep);
    if (moe && writtenExpertTp(r) != tp) w.add("--expert-tensor-parallel-size", writtenExpertTp(r));
    done.insert({"dp", "tp", "pp", "vpp", "cp", "ep", "etp", "micro_batch_num", "pp_schedule", "offset", "pp_partition"});
    const std::string& schedule = *e.pp_schedule;
    if (!(schedule == "1f1b" && vpp == 1) && !(schedule == "interleaved" && vpp > 1))
        no.push_back("exec.pp_schedule: " + schedule + " is not one of Megatron-LM's schedules (1F1B, interleaved with virtual stages)");
    // The layers per stage: Megatron-LM's even split of the decoder (the MTP layers after
    // it, on the last stage), or an uneven first and last stage.
    const auto& grid = r.partition.layers;
    const std::int64_t mtp = m.mtp_depth.value_or(0), body = *m.num_hidden_layers;
    bool isEven = body % (pp * vpp) == 0;
    for (std::size_t c = 0; c < grid.size(); ++c)
        for (std::size_t s = 0; s < grid[c].size(); ++s)
            isEven = isEven && grid[c][s] == body / (pp * vpp) + (c + 1 == grid.size() && s + 1 == grid[c].size() ? mtp : 0);
    if (!isEven) {
        const auto& s = grid.front();
        const bool middleEven = vpp == 1 && pp > 2 && std::all_of(s.begin() + 1, s.end() - 1, [&](std::int64_t n) { return n == s[1]; });
        if (vpp == 1 && (middleEven || pp <= 2) && s.back() >= mtp) {
            w.add("--decoder-first-pipeline-num-layers", s.front());
            w.add("--decoder-last-pipeline-num-layers", s.back() - mtp);
        } else {
            w.add("--pipeline-model-parallel-layout", "\"" + layoutText(grid, mtp) + "\"");  // it states the virtual stages too
        }
    }
    if (vpp > 1 && isEven) w.add("--num-virtual-stages-per-pipeline-rank", vpp);
    if (*e.sequence_parallel) w.add("--sequence-parallel");
    done.insert("sequence_parallel");
    w.add("--micro-batch-size", *e.micro_batch_size);
    w.add("--global-batch-size", *e.global_batch_size);
    w.add("--seq-length", *e.seq_length);
    // The token budget as whole iterations of the global batch (the last may run past it).
    if (e.train_tokens) w.add("--train-iters", ceilDiv(*e.train_tokens, *e.global_batch_size * *e.seq_length));
    done.insert({"micro_batch_size", "global_batch_size", "seq_length", "train_tokens"});
    // Sharding.
    const std::int64_t domain = *e.dp * (*e.shard_spans_cp ? cp : 1);
    if (*e.optimizer_parallel) {
        if (*e.grad_shard_as_params) {
            w.add("--use-torch-fsdp2");
            if (!*e.reshard_params) w.add("--torch-fsdp2-no-reshard-after-forward");
        } else if (*e.grad_shard) {
            w.add("--use-megatron-fsdp");
            w.add("--data-parallel-sharding-strategy", "optim_grads");
        } else {
            w.add("--use-distributed-optimizer");
        }
        if (cp > 1 && !*e.shard_spans_cp) no.push_back("exec.shard_spans_cp: Megatron-LM shards over dp·cp, not dp alone");
        if (*e.optimizer_shard != domain) {
            if (!*e.grad_shard && !*e.grad_shard_as_params) w.add("--num-distributed-optimizer-instances", domain / *e.optimizer_shard);
            else no.push_back("exec.optimizer_shard: an FSDP shard smaller than dp·cp has no Megatron-LM argument");
        }
    }
    done.insert({"optimizer_parallel", "grad_shard", "grad_shard_as_params", "reshard_params", "shard_spans_cp", "optimizer_shard"});
    // Recompute, as Megatron-LM states it for every layer alike.
    const CheckpointPlan plan = checkpointPlan(r);
    const auto& ranges = e.recompute;
    const bool uniform = plan.layers.empty();
    if (e.full_recompute && std::holds_alternative<std::int64_t>(e.full_recompute->value) && !e.selective_recompute && !ranges) {
        w.add("--recompute-granularity", "full");
        w.add("--recompute-method", "block");
        w.add("--recompute-num-layers", std::get<std::int64_t>(e.full_recompute->value));
    } else if (uniform && plan.mode == "full") {
        w.add("--recompute-granularity", "full");
        w.add("--recompute-method", "uniform");
        w.add("--recompute-num-layers", 1);
    } else if (uniform && plan.mode == "selective") {
        const auto* ops = ranges && !ranges->empty() && (*ranges)[0].ops ? &*(*ranges)[0].ops : nullptr;
        w.add("--recompute-granularity", "selective");
        if (ops) {
            std::string mods;
            for (const auto& [op, state] : *ops) {
                const char* mod = op == "normOp" ? "layernorm" : op == "attUp" ? "mla_up_proj" : op == "ffAct" ? "moe_act" : nullptr;
                if (state != "recompute") continue;
                if (!mod) no.push_back("exec.recompute: recomputing " + op + " alone has no Megatron-LM module");
                else mods += std::string(mods.empty() ? "" : " ") + mod;
            }
            if (!mods.empty()) w.add("--recompute-modules", mods);
        } else if (*e.selective_rule != "megatron") {
            no.push_back("exec.selective_rule: Megatron-LM's selective recompute is its own (core_attn), not " + *e.selective_rule + "'s");
        }
    } else if (!uniform) {
        no.push_back("exec.recompute: Megatron-LM recomputes every layer alike, or the first N of each stage fully");
    }
    done.insert({"recompute", "full_recompute", "selective_recompute", "selective_rule"});
    // Offload.
    const bool recomputes = plan.mode != "off" || !plan.layers.empty();
    if (const auto* k = std::get_if<std::int64_t>(&e.activation_offload->value); k && *k > 0 && (pp > 1 || recomputes)) {
        no.push_back("exec.activation_offload: Megatron-LM offloads activations only without pipeline parallelism and without recompute");
    } else if (k && *k > 0) {
        w.add("--cpu-offloading");
        w.add("--cpu-offloading-num-layers", *k);
    } else if (!k) {
        no.push_back("exec.activation_offload: Megatron-LM offloads the same layer count on every stage");
    }
    if (*e.optimizer_offload > 0) {
        w.add("--optimizer-cpu-offload");
        w.real("--optimizer-offload-fraction", *e.optimizer_offload);
        if (*e.optimizer_offload_overlap) w.add("--overlap-cpu-optimizer-d2h-h2d");
    }
    done.insert({"activation_offload", "optimizer_offload", "optimizer_offload_overlap"});
    // Precision, and the byte widths it implies.
    const std::string& dtype = *e.compute_dtype;
    if (dtype == "bf16" || dtype == "fp8") w.add("--bf16");
    if (dtype == "fp16") w.add("--fp16");
    if (dtype == "fp8") {
        w.add("--fp8-format", "hybrid");
        w.add("--fp8-recipe", *e.fp8_recipe);
        if (*e.fp8_attention) w.add("--fp8-dot-product-attention");
        if (*e.fp8_params) w.add("--fp8-param-gather");
    }
    done.insert({"compute_dtype", "fp8_recipe", "fp8_attention", "fp8_params"});
    const std::int64_t wide = dtype == "fp32" ? 4 : 2;
    if (*e.grad_bytes == 2) w.add("--grad-reduce-in-bf16");
    if (*e.softmax_bytes == 4 && wide == 2) w.add("--attention-softmax-in-fp32");
    if (*e.main_param_bytes != 4 || *e.optimizer_state_bytes != 4) {
        w.add("--use-precision-aware-optimizer");
        auto dt = [](std::int64_t b) { return b == 4 ? "fp32" : b == 2 ? "bf16" : "fp8"; };
        w.add("--main-params-dtype", dt(*e.main_param_bytes));
        w.add("--exp-avg-dtype", dt(*e.optimizer_state_bytes));
        w.add("--exp-avg-sq-dtype", dt(*e.optimizer_state_bytes));
    }
    for (auto [key, bytes, want] : {std::tuple{"param_bytes", *e.param_bytes, wide}, {"compute_bytes", *e.compute_bytes, wide},
                                    {"norm_bytes", *e.norm_bytes, wide}, {"grad_bytes", *e.grad_bytes, *e.grad_bytes == 2 ? 2 : std::int64_t{4}},
                                    {"softmax_bytes", *e.softmax_bytes, *e.softmax_bytes == 4 ? 4 : wide}})
        if (bytes != want) no.push_back(std::string("exec.") + key + ": " + num(bytes) + " bytes is not what " + dtype + " training keeps in Megatron-LM (" + num(want) + ")");
    done.insert({"param_bytes", "compute_bytes", "norm_bytes", "grad_bytes", "softmax_bytes", "main_param_bytes", "optimizer_state_bytes", "optimizer_states"});
    // Overlap, kernels, experts.
    if (*e.overlapped_grad_reduce) w.add("--overlap-grad-reduce");
    if (*e.overlap_param_gather && *e.optimizer_parallel && !*e.grad_shard_as_params) {
        if (*e.overlapped_grad_reduce) w.add("--overlap-param-gather");
        else no.push_back("exec.overlap_param_gather: Megatron-LM overlaps the parameter gather only with --overlap-grad-reduce");
    }
    if (*e.tp_comm_overlap) w.add("--tp-comm-overlap");
    if (e.overlap_p2p_comm && !*e.overlap_p2p_comm && schedule == "interleaved") w.add("--no-overlap-p2p-communication");
    else if (e.overlap_p2p_comm && *e.overlap_p2p_comm && schedule != "interleaved")
        no.push_back("exec.overlap_p2p_comm: Megatron-LM overlaps pipeline sends under the interleaved schedule only");
    if (*e.fp8_reduce_scatter)
        no.push_back("exec.fp8_reduce_scatter: Megatron-LM reads it from the YAML file --tp-comm-overlap-cfg names "
                     "(proj_fprop and fc2_fprop: fp8_buf: true), which this export does not write");
    done.insert({"overlapped_grad_reduce", "overlap_param_gather", "tp_comm_overlap", "overlap_p2p_comm", "fp8_reduce_scatter"});
    if (!*e.flash_attention) w.add("--attention-backend", "unfused");
    if (!*e.grad_clip) w.add("--clip-grad", "0.0");
    if (*e.optimizer == "muon") w.add("--optimizer", "muon");
    if (*e.cp_algo != "colossalai_cp") w.add("--cp-comm-type", *e.cp_algo == "ulysses_cp" ? "a2a" : "a2a+p2p");
    done.insert({"flash_attention", "grad_clip", "optimizer", "cp_algo"});
    if (moe) {
        w.add("--moe-token-dispatcher-type", *e.moe_enable_deepep ? "flex" : "alltoall");
        if (*e.moe_enable_deepep) w.add("--moe-enable-deepep");
        if (*e.grouped_gemm) w.add("--moe-grouped-gemm");
        if (e.capacity_factor) w.real("--moe-expert-capacity-factor", *e.capacity_factor);
        if (*e.overlap_moe_expert_parallel_comm) w.add("--overlap-moe-expert-parallel-comm");
        if (*e.activation_func_fp8_input_store) w.add("--activation-func-fp8-input-store");
        done.insert({"moe_enable_deepep", "grouped_gemm", "capacity_factor", "overlap_moe_expert_parallel_comm",
                     "activation_func_fp8_input_store"});
    }
    for (std::string& line : unexpressedExec(r, done, "Megatron-LM")) no.push_back(std::move(line));

    // The launch: torchrun over the nodes, one process a device.
    const ClusterSpec& c = r.scenario.cluster;
    const std::int64_t devices = *c.devices;
    std::int64_t perNode = c.device && c.device->devices_per_node ? *c.device->devices_per_node : devices;
    if (perNode <= 0 || devices % perNode != 0) perNode = devices;
    std::string text = "# Megatron-LM pretrain_gpt.py arguments for " + m.name.value_or("the model") + " on " + num(devices) + " " +
                       (c.device && c.device->name ? *c.device->name : "devices") + ", written by tessera export\n";
    if (!no.empty()) {
        text += "# Not expressed (stated in the scenario, no Megatron-LM argument for it):\n";
        for (const std::string& line : no) text += "#   " + line + "\n";
    }
    text += "torchrun --nproc_per_node " + num(perNode) + " --nnodes " + num(devices / perNode) + " pretrain_gpt.py \\\n";
    for (std::size_t i = 0; i < w.lines().size(); ++i) text += "    " + w.lines()[i] + (i + 1 < w.lines().size() ? " \\\n" : "\n");
    return {text, no};
}

}  // namespace tessera::core::trainers
