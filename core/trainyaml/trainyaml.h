#pragma once
// HyperParallel's AutoModels train.yaml, in both directions.
//
// A train.yaml is what the trainer runs, so it is where a strategy Tessera
// priced has to end up, and it is also the file most users already have. The
// two directions are deliberately not symmetric:
//
// Writing keeps the user's file. Every section the user stated (optimizer,
// lr_scheduler, checkpoint, dataloader, ...) goes through untouched and in its
// order; only the keys that state the strategy are replaced, and a strategy key
// the file spells by an older alias (tp_degree, use_seq_parallel, ...) is
// replaced in its own place so the file does not end up saying tp twice. The
// data-parallel degree is never written: the trainer takes it from the number
// of ranks it is launched on, and derives the accumulation steps as
// global_batch_size / (micro_batch_size · dp). That derivation is why a
// strategy whose batch does not multiply out is refused rather than written -
// the trainer would silently run another one. `context` is dropped because the
// trainer refuses it (reference/hyperparallel.md §7.3).
//
// Reading takes the fields where the trainer and the seed's parser look for
// them (§3.5), first found wins, and turns them into a scenario document whose
// values keep their train.yaml positions, so a later refusal from resolve()
// still points at the line of the train.yaml. What a train.yaml cannot say is
// left out rather than guessed: the device never appears in it, and the device
// count only when a context section survived. The seed falls back to defaults
// for a missing sequence length or batch; Tessera leaves them unstated and
// lets resolve() refuse by name.
//
// Names: HyperParallel calls the interleaved schedule `1f1b` with
// pp_interleave_num > 1, so that is what is written for Tessera's
// `interleaved`. Its selective checkpointing runs the trainer's own policy,
// which is Tessera's `hyperparallel` selective rule; a scenario read from a
// train.yaml says so. A mode per layer is written as activation_checkpoint.layers,
// keys "i" or "first-last" (inclusive) naming the layers that run another mode
// than `mode` (§7.1). A stage placement other than the even split has no
// AutoModels key; it goes to model.config_overrides.offset, where the seed's
// parser reads a run's offsets (§3.5), so the file still says what was priced.
#include <optional>
#include <string>
#include <vector>

#include "doc/document.h"
#include "resolve/resolve.h"

namespace tessera::core {

// What the trainer's activation_checkpoint states: one mode for every layer
// (off, full or selective), and the layers that differ from it.
struct CheckpointRange {
    std::int64_t first = 0;
    std::int64_t last = 0;  // inclusive
    std::string mode;
    bool operator==(const CheckpointRange&) const = default;
};
struct CheckpointPlan {
    std::string mode = "off";
    std::vector<CheckpointRange> layers;  // model order, body then MTP layers
    bool operator==(const CheckpointPlan&) const = default;
};

// The resolved run's recompute, layer by layer, as the trainer states it. The
// mode is the one most layers run (the first layer's on a tie).
CheckpointPlan checkpointPlan(const ResolvedScenario& r);

// The train.yaml for the resolved strategy: `original` with the strategy keys
// replaced and context dropped, or (original null) a minimal file with the
// model's stated fields under model.config_overrides. Throws SpecError when
// global_batch_size != micro_batch_num · micro_batch_size · dp, or when
// `original` is not an AutoModels train.yaml.
// The text begins with a "# Not expressed" comment naming each stated exec field the
// train.yaml has no key for (trainYamlUnexpressed).
std::string trainYaml(const ResolvedScenario& r, const Value* original);

// Stated exec fields a train.yaml cannot carry, each "exec.key: why": the run's token
// budget (HyperParallel's AutoModels schema has no step or token count, §7.3) and
// Tessera's own pricing settings (budget, reserve, host-copy overlap, selective rule).
// Written nowhere else, so the writer, `tessera export` and the GUI name them.
std::vector<std::string> trainYamlUnexpressed(const ResolvedScenario& r);

// The scenario document (model, exec, cluster) a train.yaml states. Relative
// model paths resolve against baseDir and are written absolute. cluster.device
// is never set; cluster.devices only from context.device_num. Problems go to
// `d`, each with its train.yaml path and position.
Value scenarioFromTrainYaml(const Value& trainYaml, const std::string& baseDir, Diagnostics& d);

// The cluster a train.yaml runs on, which it does not state: the device always
// comes from the caller (`tessera import-train --device`, the GUI's current
// device), the device count when the train.yaml has no context.device_num. A count
// the caller states must agree with the file's; one it only offers (the GUI's
// current count) gives way to it.
struct TrainCluster {
    std::optional<Value> device;          // a preset id, or a device mapping
    std::optional<std::int64_t> devices;  // the device count
    bool devicesOffered = false;          // true: the file's own count wins over `devices`
};
// scenarioFromTrainYaml with its cluster section completed from `cluster`; what
// neither gives is refused by name. Problems go to `d`.
Value trainScenario(const Value& trainYaml, const std::string& baseDir, const TrainCluster& cluster, Diagnostics& d);

}  // namespace tessera::core
