#include "io/presets.h"

#include <algorithm>

#include "io/embedded.h"

namespace tessera::core {

namespace {

std::string folderOf(PresetKind kind) {
    switch (kind) {
    case PresetKind::Model: return "presets/models/";
    case PresetKind::Device: return "presets/devices/";
    case PresetKind::Scenario: return "presets/scenarios/";
    }
    return {};
}

const EmbeddedFile* findFile(const std::string& path) {
    for (const EmbeddedFile& f : embeddedResources())
        if (path == f.path) return &f;
    return nullptr;
}

std::optional<Value> parseEmbedded(const std::string& path) {
    const EmbeddedFile* f = findFile(path);
    if (!f) return std::nullopt;
    // Shipped files are tested to parse; a failure here is a build defect.
    return parseDocument(f->text(), "<" + path + ">", Format::Yaml);
}

std::string summaryOf(std::string_view text) {
    if (text.starts_with("#")) {
        std::string_view line = text.substr(0, text.find('\n'));
        line.remove_prefix(1);
        while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        return std::string(line);
    }
    return {};
}

}  // namespace

std::vector<std::string> presetIds(PresetKind kind) {
    std::vector<std::string> ids;
    const std::string folder = folderOf(kind);
    for (const EmbeddedFile& f : embeddedResources()) {
        std::string_view path = f.path;
        if (!path.starts_with(folder) || !path.ends_with(".yaml")) continue;
        path.remove_prefix(folder.size());
        path.remove_suffix(5);
        ids.emplace_back(path);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<PresetInfo> listPresets(PresetKind kind) {
    std::vector<PresetInfo> out;
    for (const std::string& id : presetIds(kind)) {
        const EmbeddedFile* f = findFile(folderOf(kind) + id + ".yaml");
        out.push_back({kind, id, summaryOf(f->text())});
    }
    return out;
}

std::optional<std::string> presetText(PresetKind kind, const std::string& id) {
    const EmbeddedFile* f = findFile(folderOf(kind) + id + ".yaml");
    return f ? std::optional<std::string>(std::string(f->text())) : std::nullopt;
}

std::optional<Value> loadPreset(PresetKind kind, const std::string& id) {
    return parseEmbedded(folderOf(kind) + id + ".yaml");
}

std::optional<Value> familyDefaults(const std::string& arch) { return parseEmbedded("families/" + arch + ".yaml"); }

const Value& execDefaults() {
    static const Value defaults = *parseEmbedded("defaults/exec.yaml");
    return defaults;
}

}  // namespace tessera::core
