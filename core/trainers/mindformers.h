#pragma once
// MindFormers' YAML run configuration, read as the scenario it states (internal to
// core/trainers), by the keys HyperParallel's parser reads (reference §1.4, the seed's
// cost_model_parser_mindformers.py) and MindFormers' own meaning of them:
//
//   parallel_config data_parallel, model_parallel, pipeline_stage, context_parallel,
//     expert_parallel, use_seq_parallel, micro_batch_num, vocab_emb_dp, context_parallel_algo
//   runner_config batch_size (the micro-batch), gradient_accumulation_steps (without a pipeline)
//   parallel enable_parallel_optimizer, parallel_optimizer_config (gradient_accumulation_shard,
//     optimizer_weight_shard_size)
//   recompute_config recompute, select_recompute, select_comm_recompute (true, or counts per
//     stage), recompute_slice_activation; selective recompute by MindFormers' rule
//   model.model_config sizes, dtypes, use_flash_attention, offset, pp_interleave_num, MoE keys;
//     model.arch.type the family; moe_config
//   context.max_device_memory, runner_wrapper.use_clip_grad, optimizer.type
// The device count is data_parallel · model_parallel · pipeline_stage · context_parallel.
#include "trainers/shared.h"

namespace tessera::core::trainers {

bool isMindFormersConfig(const Value& root);
Imported readMindFormers(const Value& root, const ImportCluster& cluster, Diagnostics& d);

}  // namespace tessera::core::trainers
