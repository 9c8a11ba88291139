#pragma once
// The presets shipped in the binary: models, devices and example scenarios, and
// the family defaults and run defaults the resolver fills unstated fields from.
// A preset is named by its file name without .yaml ("llama3-70b", "h100-sxm").
#include <optional>
#include <string>
#include <vector>

#include "doc/document.h"

namespace tessera::core {

enum class PresetKind { Model, Device, Scenario };

struct PresetInfo {
    PresetKind kind;
    std::string id;
    std::string summary;  // the file's first comment line, or its name field
};

std::vector<PresetInfo> listPresets(PresetKind kind);
std::vector<std::string> presetIds(PresetKind kind);
// The preset's parsed text (marks name it "<preset:models/llama3-70b>"); nullopt
// when there is no such preset.
std::optional<Value> loadPreset(PresetKind kind, const std::string& id);
std::optional<std::string> presetText(PresetKind kind, const std::string& id);

// resources/families/<arch>.yaml and resources/defaults/exec.yaml, parsed.
std::optional<Value> familyDefaults(const std::string& arch);
const Value& execDefaults();

// The scenario the app opens with when given none.
inline constexpr const char* kDefaultScenario = "llama3-70b-h100x64";

}  // namespace tessera::core
