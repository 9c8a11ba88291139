#pragma once
// HyperParallel's search configuration YAML (reference/hyperparallel.md §3.6-3.7,
// the files of its auto_parallel/examples/), read as the Tessera scenario it
// describes, so its users can bring theirs unedited. Every key is priced as the
// seed prices it, or refused by name; none is dropped.
//
// - model: ModelSpec fields, with the seed's spellings beside them (moe_inter_dim,
//   seq_length); the run keys the seed keeps there (local_batch_size,
//   max_position_embeddings as the training length, use_seq_parallel, dtypes as byte
//   widths, use_flash_attention, optimizer_weight_shard_size, offset, full_rec,
//   sel_rec, capacity_factor/cap_fact, use_gmm/gmm, recompute_slice_activation);
//   MindFormers' FFN width from multiple_of and ffn_dim_multiplier when
//   intermediate_size is not stated; moe_enabled checked against num_experts.
// - cluster: num_nodes, cards_per_node (8), device_type (a2 -> ascend-910b, a3 ->
//   ascend-910c, v100 -> v100-32gb), device_memory_gb, and the link bandwidths.
// - parallelism: a scalar pins a dimension, a list gives candidates, `auto` or
//   absent lets the search decide. `fsdp` is HyperParallel's dp_shard (the search's
//   dp_shard axis: 1 shards nothing, n is FSDP over n ranks); absent, the seed
//   searches it, unless optimizer_weight_shard_size fixes the shard.
// - The seed's search varies the micro-batch size (divisors of the global batch),
//   runs sequence parallelism wherever tp > 1, and prices selective recompute by
//   HyperParallel's rule.
// - recompute, pp_config and estimator: honoured or refused by name. recompute:
//   per_layer is the search's per_layer (the planner's option per layer, on the
//   candidate's own partition).
//
// What the reader fills that the file does not say is recorded in `assumed`
// (scenario path -> why), and `tessera show` writes it beside the field.
#include <map>
#include <string>

#include "doc/document.h"

namespace tessera::core {

bool isSeedSearchConfig(const Value& doc);
// The scenario document; problems go to `d`.
Value scenarioFromSeedSearch(const Value& config, Diagnostics& d, std::map<std::string, std::string>* assumed = nullptr);

}  // namespace tessera::core
