#include "io/scenarioio.h"

#include <algorithm>
#include <filesystem>

#include "doc/emit.h"
#include "io/calibrationio.h"
#include "io/hfimport.h"
#include "io/presets.h"
#include "io/seedsearch.h"
#include "io/specreader.h"
#include "io/specwriter.h"

namespace tessera::core {

namespace {

namespace fs = std::filesystem;

struct Context {
    std::string baseDir;
    Diagnostics& d;
};

std::string joinIds(const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out;
}

// Overlay `top` onto `base`: top's entries win and keep their marks.
Value overlay(Value base, const Value& top, std::initializer_list<std::string_view> skip) {
    for (const Value::Entry& e : top.entries()) {
        if (std::find(skip.begin(), skip.end(), e.key) != skip.end()) continue;
        base.set(e.key, e.value, e.keyMark);
    }
    return base;
}

const char* kindWord(PresetKind kind) {
    return kind == PresetKind::Model ? "model" : kind == PresetKind::Device ? "device" : "scenario";
}

std::optional<Value> presetSection(PresetKind kind, const Value& name, const std::string& path, Context& c) {
    if (name.kind() != Value::Kind::String) {
        c.d.add(name.mark(), path, std::string("expected a ") + kindWord(kind) + " preset name, got " + name.describe());
        return std::nullopt;
    }
    if (auto v = loadPreset(kind, name.asString())) return v;
    c.d.add(name.mark(), path, std::string("unknown ") + kindWord(kind) + " preset '" + name.asString() +
                                   "'; the presets are: " + joinIds(presetIds(kind)));
    return std::nullopt;
}

// A model section given by file: a model section in YAML/JSON, or an HF config.
std::optional<Value> fileSection(const Value& file, const std::string& path, Context& c) {
    if (file.kind() != Value::Kind::String) {
        c.d.add(file.mark(), path, "expected a file path, got " + file.describe());
        return std::nullopt;
    }
    fs::path p(file.asString());
    if (p.is_relative() && !c.baseDir.empty()) p = fs::path(c.baseDir) / p;
    try {
        Value doc = loadDocument(p.string());
        if (isHfConfig(doc)) return importHfConfig(doc, c.d);
        return doc;
    } catch (const SpecError& e) {  // unreadable (FileError) or unparsable (LoadError)
        c.d.add(file.mark(), path, e.what());
        return std::nullopt;
    }
}

// A section as a mapping, with any preset or file reference expanded.
std::optional<Value> expandSection(const Value& v, const std::string& path, PresetKind kind, bool presets, Context& c) {
    if (presets && v.kind() == Value::Kind::String) return presetSection(kind, v, path, c);
    if (!v.isMap()) {
        c.d.add(v.mark(), path, std::string("expected a mapping") + (presets ? " or a preset name" : "") + ", got " + v.describe());
        return std::nullopt;
    }
    const Value* preset = v.find("preset");
    const Value* file = v.find("file");
    if (preset && file) {
        c.d.add(v.mark(), path, "state a preset or a file, not both");
        return std::nullopt;
    }
    if (preset && !presets) {
        c.d.add(preset->mark(), path + ".preset", "this section has no presets");
        return std::nullopt;
    }
    std::optional<Value> base;
    if (preset) base = presetSection(kind, *preset, path + ".preset", c);
    else if (file) base = fileSection(*file, path + ".file", c);
    else return v;
    if (!base) return std::nullopt;
    if (!base->isMap()) {
        c.d.add((preset ? preset : file)->mark(), path, "the referenced " + std::string(kindWord(kind)) + " is not a mapping");
        return std::nullopt;
    }
    return overlay(std::move(*base), v, {"preset", "file"});
}

void collectMarks(const Value& map, const std::string& prefix, std::map<std::string, Mark>& marks) {
    for (const Value::Entry& e : map.entries()) {
        marks[prefix + e.key] = e.value.mark();
        if (e.value.isMap()) collectMarks(e.value, prefix + e.key + ".", marks);
    }
}

void readCluster(const Value& v, Scenario& s, Context& c) {
    std::optional<Value> map = expandSection(v, "cluster", PresetKind::Device, false, c);
    if (!map) return;
    s.marks["cluster"] = v.mark();
    collectMarks(*map, "cluster.", s.marks);
    if (const Value* device = map->find("device"); device && !device->isNull()) {
        if (device->kind() == Value::Kind::String) s.cluster.device_preset = device->asString();
        if (std::optional<Value> dmap = expandSection(*device, "cluster.device", PresetKind::Device, true, c)) {
            if (device->isMap() && device->find("preset") && device->find("preset")->kind() == Value::Kind::String &&
                device->entries().size() == 1)
                s.cluster.device_preset = device->find("preset")->asString();
            collectMarks(*dmap, "cluster.device.", s.marks);
            DeviceSpec spec;
            SpecReader(*dmap, "cluster.device", c.d).read(spec);
            s.cluster.device = spec;
        }
    }
    SpecReader rest(*map, "cluster", c.d);
    rest.allow(kClusterDevice.key);
    rest.read(s.cluster);
    // The calibration file it names, relative to the scenario's folder (or the working
    // folder for a preset), read and refused as the scenario is.
    if (s.cluster.calibration) {
        fs::path p(*s.cluster.calibration);
        if (p.is_relative() && !c.baseDir.empty()) p = fs::path(c.baseDir) / p;
        std::error_code folder;
        if (s.cluster.calibration->empty() || fs::is_directory(p, folder)) {
            c.d.add(s.markOf("cluster.calibration"), "cluster.calibration",
                    "expected a calibration file (tessera calibrate -o FILE), got " +
                        (s.cluster.calibration->empty() ? std::string("an empty path") : "the folder " + p.string()));
            return;
        }
        try {
            s.calibration = readCalibrationFile(p.string(), c.d);
        } catch (const SpecError& e) {  // unreadable (FileError) or unparsable (LoadError)
            c.d.add(s.markOf("cluster.calibration"), "cluster.calibration", e.what());
        }
    }
}

Scenario readScenario(const Value& stated, const std::string& name, const std::string& baseDir) {
    Diagnostics d;
    // HyperParallel's search configuration reads as the scenario it describes.
    Scenario s;
    const Value root = isSeedSearchConfig(stated) ? scenarioFromSeedSearch(stated, d, &s.assumed) : stated;
    Context c{baseDir, d};
    s.source = name;
    if (!root.isMap()) {
        d.add(root.mark(), "", "a scenario is a mapping with the sections model, exec, cluster and search; got " + root.describe());
        d.raiseIfAny();
    }
    const Value* model = root.find("model");
    const Value* exec = root.find("exec");
    const Value* cluster = root.find("cluster");
    for (auto [key, v] : {std::pair{"model", model}, {"exec", exec}, {"cluster", cluster}})
        if (!v || v->isNull()) d.add(root.mark(), key, "this section is required");
    if (model && !model->isNull()) {
        if (std::optional<Value> map = expandSection(*model, "model", PresetKind::Model, true, c)) {
            s.marks["model"] = model->mark();
            collectMarks(*map, "model.", s.marks);
            s.model = modelFromValue(*map, "model", d);
        }
    }
    if (exec && !exec->isNull()) {
        if (std::optional<Value> map = expandSection(*exec, "exec", PresetKind::Model, false, c)) {
            s.marks["exec"] = exec->mark();
            collectMarks(*map, "exec.", s.marks);
            SpecReader(*map, "exec", d).read(s.exec);
        }
    }
    if (cluster && !cluster->isNull()) readCluster(*cluster, s, c);
    if (const Value* search = root.find("search"); search && !search->isNull()) {
        if (!search->isMap()) {
            d.add(search->mark(), "search", "expected a mapping, got " + search->describe());
        } else {
            s.marks["search"] = search->mark();
            collectMarks(*search, "search.", s.marks);
            s.search = readSearch(*search, d);
        }
    }
    refuseUnknownKeys(root, {"model", "exec", "cluster", "search"}, "", d);
    d.raiseIfAny();
    return s;
}

}  // namespace

ModelSpec modelFromValue(const Value& map, const std::string& section, Diagnostics& d) {
    ModelSpec spec;
    SpecReader(map, section, d).read(spec);
    return spec;
}

Scenario parseScenario(std::string_view text, const std::string& name, Format format, const std::string& baseDir) {
    return readScenario(parseDocument(text, name, format), name, baseDir);
}

Scenario loadScenario(const std::string& path) {
    const std::string base = fs::path(path).parent_path().string();
    return readScenario(loadDocument(path), path, base.empty() ? "." : base);
}

Scenario scenarioFromValue(const Value& root, const std::string& name, const std::string& baseDir) {
    return readScenario(root, name, baseDir);
}

Value scenarioDocument(const std::string& pathOrPreset, std::string* baseDir) {
    if (!fs::exists(pathOrPreset)) {
        if (std::optional<std::string> text = presetText(PresetKind::Scenario, pathOrPreset)) {
            if (baseDir) baseDir->clear();
            return parseDocument(*text, "<preset:scenarios/" + pathOrPreset + ">", Format::Yaml);
        }
    }
    Value doc = loadDocument(pathOrPreset);
    if (baseDir) {
        *baseDir = fs::path(pathOrPreset).parent_path().string();
        if (baseDir->empty()) *baseDir = ".";
    }
    return doc;
}

Scenario loadScenarioOrPreset(const std::string& pathOrPreset) {
    if (!fs::exists(pathOrPreset) && presetText(PresetKind::Scenario, pathOrPreset)) return presetScenario(pathOrPreset);
    return loadScenario(pathOrPreset);
}

Scenario presetScenario(const std::string& id) {
    std::optional<std::string> text = presetText(PresetKind::Scenario, id);
    if (!text) {
        Diagnostic d;  // (built field by field: GCC 12 at -O3 warns a braced temporary's Mark "may be uninitialized")
        d.message = "unknown scenario preset '" + id + "'; the presets are: " + joinIds(presetIds(PresetKind::Scenario));
        throw SpecError(std::move(d));
    }
    return parseScenario(*text, "<preset:scenarios/" + id + ">", Format::Yaml, "");
}

Value scenarioValue(const Scenario& s) {
    Value root = Value::map();
    root.set("model", SpecWriter::write(s.model));
    root.set("exec", SpecWriter::write(s.exec));
    Value cluster = Value::map();
    if (s.cluster.device_preset) cluster.set("device", Value::string(*s.cluster.device_preset));
    else if (s.cluster.device) cluster.set("device", SpecWriter::write(*s.cluster.device));
    const Value fields = SpecWriter::write(s.cluster);  // (a temporary's entries() would dangle in the loop)
    for (const Value::Entry& e : fields.entries()) cluster.set(e.key, e.value);
    root.set("cluster", std::move(cluster));
    if (s.search) root.set("search", searchValue(*s.search));
    return root;
}

std::string scenarioYaml(const Scenario& s) { return toYaml(scenarioValue(s)); }

}  // namespace tessera::core
