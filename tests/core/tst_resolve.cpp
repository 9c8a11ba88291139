// resolve(): what is filled, from where, and the derivations between fields.
#include <QtTest>

#include "io/scenarioio.h"
#include "pipeline/partition.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

ResolvedScenario resolveText(const std::string& yaml) { return resolve(parseScenario(yaml, "t.yaml", Format::Yaml, "")); }

const char* kBase = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n";

}  // namespace

class TestResolve : public QObject {
    Q_OBJECT
private slots:
    void provenanceIsRecorded() {
        const ResolvedScenario r = resolveText(std::string(kBase) + "exec: {tp: 8, seq_length: 8192, global_batch_size: 32}\n");
        QCOMPARE(r.filled.at("model.norm").text(), std::string("family llama"));
        QCOMPARE(r.filled.at("exec.pp").text(), std::string("default"));
        QCOMPARE(r.filled.at("exec.dp").text(), std::string("derived: devices / (tp·pp·cp)"));
        QVERIFY(!r.filled.contains("exec.tp"));              // stated
        QVERIFY(!r.filled.contains("model.hidden_size"));    // stated by the preset
        QVERIFY(!r.filled.contains("model.num_experts"));    // not applicable: absent, not 0
        QVERIFY(!r.scenario.model.num_experts.has_value());
        QVERIFY(!r.filled.contains("model.router_bias"));    // a family MoE key on a dense model
        QCOMPARE(*r.scenario.exec.dp, std::int64_t{2});
        QCOMPARE(*r.scenario.exec.micro_batch_size, std::int64_t{1});
        QCOMPARE(*r.scenario.exec.micro_batch_num, std::int64_t{16});
        QCOMPARE(r.filled.at("exec.micro_batch_num").origin, Origin::Derived);
        QCOMPARE(*r.scenario.cluster.nodes, std::int64_t{2});
    }

    void batchDerivations_data() {
        QTest::addColumn<QString>("batch");
        QTest::addColumn<qint64>("mbs");
        QTest::addColumn<qint64>("mbn");
        QTest::addColumn<qint64>("gbs");
        // dp = 16 / 8 = 2
        QTest::newRow("gbs and mbs") << "global_batch_size: 64, micro_batch_size: 2" << qint64(2) << qint64(16) << qint64(64);
        QTest::newRow("gbs and mbn") << "global_batch_size: 64, micro_batch_num: 8" << qint64(4) << qint64(8) << qint64(64);
        QTest::newRow("mbs and mbn") << "micro_batch_size: 2, micro_batch_num: 4" << qint64(2) << qint64(4) << qint64(16);
        QTest::newRow("all three") << "global_batch_size: 16, micro_batch_size: 2, micro_batch_num: 4" << qint64(2) << qint64(4) << qint64(16);
    }
    void batchDerivations() {
        QFETCH(QString, batch);
        QFETCH(qint64, mbs);
        QFETCH(qint64, mbn);
        QFETCH(qint64, gbs);
        const ResolvedScenario r =
            resolveText(std::string(kBase) + "exec: {tp: 8, seq_length: 4096, " + batch.toStdString() + "}\n");
        QCOMPARE(qint64(*r.scenario.exec.micro_batch_size), mbs);
        QCOMPARE(qint64(*r.scenario.exec.micro_batch_num), mbn);
        QCOMPARE(qint64(*r.scenario.exec.global_batch_size), gbs);
        QVERIFY(*r.scenario.exec.grad_accumulation == (mbn > 1));
    }

    void nodesGiveDevices() {
        const ResolvedScenario r = resolveText(
            "model: llama3-8b\ncluster: {device: a100-80gb, nodes: 4}\nexec: {tp: 8, seq_length: 2048, global_batch_size: 8}\n");
        QCOMPARE(*r.scenario.cluster.devices, std::int64_t{32});
        QCOMPARE(r.filled.at("cluster.devices").origin, Origin::Derived);
    }

    void customDeviceAndPresetOverrides() {
        const ResolvedScenario r = resolveText(
            "model: {preset: llama3-8b, num_hidden_layers: 8}\n"
            "cluster:\n  device: {preset: h100-sxm, memory: 94 GiB, name: H100 NVL}\n  devices: 8\n"
            "exec: {tp: 8, seq_length: 2048, global_batch_size: 8}\n");
        QCOMPARE(*r.scenario.model.num_hidden_layers, std::int64_t{8});
        QCOMPARE(*r.scenario.cluster.device->memory, 94 * GiB);
        QCOMPARE(r.scenario.cluster.device->peak_tflops->at("bf16"), 989.4);
        QVERIFY(!r.scenario.cluster.device_preset);  // overridden: written in full, not by name
    }

    void optimizerShardFollowsTheDomain() {
        const ResolvedScenario r = resolveText(
            std::string(kBase) + "exec: {tp: 4, cp: 2, seq_length: 4096, global_batch_size: 8, optimizer_parallel: true, shard_spans_cp: true}\n");
        QCOMPARE(*r.scenario.exec.optimizer_shard, std::int64_t{4});  // dp 2 · cp 2
        QCOMPARE(*r.scenario.exec.optimizer_states, std::int64_t{2});
        const ResolvedScenario muon = resolveText(std::string(kBase) + "exec: {tp: 8, seq_length: 4096, global_batch_size: 8, optimizer: muon}\n");
        QCOMPARE(*muon.scenario.exec.optimizer_states, std::int64_t{1});
    }

    void gptFamilyDerivesTheMlpWidth() {
        const ResolvedScenario r = resolveText(
            "model: {arch: gpt, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, vocab_size: 50257, "
            "max_position_embeddings: 1024}\nexec: {seq_length: 1024, global_batch_size: 8}\ncluster: {device: a100-80gb, devices: 8}\n");
        QCOMPARE(*r.scenario.model.intermediate_size, std::int64_t{3072});
        QCOMPARE(r.filled.at("model.intermediate_size").text(), std::string("derived: 4 · hidden_size (GPT)"));
        QCOMPARE(*r.scenario.model.attention_dropout, 0.1);
        QCOMPARE(*r.scenario.exec.tie_embeddings, true);
    }

    void mixtralExpertsRunAtTheDenseWidth() {
        const ResolvedScenario r = resolveText(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\nexec: {ep: 8, seq_length: 4096, global_batch_size: 32}\n");
        QCOMPARE(*r.scenario.model.moe_intermediate_size, std::int64_t{14336});
        QCOMPARE(r.filled.at("model.moe_intermediate_size").origin, Origin::Derived);
        QCOMPARE(*r.scenario.model.num_shared_experts, std::int64_t{0});  // family mixtral
    }

    void partitions_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<QString>("expected");
        QTest::newRow("even") << 80 << 4 << 1 << "20,20,20,20";
        QTest::newRow("interleaved") << 8 << 2 << 2 << "2,2|2,2";
    }
    void partitions() {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(QString, expected);
        auto p = partitionLayers(layers, pp, vpp, std::nullopt, std::nullopt);
        QStringList chunks;
        for (const auto& chunk : std::get<Partition>(p).layers) {
            QStringList stages;
            for (auto n : chunk) stages << QString::number(n);
            chunks << stages.join(',');
        }
        QCOMPARE(chunks.join('|'), expected);
    }

    void offsetsMoveLayers() {
        auto p = partitionLayers(62, 4, 1, StageCounts{StageCounts::Flat{-1, 1, 1, -1}}, std::nullopt);
        QVERIFY(std::holds_alternative<std::string>(p));  // 62/4 = 15 base: 14+16+16+14 = 60, not 62
        p = partitionLayers(62, 4, 1, StageCounts{StageCounts::Flat{0, 1, 1, 0}}, std::nullopt);
        QCOMPARE(std::get<Partition>(p).layers.front(), (std::vector<std::int64_t>{15, 16, 16, 15}));
        p = partitionLayers(10, 2, 1, std::nullopt, StageCounts{StageCounts::Flat{3, 7}});
        QCOMPARE(std::get<Partition>(p).stageLayers(1), std::int64_t{7});
    }

    void jsonScenarioEqualsYaml() {
        const Scenario yaml = parseScenario(std::string(kBase) + "exec: {tp: 8, seq_length: 8192, global_batch_size: 32}\n",
                                            "t.yaml", Format::Yaml, "");
        const Scenario json = parseScenario(R"({"model": "llama3-8b", "cluster": {"device": "h100-sxm", "devices": 16},
            "exec": {"tp": 8, "seq_length": 8192, "global_batch_size": 32}})", "t.json", Format::Json, "");
        QVERIFY(yaml == json);
    }

    // Every problem of a file is reported in one pass, not just the first.
    void allProblemsAtOnce() {
        try {
            parseScenario("model: {preset: llama3-8b, hiden_size: 1}\nexec: {tp: eight, pp: 0}\ncluster: {device: h100-sxm, devices: 8}\n",
                          "t.yaml", Format::Yaml, "");
            QFAIL("loaded");
        } catch (const SpecError& e) {
            QCOMPARE(e.diagnostics().size(), std::size_t{3});
        }
    }
};

QTEST_APPLESS_MAIN(TestResolve)
#include "tst_resolve.moc"
