#pragma once
// HyperParallel's search configuration YAML (reference/hyperparallel.md §3.6-3.7),
// read as a Tessera scenario so its users can bring theirs: `model` (ModelSpec
// fields, local_batch_size, max_position_embeddings as the training length,
// use_seq_parallel), `cluster` (num_nodes, cards_per_node, device_memory_gb,
// device_type), `parallelism` (a scalar pins a dimension, a list gives candidates,
// `auto` or absent lets the search decide), `constraint`, `recompute` and
// `pp_config`. A train_yaml reference is not followed (state the model in the file).
//
// Mapping decisions: the seed's device types name Ascend generations with no
// figures, so a2 -> ascend-910b, a3 -> ascend-910c, v100 -> v100-32gb presets, with
// device_memory_gb as the memory; `fsdp` (HyperParallel's dp_shard) > 1 is
// FSDP-style sharding (grad_shard_as_params) over the data-parallel group; `auto`
// and `per_layer` recompute search none, selective and full.
#include "doc/document.h"

namespace tessera::core {

bool isSeedSearchConfig(const Value& doc);
// The scenario document; problems go to `d`.
Value scenarioFromSeedSearch(const Value& config, Diagnostics& d);

}  // namespace tessera::core
