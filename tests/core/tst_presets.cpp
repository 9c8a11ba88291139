// Every shipped preset loads, resolves, and survives load -> write -> load
// unchanged; every family and the run defaults read cleanly.
#include <QtTest>

#include "doc/emit.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {
QString text(const SpecError& e) { return QString::fromStdString(e.what()); }
// The first diagnostic, for failure messages (evaluated even when there is none).
std::string firstProblem(const Diagnostics& d) { return d.empty() ? std::string() : d.list().front().text(); }
}  // namespace

class TestPresets : public QObject {
    Q_OBJECT
private slots:
    void everyKindHasPresets() {
        QVERIFY(presetIds(PresetKind::Model).size() >= 13);
        QVERIFY(presetIds(PresetKind::Device).size() >= 14);
        QVERIFY(presetIds(PresetKind::Scenario).size() >= 4);
        for (const char* id : {"a100-40gb", "a100-80gb", "h100-sxm", "h800", "h200", "b200", "gh200", "gb200", "h20", "mi300x", "mi355x", "ascend-910b",
                               "ascend-910c", "v100-32gb"})
            QVERIFY2(loadPreset(PresetKind::Device, id).has_value(), id);
        for (const char* id : {"gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
                               "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-72b", "qwen3-32b", "qwen3-235b-a22b", "deepseek-v3"})
            QVERIFY2(loadPreset(PresetKind::Model, id).has_value(), id);
        for (const PresetInfo& p : listPresets(PresetKind::Device)) QVERIFY2(!p.summary.empty(), p.id.c_str());
    }

    void models_data() {
        QTest::addColumn<QString>("id");
        for (const std::string& id : presetIds(PresetKind::Model)) QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void models() {
        QFETCH(QString, id);
        Diagnostics d;
        const ModelSpec first = modelFromValue(*loadPreset(PresetKind::Model, id.toStdString()), "model", d);
        QVERIFY2(d.empty(), firstProblem(d).c_str());
        const Value written = SpecWriter::write(first);
        const ModelSpec second = modelFromValue(written, "model", d);
        QVERIFY(d.empty());
        QVERIFY(first == second);
        try {
            resolveModel(first);
        } catch (const SpecError& e) {
            QFAIL(qPrintable(text(e)));
        }
    }

    void devices_data() {
        QTest::addColumn<QString>("id");
        for (const std::string& id : presetIds(PresetKind::Device)) QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void devices() {
        QFETCH(QString, id);
        Diagnostics d;
        DeviceSpec first, second;
        SpecReader(*loadPreset(PresetKind::Device, id.toStdString()), "device", d).read(first);
        QVERIFY2(d.empty(), firstProblem(d).c_str());
        SpecReader(SpecWriter::write(first), "device", d).read(second);
        QVERIFY(d.empty());
        QVERIFY(first == second);
        // A preset states every figure; absent ones would be refused at resolve.
        QVERIFY(first.name && first.memory && first.hbm_bandwidth_gbps && first.intra_node_bandwidth_gbps &&
                first.inter_node_bandwidth_gbps && first.devices_per_node && first.peak_tflops && !first.peak_tflops->empty());
    }

    void scenarios_data() {
        QTest::addColumn<QString>("id");
        for (const std::string& id : presetIds(PresetKind::Scenario)) QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void scenarios() {
        QFETCH(QString, id);
        try {
            const Scenario first = presetScenario(id.toStdString());
            const std::string yaml = scenarioYaml(first);
            const Scenario second = parseScenario(yaml, "written.yaml", Format::Yaml, "");
            QVERIFY2(first == second, yaml.c_str());
            // The resolved scenario written out is a scenario that resolves to itself.
            const ResolvedScenario resolved = resolve(first);
            const Scenario again = parseScenario(scenarioYaml(resolved.scenario), "resolved.yaml", Format::Yaml, "");
            QVERIFY(resolve(again).scenario == resolved.scenario);
            // And the same through JSON.
            const Scenario viaJson = parseScenario(toJson(scenarioValue(first)).dump(), "written.json", Format::Json, "");
            QVERIFY(viaJson == first);
        } catch (const SpecError& e) {
            QFAIL(qPrintable(text(e)));
        }
    }

    void defaultScenarioIsLlama3OnH100s() {
        const ResolvedScenario r = resolve(presetScenario(kDefaultScenario));
        QCOMPARE(*r.scenario.model.name, std::string("Llama-3 70B"));
        QCOMPARE(*r.scenario.cluster.device_preset, std::string("h100-sxm"));
        QCOMPARE(*r.scenario.cluster.devices, std::int64_t{64});
    }

    void familiesReadCleanly() {
        for (std::string_view family : modelFamilies()) {
            const std::optional<Value> defaults = familyDefaults(std::string(family));
            QVERIFY2(defaults.has_value(), std::string(family).c_str());
            Diagnostics d;
            modelFromValue(*defaults, "family", d);
            QVERIFY2(d.empty(), firstProblem(d).c_str());
        }
        QVERIFY(!familyDefaults("no-such-family"));
    }

    void runDefaultsReadCleanly() {
        Diagnostics d;
        ExecSpec defaults;
        SpecReader(execDefaults(), "defaults", d).read(defaults);
        QVERIFY2(d.empty(), firstProblem(d).c_str());
        // What a run must state is not defaulted: the degrees that follow from
        // the devices, the batch and the sequence.
        QVERIFY(!defaults.dp && !defaults.global_batch_size && !defaults.seq_length && !defaults.micro_batch_num);
    }
};

QTEST_APPLESS_MAIN(TestPresets)
#include "tst_presets.moc"
