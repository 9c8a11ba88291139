// Hugging Face config.json import: aliases, text towers of VL models, MoE, MLA
// and MTP fields; positions of bad values inside config.json; scenarios that
// point at a config.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "io/hfimport.h"
#include "io/scenarioio.h"
#include "model/parameters.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

const std::string kData = TESSERA_TEST_DATA;

ModelSpec importFile(const std::string& name) {
    Diagnostics d;
    const Value section = importHfConfig(loadDocument(kData + "/hf/" + name), d);
    const ModelSpec stated = modelFromValue(section, "model", d);
    d.raiseIfAny();
    return stated;
}

QString importError(const std::string& json) {
    try {
        Diagnostics d;
        const Value section = importHfConfig(parseDocument(json, "config.json", Format::Json), d);
        const ModelSpec stated = modelFromValue(section, "model", d);
        d.raiseIfAny();
        resolveModel(stated);
    } catch (const SpecError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestHfImport : public QObject {
    Q_OBJECT
private slots:
    void configs_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("arch");
        QTest::addColumn<qint64>("withoutMtp");
        QTest::addColumn<qint64>("experts");
        QTest::addColumn<double>("tolerance");  // 0: exact
        // Totals: the same published figures as tst_parameters (published.md §3, HF safetensors).
        QTest::newRow("Llama-3 8B") << "llama3-8b.json" << "llama" << qint64(8030261248) << qint64(1) << 0.0;
        QTest::newRow("Mixtral 8x7B (num_local_experts)") << "mixtral-8x7b.json" << "mixtral" << qint64(46702792704) << qint64(8) << 0.0;
        QTest::newRow("DeepSeek-V3 (n_routed_experts, MLA, MTP)") << "deepseek-v3.json" << "deepseek" << qint64(671026419200) << qint64(256) << 0.0;
        // HF Qwen/Qwen3-30B-A3B: 30,532,122,624 parameters (safetensors).
        QTest::newRow("Qwen3-30B-A3B (qwen3_moe)") << "qwen3-30b-a3b.json" << "qwen3" << qint64(30532122624) << qint64(128) << 0.0;
        // HF Qwen/Qwen2-57B-A14B: "57.4B" on its model card (rounded, so a stated 0.1 % tolerance).
        QTest::newRow("Qwen2-57B-A14B (one wide shared expert)") << "qwen2-57b-a14b.json" << "qwen" << qint64(57400000000) << qint64(64) << 1e-3;
    }
    void configs() {
        QFETCH(QString, file);
        QFETCH(QString, arch);
        QFETCH(qint64, withoutMtp);
        QFETCH(qint64, experts);
        QFETCH(double, tolerance);
        const ModelSpec stated = importFile(file.toStdString());
        QCOMPARE(QString::fromStdString(*stated.arch), arch);
        const ModelSpec m = resolveModel(stated);
        QCOMPARE(qint64(m.num_experts.value_or(1)), experts);
        const qint64 counted = countParameters(m).body();
        if (tolerance == 0) QCOMPARE(counted, withoutMtp);
        else QVERIFY2(std::abs(double(counted) / double(withoutMtp) - 1) < tolerance, qPrintable(QString::number(counted)));
    }

    void deepseekFields() {
        const ModelSpec m = importFile("deepseek-v3.json");
        QCOMPARE(*m.mtp_depth, std::int64_t{1});           // num_nextn_predict_layers
        QCOMPARE(*m.num_shared_experts, std::int64_t{1});  // n_shared_experts
        QCOMPARE(*m.kv_lora_rank, std::int64_t{512});
        QCOMPARE(*m.q_lora_rank, std::int64_t{1536});
        QCOMPARE(*m.first_k_dense_replace, std::int64_t{3});
    }

    void qwen2MoeSharedExpert() {
        const ModelSpec m = importFile("qwen2-57b-a14b.json");
        QCOMPARE(*m.num_shared_experts, std::int64_t{1});
        QCOMPARE(*m.shared_expert_intermediate_size, std::int64_t{20480});
        QVERIFY(*resolveModel(m).shared_expert_gate);  // family qwen
    }

    void visionLanguageTextTower() {
        const ModelSpec m = importFile("vl-text-config.json");
        QVERIFY(m.hidden_size.has_value() && m.num_hidden_layers.has_value());
        QCOMPARE(*m.arch, std::string("qwen"));
        resolveModel(m);
    }

    void badValueIsReportedInTheConfig() {
        const QString error = importError("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": \"big\",\n"
                                          "  \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 10}");
        QVERIFY2(error.contains("config.json:3:18: model.hidden_size: expected a whole number of at least 1, got \"big\""),
                 qPrintable(error));
    }

    void unknownModelType() {
        const QString error = importError(R"({"model_type": "rwkv", "hidden_size": 8})");
        QVERIFY2(error.contains("cannot tell the architecture family of model_type \"rwkv\""), qPrintable(error));
    }

    void interleavedDenseLayersAreRefused() {
        const QString error = importError(R"({"model_type": "qwen2_moe", "hidden_size": 8, "num_hidden_layers": 4,
            "num_attention_heads": 2, "vocab_size": 10, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 8, "mlp_only_layers": [1, 3], "tie_word_embeddings": false})");
        QVERIFY2(error.contains("not a leading run"), qPrintable(error));
    }

    void sparseStepIsRefused() {
        const QString error = importError(R"({"model_type": "qwen2_moe", "hidden_size": 8, "num_hidden_layers": 4,
            "num_attention_heads": 2, "vocab_size": 10, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 8, "decoder_sparse_step": 2, "tie_word_embeddings": false})");
        QVERIFY2(error.contains("config.json:3:64: decoder_sparse_step: MoE every 2 layers"), qPrintable(error));
    }

    void missingSizeIsRefusedByName() {
        const QString error = importError(R"({"model_type": "llama", "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 10})");
        QVERIFY2(error.contains("model.num_hidden_layers: required"), qPrintable(error));
    }

    // A scenario may name a config.json; a relative path is relative to the scenario.
    void scenarioReferencesAConfig() {
        QTemporaryDir dir;
        QFile::copy(QString::fromStdString(kData + "/hf/llama3-8b.json"), dir.filePath("config.json"));
        std::ofstream(dir.filePath("run.yaml").toStdString())
            << "model: {file: config.json, num_hidden_layers: 16}\n"
               "exec: {tp: 2, seq_length: 8192, global_batch_size: 64}\n"
               "cluster: {device: a100-80gb, devices: 8}\n";
        const ResolvedScenario r = resolve(loadScenario(dir.filePath("run.yaml").toStdString()));
        QCOMPARE(*r.scenario.model.num_hidden_layers, std::int64_t{16});  // the override wins
        QCOMPARE(*r.scenario.model.vocab_size, std::int64_t{128256});
        QCOMPARE(*r.scenario.exec.dp, std::int64_t{4});
    }
};

QTEST_APPLESS_MAIN(TestHfImport)
#include "tst_hfimport.moc"
