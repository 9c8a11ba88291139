#include <sstream>

#include "trainers/torchtitan.h"
#include "trainyaml/trainyaml.h"

namespace tessera::core::trainers {

namespace {


std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

Exported writeTorchtitan(const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    const ModelSpec& m = r.scenario.model;
    std::vector<std::string> no;
    std::set<std::string> done;
    std::ostringstream model, training, par, ac, quant, opt;
    // The model: a torchtitan flavor, or its Hugging Face config beside the file.
    const Flavor* flavor = nullptr;
    for (const Flavor& f : kFlavors)
        if (isPresetModel(r, f.preset, f.mtpDepth)) flavor = &f;
    model << "[model]\n";
    if (flavor) model << "name = " << quoted(flavor->name) << "\nflavor = " << quoted(flavor->flavor) << "\n";
    else no.push_back("model: torchtitan builds a model by its name and flavor, and " + m.name.value_or("this model") +
                      " is none of the flavors Tessera knows (llama3 8B, 70B, 405B; qwen3 32B, 235B-A22B; deepseek_v3 671B without MTP)");
    const std::int64_t tp = *e.tp, pp = *e.pp, cp = *e.cp, vpp = *e.vpp, dp = *e.dp;
    const std::int64_t mbs = *e.micro_batch_size, mbn = *e.micro_batch_num;
    // Data parallelism: FSDP over shards·cp ranks, replicated over the rest.
    std::int64_t shards = 1;
    if (*e.optimizer_parallel && *e.grad_shard_as_params) {
        const std::int64_t ranks = *e.optimizer_shard;
        if (cp > 1 && !*e.shard_spans_cp) no.push_back("exec.shard_spans_cp: torchtitan's FSDP shards over dp_shard·cp");
        if (ranks % cp != 0 || (dp % (ranks / cp)) != 0) no.push_back("exec.optimizer_shard: torchtitan's FSDP shards over a multiple of cp ranks");
        else shards = ranks / cp;
    } else if (*e.optimizer_parallel) {
        no.push_back("exec.optimizer_parallel: torchtitan shards with FSDP only (parameters, gradients and states); a "
                     "ZeRO-1/2 strategy is written as data parallelism without sharding");
    } else if (cp > 1) {
        no.push_back("exec.optimizer_parallel: torchtitan runs FSDP over the cp ranks whenever cp > 1");
    }
    done.insert({"dp", "optimizer_parallel", "grad_shard", "grad_shard_as_params", "optimizer_shard", "shard_spans_cp", "reshard_params"});
    // Batches: one pipeline flush of micro_batch_num micro-batches, or accumulation without a pipeline.
    const std::int64_t local = pp > 1 ? mbs * mbn : mbs;
    training << "[training]\nlocal_batch_size = " << local << "\nglobal_batch_size = " << *e.global_batch_size
             << "\nseq_len = " << *e.seq_length << "\nmax_norm = " << (*e.grad_clip ? "1.0" : "0.0") << "\n";
    // The token budget as whole steps of the global batch (torchtitan's training.steps; the last may run past it).
    if (e.train_tokens) {
        const std::int64_t stepTokens = *e.global_batch_size * *e.seq_length;
        training << "steps = " << (*e.train_tokens + stepTokens - 1) / stepTokens << "\n";
    }
    done.insert({"micro_batch_size", "micro_batch_num", "global_batch_size", "seq_length", "grad_clip", "train_tokens"});
    const bool pureBf16 = *e.param_bytes == 2 && *e.grad_bytes == 2 && *e.optimizer_state_bytes == 2 && *e.main_param_bytes == 0;
    if (pureBf16) training << "dtype = \"bfloat16\"\n";
    else if (!(*e.param_bytes == 2 && *e.grad_bytes == 4 && *e.optimizer_state_bytes == 4 && *e.main_param_bytes == 4))
        no.push_back("exec.param_bytes/grad_bytes/optimizer_state_bytes/main_param_bytes: torchtitan trains in mixed precision "
                     "(2, 4, 4, 4) or all in bfloat16 (2, 2, 2, 0)");
    if (*e.compute_dtype == "fp32") training << "mixed_precision_param = \"float32\"\n";
    done.insert({"param_bytes", "grad_bytes", "optimizer_state_bytes", "main_param_bytes", "compute_dtype", "optimizer_states"});
    par << "[parallelism]\ndata_parallel_replicate_degree = " << dp / shards << "\ndata_parallel_shard_degree = " << shards << "\n";
    if (shards * cp > 1) par << "fsdp_reshard_after_forward = " << quoted(*e.reshard_params ? "always" : "never") << "\n";
    par << "tensor_parallel_degree = " << tp << "\n";
    if (tp > 1 && !*e.sequence_parallel) no.push_back("exec.sequence_parallel: torchtitan's tensor parallelism always shards the norms over the sequence");
    if (!*e.loss_parallel) par << "disable_loss_parallel = true\n";
    if (*e.tp_comm_overlap) par << "enable_async_tensor_parallel = true\n";  // under [compile], written below
    done.insert({"tp", "sequence_parallel", "loss_parallel", "tp_comm_overlap"});
    // The pipeline, its schedule and every virtual stage's modules.
    par << "pipeline_parallel_degree = " << pp << "\n";
    const std::string& schedule = *e.pp_schedule;
    static const std::pair<const char*, const char*> kSchedules[] = {
        {"1f1b", "1F1B"}, {"gpipe", "GPipe"}, {"interleaved", "Interleaved1F1B"}, {"zbv", "ZBVZeroBubble"}, {"dualpipev", "DualPipeV"}};
    const char* theirs = nullptr;
    for (auto [mine, t] : kSchedules)
        if (schedule == mine) theirs = t;
    if (pp > 1) {
        if (!theirs) no.push_back("exec.pp_schedule: " + schedule + " is not one of torchtitan's schedules Tessera maps");
        else par << "pipeline_parallel_schedule = " << quoted(theirs) << "\n";
        par << "pipeline_parallel_microbatch_size = " << mbs << "\n";
        const bool v = schedule == "zbv" || schedule == "dualpipev";
        std::vector<std::int64_t> order;  // layers of each virtual stage in model order
        for (std::int64_t k = 0; k < pp * vpp; ++k) {
            const std::int64_t c = k / pp, s = v && c == 1 ? pp - 1 - k % pp : k % pp;
            order.push_back(r.partition.layers[std::size_t(c)][std::size_t(s)]);
        }
        const bool single = schedule == "1f1b" || schedule == "gpipe";
        if (order == torchtitanSplit(*m.num_hidden_layers, pp * vpp, 1, 1) && vpp == (single ? 1 : 2)) {
            // torchtitan's own split: nothing to state
        } else {
            par << "module_fqns_per_model_part = [\n";
            std::int64_t layer = 0;
            for (std::size_t k = 0; k < order.size(); ++k) {
                par << "    [";
                std::string sep;
                if (k == 0) par << "\"tok_embeddings\"", sep = ", ";
                for (std::int64_t i = 0; i < order[k]; ++i, ++layer) par << sep << "\"layers." << layer << "\"", sep = ", ";
                if (k + 1 == order.size()) par << sep << "\"norm\", \"output\"";
                par << "],\n";
            }
            par << "]\n";
        }
        if (m.mtp_depth.value_or(0) > 0) no.push_back("model.mtp_depth: torchtitan trains no multi-token-prediction layers");
    }
    done.insert({"pp", "vpp", "pp_schedule", "offset", "pp_partition"});
    par << "context_parallel_degree = " << cp << "\n";
    if (*e.cp_algo != "colossalai_cp") no.push_back("exec.cp_algo: torchtitan's context parallelism is ring attention");
    done.insert({"cp", "cp_algo"});
    if (m.num_experts.value_or(1) > 1) {
        par << "expert_parallel_degree = " << *e.ep << "\nexpert_tensor_parallel_degree = " << writtenExpertTp(r) << "\n";
        if (*e.moe_enable_deepep) par << "expert_parallel_comm_backend = \"deepep\"\n";
        done.insert({"ep", "etp", "moe_enable_deepep"});
    }
    // Recompute: every layer alike, or torchtitan's every n-th layer.
    const CheckpointPlan plan = checkpointPlan(r);
    ac << "[activation_checkpoint]\n";
    if (plan.layers.empty() && plan.mode != "selective") ac << "mode = " << quoted(plan.mode == "off" ? "none" : plan.mode) << "\n";
    else if (plan.layers.empty()) {
        ac << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
        if (*e.selective_rule != "hyperparallel") no.push_back("exec.selective_rule: torchtitan's op-level selective checkpointing is its own policy (Tessera's hyperparallel rule), not " + *e.selective_rule + "'s");
    } else {
        ac << "mode = \"none\"\n";
        no.push_back("exec.recompute: torchtitan checkpoints every layer alike, or every n-th layer a rank builds");
    }
    done.insert({"recompute", "full_recompute", "selective_recompute", "selective_rule"});
    if (*e.compute_dtype == "fp8") {
        model << "converters = [\"quantize.linear.float8\"]\n";
        quant << "[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n";
        if (*e.fp8_recipe != "tensorwise") no.push_back("exec.fp8_recipe: torchtitan's float8 recipe is tensorwise, not " + *e.fp8_recipe);
        done.insert("fp8_recipe");
    }
    if (!*e.flash_attention) no.push_back("exec.flash_attention: torchtitan's attention is SDPA's fused kernel");
    done.insert("flash_attention");
    opt << "[optimizer]\nname = \"AdamW\"\n";
    if (*e.optimizer != "adamw") no.push_back("exec.optimizer: torchtitan's optimizer here is AdamW");
    done.insert("optimizer");
    for (std::string& line : unexpressedExec(r, done, "torchtitan")) no.push_back(std::move(line));

    const ClusterSpec& c = r.scenario.cluster;
    std::string text = "# torchtitan job configuration for " + m.name.value_or("the model") + " on " + num(*c.devices) + " " +
                       (c.device && c.device->name ? *c.device->name : "devices") + " (launch " + num(*c.devices) +
                       " ranks), written by tessera export\n";
    if (!no.empty()) {
        text += "# Not expressed (stated in the scenario, no torchtitan key for it):\n";
        for (const std::string& line : no) text += "#   " + line + "\n";
    }
    text += "\n" + model.str() + "\n" + opt.str() + "\n" + training.str() + "\n" + par.str() + "\n" + ac.str();
    if (!quant.str().empty()) text += "\n" + quant.str();
    if (*e.tp_comm_overlap) text += "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";
    return {text, no};
}

}  // namespace tessera::core::trainers
