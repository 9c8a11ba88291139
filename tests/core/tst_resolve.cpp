// resolve(): what is filled, from where, and the derivations between fields.
#include <QtTest>

#include <cstring>

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

    // The expert TP degree in two spellings (resolve/expertgrid.h): Megatron's expert_tp,
    // the degree, and the seed's etp, where at most 1 means tp. One stated fills the other
    // where the other can say it; unstated, the experts run at tp. Mixtral 8x7B on 16
    // devices; `etp` -1: left unstated (etp cannot say 1 beside tp > 1).
    void expertTpIsFilled_data() {
        QTest::addColumn<QString>("exec");
        QTest::addColumn<qint64>("expertTp");
        QTest::addColumn<qint64>("etp");
        QTest::addColumn<QString>("filled");  // the filled field and what show writes beside it
        QTest::newRow("neither: tp") << "tp: 2" << qint64(2) << qint64(-1)
                                     << "exec.expert_tp=default: tp: Megatron-LM runs the experts at --tensor-model-parallel-size";
        QTest::newRow("etp 0: tp") << "tp: 2, etp: 0" << qint64(2) << qint64(0)
                                   << "exec.expert_tp=derived: etp 0: at most 1 runs the experts at tp (the seed's rule)";
        QTest::newRow("etp 1: tp") << "tp: 4, etp: 1, ep: 4" << qint64(4) << qint64(1)
                                   << "exec.expert_tp=derived: etp 1: at most 1 runs the experts at tp (the seed's rule)";
        QTest::newRow("etp 4") << "tp: 2, etp: 4, ep: 2" << qint64(4) << qint64(4) << "exec.expert_tp=derived: etp";
        QTest::newRow("expert_tp 4") << "tp: 2, expert_tp: 4, ep: 2, sequence_parallel: true" << qint64(4) << qint64(4)
                                     << "exec.etp=derived: expert_tp, in the seed's spelling";
        QTest::newRow("expert_tp 1 at tp 1") << "expert_tp: 1, ep: 8" << qint64(1) << qint64(1)
                                             << "exec.etp=derived: expert_tp, in the seed's spelling";
        QTest::newRow("expert_tp 1 beside tp 2") << "tp: 2, expert_tp: 1, ep: 8, sequence_parallel: true" << qint64(1)
                                                 << qint64(-1) << "";
        QTest::newRow("both, agreeing") << "tp: 2, etp: 1, expert_tp: 2" << qint64(2) << qint64(1) << "";
    }
    void expertTpIsFilled() {
        QFETCH(QString, exec);
        QFETCH(qint64, expertTp);
        QFETCH(qint64, etp);
        QFETCH(QString, filled);
        const ResolvedScenario r = resolveText("model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\nexec: {" +
                                               exec.toStdString() + ", seq_length: 4096, global_batch_size: 64}\n");
        const ExecSpec& e = r.scenario.exec;
        QCOMPARE(qint64(*e.expert_tp), expertTp);
        QCOMPARE(qint64(e.etp.value_or(-1)), etp);
        QCOMPARE(qint64(tessera::core::expertTp(e)), expertTp);
        int fills = 0;
        for (const char* key : {"exec.expert_tp", "exec.etp"})
            if (const auto it = r.filled.find(key); it != r.filled.end()) {
                ++fills;
                QVERIFY2(filled.startsWith(QString(key) + "=") &&
                             QString::fromStdString(it->second.text()).startsWith(filled.mid(int(std::strlen(key)) + 1)),
                         qPrintable(QString(key) + " " + QString::fromStdString(it->second.text())));
            }
        QCOMPARE(fills, filled.isEmpty() ? 0 : 1);
        // The grid folds over dp·tp·cp: its expert dp is what ep·expert_tp leaves.
        const std::optional<ExpertGrid> grid = expertGrid(*e.tp, *e.cp, *e.dp, *e.ep, expertTp);
        QVERIFY(grid);
        QCOMPARE(grid->dp, *e.tp * *e.cp * *e.dp / (*e.ep * expertTp));
    }

    // Refused by name: the two spellings disagreeing, a grid that does not fold, a width
    // the degree does not divide, expert_tp on a dense model.
    void expertTpIsRefused_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("message");
        const QString mixtral = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
                                "exec: {seq_length: 4096, global_batch_size: 64, ";
        QTest::newRow("etp 0 says tp, expert_tp 1") << mixtral + "tp: 2, etp: 0, expert_tp: 1}"
            << "exec.expert_tp: states 1 expert tensor-parallel ranks, but etp: 0 (at most 1: the dense tp, the seed's "
               "rule) states 2; state one of expert_tp and etp";
        QTest::newRow("etp 4, expert_tp 2") << mixtral + "tp: 2, etp: 4, expert_tp: 2, ep: 2}"
            << "exec.expert_tp: states 2 expert tensor-parallel ranks, but etp: 4 states 4; state one of expert_tp and etp";
        QTest::newRow("expert_tp grid does not fold") << mixtral + "tp: 2, expert_tp: 4, ep: 8}"
            << "exec.expert_tp: ep · expert tensor parallelism = 8·4 = 32 ranks must divide dp·tp·cp = 16, the ranks the "
               "expert grid folds over";
        QTest::newRow("seed rule does not fold: expert_tp named") << mixtral + "tp: 4, cp: 2, ep: 8}"
            << "exec.ep: ep · expert tensor parallelism = 8·4 = 32 ranks must divide dp·tp·cp = 16, the ranks the expert "
               "grid folds over (experts run at tp; expert_tp: 1, Megatron-LM's --expert-tensor-parallel-size 1, keeps "
               "them whole)";
        QTest::newRow("expert_tp not dividing the width")
            << "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 24}\n"
               "exec: {seq_length: 4096, global_batch_size: 48, expert_tp: 3}"
            << "exec.expert_tp: expert tensor parallelism (3) must divide moe_intermediate_size (14336)";
        QTest::newRow("expert_tp on a dense model") << QString(kBase) + "exec: {seq_length: 4096, global_batch_size: 64, expert_tp: 1}"
                                                    << "exec.expert_tp: applies to mixture-of-experts models only";
    }
    void expertTpIsRefused() {
        QFETCH(QString, yaml);
        QFETCH(QString, message);
        try {
            resolveText(yaml.toStdString() + "\n");
            QFAIL("resolved");
        } catch (const SpecError& e) {
            QCOMPARE(e.diagnostics().size(), std::size_t{1});  // one mistake, one message
            QCOMPARE(QString::fromStdString(e.diagnostics().front().path + ": " + e.diagnostics().front().message), message);
        }
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
