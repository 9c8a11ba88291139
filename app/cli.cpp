#include "cli.h"

#include "calibratecommand.h"
#include "plancommand.h"
#include "traincommand.h"
#include "trainerscommand.h"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "doc/emit.h"
#include "report/diffreport.h"
#include "report/estimatereport.h"
#include "fit/advice.h"
#include "units/units.h"
#include "doc/files.h"
#include "io/hfimport.h"
#include "io/overrides.h"
#include "io/presets.h"
#include "report/searchreport.h"
#include "trainyaml/trainyaml.h"
#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "model/estimate.h"
#include "model/parameters.h"
#include "resolve/resolve.h"
#include "search/search.h"
#include "search/strategy.h"
#include "report/showreport.h"
#include "units/units.h"

namespace tessera::app {

using namespace tessera::core;

Scenario loadStated(const std::string& nameOrPath, const std::vector<std::string>& overrides) {
    std::string baseDir;
    Value document = scenarioDocument(nameOrPath, &baseDir);
    for (const std::string& assignment : overrides) applyOverride(document, assignment);
    std::string name = nameOrPath;
    if (!std::filesystem::exists(nameOrPath)) name = "<preset:scenarios/" + nameOrPath + ">";
    return scenarioFromValue(document, name, baseDir);
}

namespace {

[[maybe_unused]] ResolvedScenario loadResolved(const std::string& nameOrPath, const std::vector<std::string>& overrides = {}) {
    return resolve(loadStated(nameOrPath, overrides));
}

// FILE, --json and --set k=v (or --set=k=v) of show and estimate.
struct ScenarioArgs {
    std::string file;
    bool json = false;
    std::vector<std::string> overrides;
};

ScenarioArgs scenarioArgs(const std::string& command, const std::vector<std::string>& args) {
    ScenarioArgs out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") out.json = true;
        else if (a == "--set" && i + 1 < args.size()) out.overrides.push_back(args[++i]);
        else if (a.starts_with("--set=")) out.overrides.push_back(a.substr(6));
        else if (a.starts_with("-")) throw UsageError{command + ": unknown option " + a};
        else if (out.file.empty()) out.file = a;
        else throw UsageError{command + " takes one FILE"};
    }
    if (out.file.empty()) throw UsageError{command + " needs a FILE"};
    return out;
}

void printDiagnostics(const SpecError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::cerr << d.text() << '\n';
}

int cmdValidate(const std::vector<std::string>& files) {
    if (files.empty()) throw UsageError{"validate needs at least one FILE"};
    int status = kExitOk;
    for (const std::string& file : files) {
        try {
            const Scenario stated = loadStated(file);
            try {
                resolve(stated);
                std::cout << file << ": ok\n";
            } catch (const SpecError& asRun) {
                // A search file (the seed's) need not be one run: it is valid when its search is.
                if (!stated.search || stated.search->space.empty()) throw;
                const SearchSetup setup = searchSetup(stated);
                std::cout << file << ": ok: a search over " << withThousands(std::int64_t(setup.space.size()))
                          << " candidates (as one run it is not complete: " << asRun.diagnostics().front().path << ")\n";
            }
        } catch (const FileError& e) {
            printDiagnostics(e);
            status = std::max(status, kExitFailure);
        } catch (const SpecError& e) {
            printDiagnostics(e);
            status = kExitInvalid;
        }
    }
    return status;
}

int cmdShow(const std::vector<std::string>& args) {
    const ScenarioArgs a = scenarioArgs("show", args);
    const Scenario stated = loadStated(a.file, a.overrides);
    try {
        const ResolvedScenario r = resolve(stated);
        std::cout << (a.json ? showJson(r) : showText(r));
    } catch (const SpecError& asRun) {
        if (!stated.search || stated.search->space.empty()) throw;
        searchSetup(stated);  // a search that does not start is refused, as `search` refuses it
        const Diagnostic& first = asRun.diagnostics().front();
        std::cout << (a.json ? showSearchJson(stated, first) : showSearchText(stated, first));
    }
    return kExitOk;
}

int cmdEstimate(const std::vector<std::string>& args) {
    const ScenarioArgs a = scenarioArgs("estimate", args);
    const Scenario stated = loadStated(a.file, a.overrides);
    const ResolvedScenario r = resolve(stated);
    const Estimate e = estimate(r);
    const FitAdvice fit = adviseFit(stated, r, e);
    std::cout << (a.json ? estimateJson(r, e, &fit) : estimateText(r, e, &fit));
    return kExitOk;
}

// Two scenarios side by side; --set changes B only, so `diff A A --set exec.tp=4` is a what-if.
int cmdDiff(const std::vector<std::string>& args) {
    std::vector<std::string> files, overrides;
    bool json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") json = true;
        else if (a == "--set" && i + 1 < args.size()) overrides.push_back(args[++i]);
        else if (a.starts_with("--set=")) overrides.push_back(a.substr(6));
        else if (a.starts_with("-")) throw UsageError{"diff: unknown option " + a};
        else files.push_back(a);
    }
    if (files.size() != 2) throw UsageError{"diff takes two FILEs, A and B"};
    const ResolvedScenario ra = resolve(loadStated(files[0])), rb = resolve(loadStated(files[1], overrides));
    const Estimate ea = estimate(ra), eb = estimate(rb);
    std::string nameB = files[1];
    for (const std::string& o : overrides) nameB += " --set " + o;
    const DiffSide a{files[0], &ra, &ea}, b{nameB, &rb, &eb};
    const ScenarioDiff d = diffScenarios(a, b);
    std::cout << (json ? diffJson(a, b, d) : diffText(a, b, d));
    return kExitOk;
}

int cmdSearch(const std::vector<std::string>& args) {
    std::vector<std::string> scenarioArgsOnly;
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    std::size_t top = 10, pick = 1;
    std::string output, trainInput;
    bool force = false;
    auto number = [&](std::size_t& i, const std::string& flag) -> long long {
        if (i + 1 >= args.size()) throw UsageError{"search: " + flag + " needs a number"};
        try {
            const long long n = std::stoll(args[++i]);
            if (n < 1) throw std::invalid_argument("");
            return n;
        } catch (const std::exception&) {
            throw UsageError{"search: " + flag + " needs a whole number of at least 1, got " + args[i]};
        }
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--threads") threads = int(number(i, a));
        else if (a == "--top") top = std::size_t(number(i, a));
        else if (a == "--pick") pick = std::size_t(number(i, a));
        else if (a == "--force") force = true;
        else if (a == "-o" || a == "--output") {
            if (i + 1 >= args.size()) throw UsageError{"search: -o needs a file name"};
            output = args[++i];
        } else if (a == "--train-yaml") {
            if (i + 1 >= args.size()) throw UsageError{"search: --train-yaml needs a file name"};
            trainInput = args[++i];
        } else if (a == "--set" && i + 1 < args.size()) {
            scenarioArgsOnly.push_back(a), scenarioArgsOnly.push_back(args[++i]);
        } else {
            scenarioArgsOnly.push_back(a);
        }
    }
    const ScenarioArgs a = scenarioArgs("search", scenarioArgsOnly);
    std::string baseDir;
    Value document = scenarioDocument(a.file, &baseDir);
    for (const std::string& assignment : a.overrides) applyOverride(document, assignment);
    const Scenario scenario = scenarioFromValue(document, a.file, baseDir);
    const SearchSetup setup = searchSetup(scenario);
    SearchOptions options;
    options.threads = threads;
    const SearchResult result = runSearch(setup, options);
    std::cout << (a.json ? searchJson(setup, result, top) : searchText(setup, result, top));
    if (!output.empty()) {
        if (result.top.empty()) throw std::runtime_error("no strategy fits: nothing to write to " + output);
        if (pick > result.top.size())
            throw UsageError{"search: --pick " + std::to_string(pick) + " but only " + std::to_string(result.top.size()) +
                             " strategies were kept"};
        const ResolvedScenario chosen = resolve(scenarioFor(scenario, result.top[pick - 1]));
        std::optional<Value> original;
        if (!trainInput.empty()) original = scenarioDocument(trainInput, nullptr);
        writeFileAtomically(output, trainYaml(chosen, original ? &*original : nullptr), force);
        for (const std::string& line : trainYamlUnexpressed(chosen)) std::cerr << "not expressed: " << line << '\n';
        if (!a.json) std::cout << "\nWrote " << output << " for strategy " << pick << ": " << result.top[pick - 1].label() << '\n';
    }
    return result.feasible > 0 ? kExitOk : kExitInvalid;
}

int cmdPresets(const std::vector<std::string>& args) {
    if (!args.empty()) throw UsageError{"presets takes no arguments"};
    for (auto [kind, title] : {std::pair{PresetKind::Model, "Models"}, {PresetKind::Device, "Devices"},
                               {PresetKind::Scenario, "Scenarios"}}) {
        std::cout << title << ":\n";
        for (const PresetInfo& p : listPresets(kind)) {
            std::string line = "  " + p.id;
            line.resize(std::max<std::size_t>(line.size() + 2, 26), ' ');
            std::cout << line << p.summary << '\n';
        }
    }
    return kExitOk;
}

int cmdImportHf(const std::vector<std::string>& args) {
    std::string input, output;
    bool force = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-o" || args[i] == "--output") {
            if (i + 1 == args.size()) throw UsageError{"import-hf: -o needs a file name"};
            output = args[++i];
        } else if (args[i] == "--force") {
            force = true;
        } else if (args[i].starts_with("-")) {
            throw UsageError{"import-hf: unknown option " + args[i]};
        } else if (input.empty()) {
            input = args[i];
        } else {
            throw UsageError{"import-hf takes one config.json"};
        }
    }
    if (input.empty()) throw UsageError{"import-hf needs a config.json"};
    const Value config = loadDocument(input);
    Diagnostics d;
    const HfImport imported = importHf(config, d);
    const Value& section = imported.model;
    const ModelSpec model = modelFromValue(section, "model", d);
    d.raiseIfAny();
    // The imported model must also resolve: a config missing a size fails here, by name,
    // at its place in config.json (a scenario holding the section keeps the marks).
    Value holder = Value::map();
    holder.set("model", section);
    holder.set("exec", Value::map());
    holder.set("cluster", Value::map());
    const ModelSpec resolved = resolveModel(scenarioFromValue(holder, input, "."));
    auto joined = [](const std::vector<std::string>& keys) {
        std::string out;
        for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
        return out;
    };
    std::string header = "# Imported from " + input + " by tessera import-hf: " +
                         withThousands(countParameters(resolved).total()) + " parameters\n";
    if (!imported.unpriced.empty()) {
        header += "# Not priced (the counts and costs are without them): " + joined(imported.unpriced) + "\n";
        std::cerr << "import-hf: not priced: " << joined(imported.unpriced) << '\n';
    }
    if (!imported.noEffect.empty())
        std::cerr << "import-hf: read, and change neither memory nor time: " << joined(imported.noEffect) << '\n';
    for (const auto& [key, why] : imported.classDefaults) {
        header += "# Not in config.json, filled: " + key + " = " + why + "\n";
        std::cerr << "import-hf: not in config.json, filled: " << key << " = " << why << '\n';
    }
    const std::string yaml = header + toYaml(SpecWriter::write(model));
    if (output.empty()) std::cout << yaml;
    else writeFileAtomically(output, yaml, force);
    return kExitOk;
}

}  // namespace

std::string usage() {
    return R"(Usage: tessera [FILE]                      open the app (on FILE, or the default scenario)
       tessera validate FILE...           check scenario files; one error per line
       tessera show FILE [--set S.K=V ...] [--json]
                                          print the resolved scenario and its parameter counts
       tessera estimate FILE [--set S.K=V ...] [--json]
                                          per-stage memory and step time of the scenario's strategy
       tessera diff A B [--set S.K=V ...] [--json]
                                          every field that differs between two scenarios and
                                          every figure that moves (memory terms per stage, step
                                          and where it goes, tokens/s, MFU, days); --set
                                          changes B only (diff A A --set exec.tp=4: a what-if)
       tessera search FILE [--set S.K=V ...] [--threads N] [--top N] [--json]
                      [-o TRAIN.yaml [--pick N] [--train-yaml ORIGINAL.yaml] [--force]]
                                          search the scenario's strategy space: its search
                                          section, or with none the default space (every
                                          axis but etp, expert_tp and optimizer_shard auto;
                                          devices, global batch and the rest of exec as stated);
                                          -o writes the resolved train.yaml
       tessera plan FILE [--set S.K=V ...] [--json] [--keep-partition] [--keep-recompute]
                 [--offload] [--ppb LAYERS.json] [-o SCENARIO.yaml [--force]]
                                          plan inside the scenario's strategy: layers per stage
                                          and each layer's recompute, fastest within the memory
                                          budget (exec.device_memory, else the device's); --offload
                                          lets each stage offload its first layers' activations
                                          over the device's host link (1f1b, vpp 1); --ppb
                                          writes the layer descriptions the seed's pipeline
                                          balancer reads; -o writes the scenario with the plan
       tessera calibrate RUNS.yaml -o CALIBRATION.yaml [--fit KEY,KEY,...] [--force]
                                          fit the efficiencies (matmul curve, HBM and link
                                          shares, fitted overlaps) to measured runs: RUNS.yaml
                                          lists {scenario: FILE, measured: {step_time_s: X}
                                          or {tokens_per_second: N}}; prints each run before,
                                          after and left out; a scenario uses the file with
                                          cluster: {calibration: FILE}
       tessera presets                    list the built-in models, devices and scenarios
       tessera import-hf CONFIG.json [-o MODEL.yaml] [--force]
                                          turn a Hugging Face config.json into a model section
)" + importTrainUsage() + trainersUsage() + R"(       tessera report FILE -o REPORT.pdf [--force]
                                          the capacity-review PDF (runs the search, as search does)
       tessera --screenshot OUT.png [FILE] [--view memory|pipeline|pareto|candidates|estimate|scenario|window]
                        [--size 1600x1000] [--palette light|dark]
                                          a picture of the app, headless with QT_QPA_PLATFORM=offscreen
       tessera --help | --version

FILE is a scenario in YAML or JSON, or the id of a built-in scenario (see presets).
A scenario has the sections model, exec, cluster and (optional) search; a section
may name a preset (model: llama3-70b) or a file (model: {file: config.json}).
--set section.key=value overrides one key for this run, validated like the file
(--set exec.tp=4 --set model.num_hidden_layers=40 --set cluster.device=h200).

Exit codes:
  0   success
  1   a file could not be read or written
  2   the input was refused (each problem printed as file:line:column: field: message),
      or a search found no strategy that fits, or no plan fits
  64  the command line is wrong
)";
}

namespace {
// The commands runCli takes; `report` needs Qt and main.cpp runs it.
constexpr std::string_view kCommands[] = {"validate", "show", "estimate", "search", "plan", "calibrate", "import-train",
                                          "import", "export", "presets", "import-hf", "diff", "--help", "-h", "help",
                                          "--version"};
constexpr std::string_view kQtCommands[] = {"report"};
}  // namespace

bool isCliInvocation(const std::vector<std::string>& args) {
    if (args.empty()) return false;
    return std::any_of(std::begin(kCommands), std::end(kCommands), [&](std::string_view c) { return args[0] == c; });
}

std::optional<std::string> unknownCommand(const std::vector<std::string>& args) {
    if (args.empty() || args[0].empty() || args[0].starts_with('-') || isCliInvocation(args)) return std::nullopt;
    const std::string& word = args[0];
    if (std::any_of(std::begin(kQtCommands), std::end(kQtCommands), [&](std::string_view c) { return word == c; }))
        return std::nullopt;
    // The window opens on a file or a scenario preset: a path, or a word that names one.
    if (std::filesystem::exists(word) || word.find_first_of("/.") != std::string::npos) return std::nullopt;
    const std::vector<std::string> scenarios = presetIds(PresetKind::Scenario);
    if (std::find(scenarios.begin(), scenarios.end(), word) != scenarios.end()) return std::nullopt;
    // Nearest command first, then the nearest scenario preset.
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(3, word.size() / 3 + 1);
    for (std::string_view c : kCommands)
        if (!c.starts_with('-') && editDistance(word, c) < bestDistance) bestDistance = editDistance(word, c), best = c;
    for (std::string_view c : kQtCommands)
        if (editDistance(word, c) < bestDistance) bestDistance = editDistance(word, c), best = c;
    std::string message = "unknown command '" + word + "'";
    if (!best.empty()) return message + " (did you mean " + best + "?)";
    std::string preset;
    std::size_t presetDistance = std::max<std::size_t>(3, word.size() / 3 + 1);
    for (const std::string& id : scenarios)
        if (editDistance(word, id) < presetDistance) presetDistance = editDistance(word, id), preset = id;
    if (!preset.empty()) return message + " (did you mean the scenario preset " + preset + "?)";
    return message + ": not a command, a file or a scenario preset (`tessera presets` lists them)";
}

int runGuarded(const std::function<int()>& body, const std::string& usageText) {
    try {
        return body();
    } catch (const UsageError& e) {
        std::cerr << "tessera: " << e.message << "\n\n" << usageText;
        return kExitUsage;
    } catch (const FileError& e) {
        printDiagnostics(e);
        return kExitFailure;
    } catch (const SpecError& e) {
        printDiagnostics(e);
        return kExitInvalid;
    } catch (const std::exception& e) {
        std::cerr << "tessera: " << e.what() << '\n';
        return kExitFailure;
    }
}

int runCli(const std::vector<std::string>& args) {
    const std::string command = args.empty() ? "--help" : args[0];
    const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
    return runGuarded(
        [&]() -> int {
            if (command == "--help" || command == "-h" || command == "help") {
                std::cout << usage();
                return kExitOk;
            }
            if (command == "--version") {
                std::cout << "tessera " << TESSERA_VERSION << '\n';
                return kExitOk;
            }
            if (command == "validate") return cmdValidate(rest);
            if (command == "show") return cmdShow(rest);
            if (command == "estimate") return cmdEstimate(rest);
            if (command == "diff") return cmdDiff(rest);
            if (command == "search") return cmdSearch(rest);
            if (command == "import-train") return runImportTrain(rest);
            if (command == "import") return runImport(rest);
            if (command == "export") return runExport(rest);
            if (command == "plan") return cmdPlan(rest);
            if (command == "calibrate") return cmdCalibrate(rest);
            if (command == "presets") return cmdPresets(rest);
            if (command == "import-hf") return cmdImportHf(rest);
            throw UsageError{"unknown command " + command};
        },
        usage());
}

}  // namespace tessera::app
