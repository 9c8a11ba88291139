#pragma once
// Megatron-LM (pretrain_gpt.py) both ways (internal to core/trainers): its arguments
// (megatron/training/arguments.py, and the TransformerConfig / ModelParallelConfig
// fields it turns into arguments) read as a scenario, and a resolved scenario
// written as the arguments a launch script passes. The mapping, both ways:
//
//   --tensor/pipeline/context/expert-model-parallel-size  exec.tp / pp / cp / ep
//   --num-virtual-stages-per-pipeline-rank V (or --num-layers-per-virtual-pipeline-stage)
//                                                           exec.vpp, pp_schedule interleaved
//   --decoder-first/last-pipeline-num-layers               exec.pp_partition (one chunk a stage)
//   --pipeline-model-parallel-layout "Et*3|t*4|...|t*2mL" exec.pp_partition and vpp, any split
//                                                           (trainers/layout.h)
//   --expert-tensor-parallel-size                          exec.etp: only tp itself (trainers/shared.h)
//   --use-distributed-optimizer [--num-distributed-optimizer-instances K]
//                                                           optimizer_parallel (ZeRO-1), shard dp·cp/K
//   --use-torch-fsdp2 / --use-megatron-fsdp with --data-parallel-sharding-strategy
//                                                           FSDP, ZeRO-2 or ZeRO-1
//   --recompute-granularity selective [--recompute-modules] selective ranges (core_attn: the megatron
//                                                           rule; layernorm, mla_up_proj, moe_act: ops)
//   --recompute-granularity full --recompute-method block --recompute-num-layers N
//                                                           full_recompute: N (first N of each chunk)
//   --recompute-granularity full --recompute-method uniform --recompute-num-layers 1
//                                                           every layer full
//   --cpu-offloading --cpu-offloading-num-layers N         activation_offload: N
//   --bf16 / --fp16 / --fp8-format, --fp8-recipe           compute_dtype, fp8_recipe
//   --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap, ...
//
// Megatron-LM's defaults that differ from Tessera's are stated and marked assumed:
// no overlap of the gradient reduction or parameter gather, no grouped GEMM,
// dropout 0.1, LayerNorm, learned positions, GeLU, biases, tied embeddings, the
// vocabulary padded to a multiple of 128·tp.
#include <string>
#include <vector>

#include "trainers/launch.h"
#include "trainers/shared.h"

namespace tessera::core::trainers {

Imported readMegatron(const Launch& launch, ConfigFormat format, const Mark& root, const ImportCluster& cluster,
                      Diagnostics& d);
Exported writeMegatron(const ResolvedScenario& r);

}  // namespace tessera::core::trainers
