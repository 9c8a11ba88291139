#include "entries.h"

#include <cmath>
#include <stdexcept>

#include "doc/emit.h"
#include "report/estimatereport.h"
#include "io/hfimport.h"
#include "io/scenarioio.h"
#include "report/showreport.h"
#include "io/specwriter.h"
#include "trainers/trainers.h"
#include "trainyaml/trainyaml.h"
#include "model/estimate.h"
#include "model/parameters.h"
#include "resolve/resolve.h"

namespace tessera::fuzz {

using namespace tessera::core;

namespace {

// Not a SpecError on purpose: it must escape, so libFuzzer stops on it.
struct ContractBroken : std::logic_error {
    using std::logic_error::logic_error;
};

// A refusal has to say what is wrong; an empty one leaves the user guessing.
Outcome refused(const SpecError& e) {
    if (e.diagnostics().empty()) throw ContractBroken("a SpecError with no diagnostics");
    Outcome out;
    for (const Diagnostic& d : e.diagnostics()) {
        if (d.message.empty()) throw ContractBroken("a diagnostic with no message at " + d.mark.text());
        out.refusal += d.text() + "\n";
    }
    return out;
}

void checkFigure(double value, const char* what) {
    if (std::isnan(value)) throw ContractBroken(std::string("the estimate's ") + what + " is NaN");
}

// What `tessera estimate` and `tessera show` print for an accepted scenario. The
// figures of an estimate are checked: every input was finite and in range, so a
// NaN or a negative byte count means a product overflowed somewhere.
void price(const ResolvedScenario& r) {
    const Estimate e = estimate(r);
    if (e.totalParameters < 0) throw ContractBroken("a negative parameter count");
    if (e.peakMemory < 0) throw ContractBroken("a negative peak memory");
    for (const StageEstimate& s : e.stages) {
        const StageMemory& m = s.memory;
        for (Bytes b : {m.parameters, m.gradients, m.optimizerStates, m.mainParameters, m.activations, m.buffers, m.working})
            if (b < 0) throw ContractBroken("stage " + std::to_string(s.stage) + " holds a negative byte count");
    }
    checkFigure(e.stepSeconds, "step time");
    checkFigure(e.mfu, "MFU");
    checkFigure(e.tokensPerSecond, "tokens/s");
    checkFigure(e.bubbleFraction, "bubble fraction");
    (void)estimateText(r, e);
    (void)showText(r);
}

}  // namespace

std::string fuzzBaseDir() { return TESSERA_TEST_DATA "/invalid"; }

Outcome runScenario(std::string_view text, Format format) {
    try {
        const Scenario stated = parseScenario(text, format == Format::Json ? "fuzz.json" : "fuzz.yaml", format, fuzzBaseDir());
        price(resolve(stated));
        return {true, {}};
    } catch (const SpecError& e) {
        return refused(e);
    }
}

Outcome runHfConfig(std::string_view text) {
    try {
        const Value config = parseDocument(text, "config.json", Format::Json);
        // As `tessera import-hf`: the section, its fields checked, the model resolved and counted.
        Diagnostics d;
        const Value section = importHfConfig(config, d);
        const ModelSpec model = modelFromValue(section, "model", d);
        d.raiseIfAny();
        if (countParameters(resolveModel(model)).total() < 0) throw ContractBroken("a negative parameter count");
        (void)toYaml(SpecWriter::write(model));
        // And priced, as `model: {file: config.json}` in a scenario would be.
        Value scenario = Value::map();
        scenario.set("model", section);
        Value cluster = Value::map();
        cluster.set("device", Value::string("h100-sxm"));
        cluster.set("devices", Value::integer(8));
        scenario.set("cluster", cluster);
        Value exec = Value::map();
        exec.set("seq_length", Value::integer(4096));
        exec.set("global_batch_size", Value::integer(64));
        scenario.set("exec", exec);
        price(resolve(scenarioFromValue(scenario, "config.json", fuzzBaseDir())));
        return {true, {}};
    } catch (const SpecError& e) {
        return refused(e);
    }
}

Outcome runTrainYaml(std::string_view text) {
    try {
        const Value train = parseDocument(text, "train.yaml", Format::Yaml);
        // As the GUI opens one on an h100-sxm x 64 window: a train.yaml never names the
        // device, and states the device count only in context.device_num, which wins.
        Diagnostics d;
        const TrainCluster onWindow{Value::string("h100-sxm"), 64, true};
        const Value scenario = trainScenario(train, fuzzBaseDir(), onWindow, d);
        d.raiseIfAny();
        const Value* cluster = scenario.find("cluster");
        if (!cluster || !cluster->isMap() || !cluster->find("device")) throw ContractBroken("trainScenario wrote no cluster");
        (void)toYaml(scenario);
        const ResolvedScenario r = resolve(scenarioFromValue(scenario, "train.yaml", fuzzBaseDir()));
        price(r);
        // And written back over the original, as `search -o --train-yaml` does.
        (void)trainYaml(r, &train);
        return {true, {}};
    } catch (const SpecError& e) {
        return refused(e);
    }
}

Outcome runImport(std::string_view text) {
    try {
        ImportCluster cluster;
        cluster.device = Value::string("h100-sxm");
        cluster.devices = 64;
        Diagnostics d;
        const Imported imported = importConfig(text, "fuzz.cfg", fuzzBaseDir(), cluster, d);
        d.raiseIfAny();
        for (const Unpriced& u : imported.unpriced)
            if (u.why.empty()) throw ContractBroken("an unpriced key with no reason at " + u.mark.text());
        (void)toYaml(imported.scenario);
        const Scenario stated = scenarioFromValue(imported.scenario, "fuzz.cfg", fuzzBaseDir());
        if (stated.search && !stated.search->space.empty()) return {true, {}};
        const ResolvedScenario r = resolve(stated);
        price(r);
        for (ExportTarget target : {ExportTarget::Megatron, ExportTarget::Torchtitan})
            if (exportScenario(r, target).text.empty()) throw ContractBroken("an empty export");
        return {true, {}};
    } catch (const SpecError& e) {
        return refused(e);
    }
}

}  // namespace tessera::fuzz

namespace {
std::string_view textOf(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}
}  // namespace

int fuzzScenario(const std::uint8_t* data, std::size_t size) {
    // Both front ends on every input: most mutations of a YAML seed are still YAML,
    // and JSON's own parser (nlohmann's SAX with position tracking) needs its share.
    const bool yaml = tessera::fuzz::runScenario(textOf(data, size), tessera::core::Format::Yaml).accepted;
    const bool json = tessera::fuzz::runScenario(textOf(data, size), tessera::core::Format::Json).accepted;
    return yaml || json ? 0 : 1;
}

int fuzzHf(const std::uint8_t* data, std::size_t size) {
    return tessera::fuzz::runHfConfig(textOf(data, size)).accepted ? 0 : 1;
}

int fuzzTrainYaml(const std::uint8_t* data, std::size_t size) {
    return tessera::fuzz::runTrainYaml(textOf(data, size)).accepted ? 0 : 1;
}

int fuzzImport(const std::uint8_t* data, std::size_t size) {
    return tessera::fuzz::runImport(textOf(data, size)).accepted ? 0 : 1;
}
