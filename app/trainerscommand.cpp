#include "trainerscommand.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli.h"
#include "doc/emit.h"
#include "doc/files.h"
#include "io/overrides.h"
#include "io/scenarioio.h"
#include "resolve/resolve.h"
#include "trainers/trainers.h"

namespace tessera::app {

using namespace tessera::core;

namespace {

namespace fs = std::filesystem;

struct Options {
    std::string input, output, device, to;
    std::optional<std::int64_t> devices;
    std::vector<std::string> overrides;
    bool force = false;
};

Options parse(const std::string& command, const std::vector<std::string>& args) {
    Options o;
    auto value = [&](std::size_t& i, const std::string& name) -> std::optional<std::string> {
        std::optional<std::string> v;
        if (args[i] == name && i + 1 < args.size()) v = args[++i];
        else if (args[i] == name) v = "";
        else if (args[i].starts_with(name + "=")) v = args[i].substr(name.size() + 1);
        if (v && v->empty()) throw UsageError{command + ": " + name + " needs a value"};
        return v;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (auto v = value(i, "-o")) o.output = *v;
        else if (auto v = value(i, "--output")) o.output = *v;
        else if (auto v = value(i, "--set")) o.overrides.push_back(*v);
        else if (auto v = command == "export" ? value(i, "--to") : std::nullopt) o.to = *v;
        else if (auto v = command == "import" ? value(i, "--devices") : std::nullopt) {
            std::int64_t n = 0;
            const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
            if (ec != std::errc() || end != v->data() + v->size() || n < 1 || n > (1 << 24))
                throw UsageError{"import: --devices needs a whole number from 1 to 16777216, got '" + *v + "'"};
            o.devices = n;
        } else if (auto v = command == "import" ? value(i, "--device") : std::nullopt) o.device = *v;
        else if (args[i] == "--force") o.force = true;
        else if (args[i].starts_with("-")) throw UsageError{command + ": unknown option " + args[i]};
        else if (o.input.empty()) o.input = args[i];
        else throw UsageError{command + " takes one " + (command == "import" ? "CONFIG" : "SCENARIO")};
    }
    if (o.input.empty()) throw UsageError{command + " needs a " + (command == "import" ? "CONFIG file" : "SCENARIO")};
    return o;
}

std::string readText(const std::string& path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || fs::is_directory(path, ec)) throw FileError(Diagnostic{Mark{path, 0, 0}, "", "cannot read: no such file"});
    if (size > kMaxFileBytes)
        throw SpecError(Diagnostic{Mark{path, 0, 0}, "", "larger than " + std::to_string(kMaxFileBytes) + " bytes: no trainer's configuration is"});
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in && !in.eof()) throw FileError(Diagnostic{Mark{path, 0, 0}, "", "cannot read"});
    return s.str();
}

int importCommand(const Options& o) {
    const std::string text = readText(o.input);
    const std::string baseDir = fs::path(o.input).parent_path().empty() ? "." : fs::path(o.input).parent_path().string();
    ImportCluster cluster;
    if (!o.device.empty()) cluster.device = Value::string(o.device);
    cluster.devices = o.devices;
    Diagnostics d;
    Imported imported = importConfig(text, o.input, baseDir, cluster, d);
    d.raiseIfAny();
    for (const std::string& assignment : o.overrides) applyOverride(imported.scenario, assignment);
    // Refuse now what cannot be priced, each problem at its place in the file.
    const Scenario stated = scenarioFromValue(imported.scenario, o.input, baseDir);
    if (imported.format == ConfigFormat::HfConfig) resolveModel(stated);
    else if (!stated.search || stated.search->space.empty()) resolve(stated);
    // A model file named absolute goes relative to where the scenario is written.
    if (!o.output.empty())
        if (Value* model = imported.scenario.find("model"); model && model->isMap())
            if (Value* file = model->find("file")) {
                const fs::path rel = fs::path(file->asString()).lexically_relative(fs::absolute(o.output).parent_path());
                if (!rel.empty()) *file = Value::string(rel.generic_string(), file->mark());
            }
    std::string header = "# Imported from " + o.input + " (" + formatName(imported.format) + ") by tessera import\n";
    if (!imported.unpriced.empty()) {
        header += "# Not priced (" + std::to_string(imported.unpriced.size()) + "):\n";
        for (const Unpriced& u : imported.unpriced) header += "#   " + u.text() + "\n";
    }
    for (const Unpriced& u : imported.unpriced) std::cerr << u.text() << '\n';
    const std::map<std::string, std::string>& assumed = imported.assumed;
    const std::string yaml = header + toYaml(imported.scenario, [&](const std::string& path) {
                                 const auto it = assumed.find(path);
                                 return it == assumed.end() ? std::string() : "imported: " + it->second;
                             });
    if (o.output.empty()) std::cout << yaml;
    else writeFileAtomically(o.output, yaml, o.force);
    return kExitOk;
}

int exportCommand(const Options& o) {
    const std::optional<ExportTarget> target = exportTargetOf(o.to);
    if (!target) throw UsageError{"export: --to needs megatron, torchtitan or train-yaml" + (o.to.empty() ? std::string() : ", got " + o.to)};
    const ResolvedScenario r = resolve(loadStated(o.input, o.overrides));
    const Exported out = exportScenario(r, *target);
    for (const std::string& line : out.unexpressed) std::cerr << "not expressed: " << line << '\n';
    if (o.output.empty()) std::cout << out.text;
    else writeFileAtomically(o.output, out.text, o.force);
    return kExitOk;
}

}  // namespace

std::string trainersUsage() {
    return "       tessera import CONFIG [--device PRESET] [--devices N] [--set S.K=V ...] [-o SCENARIO.yaml] [--force]\n"
           "                                          a trainer's file as a scenario, recognised by content:\n"
           "                                          config.json, train.yaml, search yaml, Megatron-LM\n"
           "                                          arguments or YAML, torchtitan TOML; what it does not\n"
           "                                          price is listed in the header and on stderr\n"
           "       tessera export SCENARIO --to megatron|torchtitan|train-yaml [--set S.K=V ...] [-o OUT] [--force]\n"
           "                                          the resolved strategy as the trainer's file; what it\n"
           "                                          cannot express is listed in the header and on stderr\n";
}

int runImport(const std::vector<std::string>& args) {
    return runGuarded([&] { return importCommand(parse("import", args)); }, "Usage: " + trainersUsage().substr(7));
}

int runExport(const std::vector<std::string>& args) {
    return runGuarded([&] { return exportCommand(parse("export", args)); }, "Usage: " + trainersUsage().substr(7));
}

}  // namespace tessera::app
