#pragma once
// Scenario files in and out. A scenario is one YAML or JSON mapping with the
// sections model, exec, cluster and (optionally) search. A section may name a
// preset (`model: llama3-70b`), a file (`model: {file: model.yaml}` - a model
// section, or a Hugging Face config.json - relative to the scenario), or either of
// those with overrides beside it (`model: {preset: llama3-8b, num_hidden_layers: 16}`).
//
// Loading checks every field's type and range and refuses unknown keys; rules
// across fields are resolve()'s (spec/resolve.h). Both throw SpecError, holding
// every problem found, each with file:line:column.
#include <string>

#include "doc/document.h"
#include "spec/scenario.h"

namespace tessera::core {

Scenario loadScenario(const std::string& path);
// `name` is used in messages; relative file references resolve against baseDir.
Scenario parseScenario(std::string_view text, const std::string& name, Format format, const std::string& baseDir);
Scenario presetScenario(const std::string& id);
// A scenario file, or the scenario preset of that id when no such file exists.
Scenario loadScenarioOrPreset(const std::string& pathOrPreset);
// A scenario from its document tree (after overrides); `name` for messages.
Scenario scenarioFromValue(const Value& root, const std::string& name, const std::string& baseDir);
// The document of a scenario file, or of a scenario preset when no such file exists.
Value scenarioDocument(const std::string& pathOrPreset, std::string* baseDir);

// The stated fields, each section written out in full (presets expanded, the
// device preset kept by name), ready to be loaded again.
Value scenarioValue(const Scenario& scenario);
std::string scenarioYaml(const Scenario& scenario);

// A model section read on its own (what `import-hf -o` writes).
ModelSpec modelFromValue(const Value& map, const std::string& section, Diagnostics& d);

// Search section.
SearchSpec readSearch(const Value& map, Diagnostics& d);
Value searchValue(const SearchSpec& search);

}  // namespace tessera::core
