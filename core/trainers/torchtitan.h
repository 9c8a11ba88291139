#pragma once
// torchtitan's TOML job configuration both ways (internal to core/trainers), by
// its JobConfig (torchtitan/config/job_config.py, the last TOML release):
//
//   [model] name, flavor                  a model preset (llama3 8B, 70B, 405B), or the local
//                                         config.json at hf_assets_path
//   [training] local_batch_size, global_batch_size, seq_len, max_norm, dtype, mixed_precision_param
//   [parallelism] data_parallel_replicate_degree R, data_parallel_shard_degree S
//                                         dp = R·S; FSDP over S·cp ranks (its dp_shard_cp mesh)
//   tensor_parallel_degree                exec.tp, sequence-parallel norms (torchtitan always)
//   pipeline_parallel_*                   pp, schedule, micro-batch size, the layers of each
//                                         stage by its own split (embedding and output weighed
//                                         as layers) or module_fqns_per_model_part
//   context_parallel_degree, expert_parallel_degree, expert_tensor_parallel_degree (only tp)
//   [activation_checkpoint] mode, selective_ac_option
//                                         none, full, op (the trainer's op policy: Tessera's
//                                         hyperparallel rule) or every n-th layer full
//   [model] converters quantize.linear.float8, [quantize.linear.float8] recipe_name
//                                         compute_dtype fp8, tensorwise
#include "trainers/shared.h"

namespace tessera::core::trainers {

// The torchtitan model flavors Tessera has presets for: one table the reader and writer
// share (torchtitan/models/{llama3,qwen3,deepseek_v3}/__init__.py). torchtitan's DeepSeek-V3
// 671B has the Hugging Face model's shape without its MTP layer (`mtpDepth` 0); its
// router's load-balancing bias is a buffer there, a parameter in the preset (14,848
// elements of 671B, left as the preset counts them).
struct Flavor {
    const char* name;
    const char* flavor;
    const char* preset;
    std::int64_t mtpDepth = -1;  // >= 0: the preset with this many MTP layers
};
inline constexpr Flavor kFlavors[] = {{"llama3", "8B", "llama3-8b"},          {"llama3", "70B", "llama3-70b"},
                                      {"llama3", "405B", "llama3-405b"},      {"qwen3", "32B", "qwen3-32b"},
                                      {"qwen3", "235B-A22B", "qwen3-235b-a22b"}, {"deepseek_v3", "671B", "deepseek-v3", 0}};

bool isTorchtitanConfig(const Value& root);
Imported readTorchtitan(const Value& root, const std::string& baseDir, const ImportCluster& cluster, Diagnostics& d);
Exported writeTorchtitan(const ResolvedScenario& r);

// torchtitan's default split of `layers` over `stages` virtual stages, the embedding
// and the output weighed as `first`/`last` layers (generate_llm_fqn_per_model_part).
std::vector<std::int64_t> torchtitanSplit(std::int64_t layers, std::int64_t stages, std::int64_t first, std::int64_t last);

}  // namespace tessera::core::trainers
