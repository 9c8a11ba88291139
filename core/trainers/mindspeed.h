#pragma once
// MindSpeed's model JSON (internal to core/trainers): modules named by model_id, each
// stating Megatron-style fields (num_layers, hidden_size, ffn_hidden_size,
// num_query_groups, ..., the fields HyperParallel's parser reads, reference §1.4), and
// pipeline_num_layers, the layers each pipeline stage holds. The one module with
// layers is read as Megatron-LM's arguments are (trainers/megatron.h); a second one (a
// vision tower, frozen and placed by MindSpeed's own split) is refused by name. The
// run's sizes the JSON leaves to the launch script (sequence, batches) are given with
// --set, or resolve refuses them by name.
#include "trainers/shared.h"

namespace tessera::core::trainers {

bool isMindSpeedConfig(const Value& root);
Imported readMindSpeed(const Value& root, const ImportCluster& cluster, Diagnostics& d);

}  // namespace tessera::core::trainers
