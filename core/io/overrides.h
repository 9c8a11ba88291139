#pragma once
// `--set section.key=value` overrides, applied to a scenario's document before it
// is read, so an override is validated exactly as the file is (and its errors
// point at "--set exec.tp=3"). The value is YAML: `8`, `true`, `selective`,
// `[{first: 0, option: full}]`. A section stated as a preset name becomes
// `{preset: NAME}` first, so `--set model.num_hidden_layers=40` works on
// `model: llama3-70b`.
#include <optional>
#include <string>

#include "doc/document.h"

namespace tessera::core {

// Throws SpecError for a malformed assignment.
void applyOverride(Value& root, const std::string& assignment);

// Sets (or, with nullopt, removes) the value at a dotted path such as
// "search.space.tp", making the sections on the way; a section stated as a preset
// name becomes {preset: NAME} first. What --set and the GUI's forms both write
// through. Throws SpecError when the path runs into a value that is no mapping.
void setAt(Value& root, const std::string& path, std::optional<Value> value, const Mark& mark = {});

}  // namespace tessera::core
