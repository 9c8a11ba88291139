#include "traincommand.h"

#include <charconv>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "doc/emit.h"
#include "io/scenarioio.h"
#include "doc/files.h"
#include "trainyaml/trainyaml.h"
#include "resolve/resolve.h"

namespace tessera::app {

using namespace tessera::core;

namespace {

namespace fs = std::filesystem;

struct Options {
    std::string input, output, device;
    std::optional<std::int64_t> devices;
    bool force = false;
};

Options parseArgs(const std::vector<std::string>& args) {
    Options o;
    // `--name VALUE` or `--name=VALUE`.
    auto value = [&](std::size_t& i, const std::string& name) -> std::optional<std::string> {
        std::optional<std::string> v;
        if (args[i] == name && i + 1 < args.size()) v = args[++i];
        else if (args[i] == name) v = "";
        else if (args[i].starts_with(name + "=")) v = args[i].substr(name.size() + 1);
        if (v && v->empty()) throw UsageError{"import-train: " + name + " needs a value"};
        return v;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (auto v = value(i, "-o"); v) o.output = *v;
        else if (auto v = value(i, "--output"); v) o.output = *v;
        else if (auto v = value(i, "--device"); v) o.device = *v;
        else if (auto v = value(i, "--devices"); v) {
            std::int64_t n = 0;
            const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
            if (ec != std::errc() || end != v->data() + v->size() || n < 1 || n > (1 << 24))
                throw UsageError{"import-train: --devices needs a whole number from 1 to 16777216, got '" + *v + "'"};
            o.devices = n;
        } else if (args[i] == "--force") o.force = true;
        else if (args[i].starts_with("-")) throw UsageError{"import-train: unknown option " + args[i]};
        else if (o.input.empty()) o.input = args[i];
        else throw UsageError{"import-train takes one train.yaml"};
    }
    if (o.input.empty()) throw UsageError{"import-train needs a train.yaml"};
    return o;
}

// A model file written absolute, made relative to where the scenario is saved
// so the pair can be moved together.
void rebaseModelFile(Value& scenario, const std::string& output) {
    Value* file = scenario.find("model")->find("file");
    if (!file) return;
    const fs::path relative = fs::path(file->asString()).lexically_relative(fs::absolute(output).parent_path());
    if (!relative.empty()) *file = Value::string(relative.generic_string(), file->mark());
}

int importTrain(const Options& o) {
    const Value train = loadDocument(o.input);
    const std::string baseDir = fs::path(o.input).parent_path().empty() ? "." : fs::path(o.input).parent_path().string();
    Diagnostics d;
    TrainCluster cluster;
    if (!o.device.empty()) cluster.device = Value::string(o.device);
    cluster.devices = o.devices;  // stated on the command line: must agree with the file's
    Value scenario = trainScenario(train, baseDir, cluster, d);
    d.raiseIfAny();
    resolve(scenarioFromValue(scenario, o.input, baseDir));  // refuses what cannot be priced

    if (!o.output.empty()) rebaseModelFile(scenario, o.output);
    const std::string yaml = "# Imported from " + o.input + " by tessera import-train\n" + toYaml(scenario);
    if (o.output.empty()) std::cout << yaml;
    else writeFileAtomically(o.output, yaml, o.force);
    return kExitOk;
}


}  // namespace

std::string importTrainUsage() {
    return "       tessera import-train TRAIN.yaml [-o SCENARIO.yaml] [--force] [--device PRESET] [--devices N]\n"
           "                                          turn a HyperParallel train.yaml into a scenario\n";
}

int runImportTrain(const std::vector<std::string>& args) {
    return runGuarded([&] { return importTrain(parseArgs(args)); }, "Usage: " + importTrainUsage().substr(7));
}

}  // namespace tessera::app
