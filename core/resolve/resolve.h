#pragma once
// resolve(): a stated scenario made whole. Fields the file leaves out are filled
// from the model's family (resources/families/<arch>.yaml), from the run defaults
// (resources/defaults/exec.yaml) or derived from other fields (dp from the device
// count, the third of the batch sizes from the other two, ...), and every filled
// field is recorded with where it came from, so nothing is silently assumed.
// Then the rules that span fields are checked; each broken rule becomes a
// Diagnostic pointing at the field it names. A field that is needed and that
// neither the file, the family nor a derivation gives is refused, never taken as 0.
#include <map>
#include <string>

#include "pipeline/partition.h"
#include "resolve/expertgrid.h"
#include "spec/scenario.h"

namespace tessera::core {

enum class Origin { Family, Default, Derived, Imported };

struct Filled {
    Origin origin;
    std::string why;  // "family llama", "default", "devices / (tp·pp·cp)"
    std::string text() const;  // what `show` writes beside the field
};

struct ResolvedScenario {
    Scenario scenario;                    // every field the cost model needs is set
    std::map<std::string, Filled> filled;  // "exec.dp" -> derived: ...
    Partition partition;                  // layers per chunk and stage
    std::int64_t totalLayers = 0;         // body + MTP layers placed on stages
    // Vision tower blocks per stage (exec.vision_partition) when the tower spans more
    // than one stage; empty: the whole tower on stage 0.
    std::vector<std::int64_t> visionBlocks;
};

// Throws SpecError listing every broken rule.
ResolvedScenario resolve(const Scenario& stated);

// The model, the cluster and the run-wide exec fields (byte widths, sequence,
// optimizer, defaults) without the rules a strategy must keep: the base a search
// varies the strategy on. The partition is left empty.
ResolvedScenario resolveRun(const Scenario& stated);

// A model on its own, resolved as resolve() would (family defaults, derivations,
// model rules); throws SpecError.
ModelSpec resolveModel(const ModelSpec& stated, std::map<std::string, Filled>* filled = nullptr);
// The same for the model of a scenario, whose marks place every refusal (a field the
// file leaves out at its section).
ModelSpec resolveModel(const Scenario& holding);

bool isMoe(const ModelSpec& resolvedModel);
bool isMla(const ModelSpec& resolvedModel);

}  // namespace tessera::core
