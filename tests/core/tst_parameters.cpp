// Parameter counts, exact to the parameter, for every preset architecture.
#include <QtTest>

#include "io/presets.h"
#include "io/scenarioio.h"
#include "model/parameters.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

ModelSpec presetModel(const QString& id) {
    Diagnostics d;
    const ModelSpec stated = modelFromValue(*loadPreset(PresetKind::Model, id.toStdString()), "model", d);
    d.raiseIfAny();
    return resolveModel(stated);
}

}  // namespace

class TestParameters : public QObject {
    Q_OBJECT
private slots:
    // Totals without MTP modules, as model totals are quoted.
    void totals_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("expected");
        // published.md §3 (facts of the architectures).
        QTest::newRow("Llama-2 70B, published.md §3") << "llama2-70b" << qint64(68976648192);
        QTest::newRow("Llama-3 8B, published.md §3") << "llama3-8b" << qint64(8030261248);
        // Hugging Face Hub safetensors totals of the official checkpoints.
        QTest::newRow("Llama-2 7B, HF meta-llama/Llama-2-7b-hf") << "llama2-7b" << qint64(6738415616);
        QTest::newRow("Llama-2 13B, HF meta-llama/Llama-2-13b-hf") << "llama2-13b" << qint64(13015864320);
        QTest::newRow("Llama-3 70B, HF meta-llama/Meta-Llama-3-70B") << "llama3-70b" << qint64(70553706496);
        QTest::newRow("Llama-3.1 405B, HF meta-llama/Llama-3.1-405B") << "llama3-405b" << qint64(405853388800);
        QTest::newRow("Mixtral 8x7B, HF mistralai/Mixtral-8x7B-v0.1") << "mixtral-8x7b" << qint64(46702792704);
        QTest::newRow("Mixtral 8x22B, HF mistralai/Mixtral-8x22B-v0.1") << "mixtral-8x22b" << qint64(140620634112);
        QTest::newRow("Qwen2.5 72B, HF Qwen/Qwen2.5-72B") << "qwen2.5-72b" << qint64(72706203648);
        QTest::newRow("Qwen3 32B, HF Qwen/Qwen3-32B") << "qwen3-32b" << qint64(32762123264);
        QTest::newRow("Qwen3 235B-A22B, HF Qwen/Qwen3-235B-A22B") << "qwen3-235b-a22b" << qint64(235093634560);
        // DeepSeek-V3 report: 671B main-model parameters (its HF card adds 14B of MTP module).
        QTest::newRow("DeepSeek-V3 main model, HF deepseek-ai/DeepSeek-V3") << "deepseek-v3" << qint64(671026419200);
    }
    void totals() {
        QFETCH(QString, preset);
        QFETCH(qint64, expected);
        const ParameterCount c = countParameters(presetModel(preset));
        QCOMPARE(qint64(c.body()), expected);
    }

    // GPT-3: Narayanan et al. 2021 §5.1 count P = 12·l·h²·(1 + 13/(12h) + (V+s)/(12lh)),
    // which leaves out the final LayerNorm (2h).
    void gpt3MatchesTheClosedForm() {
        const ModelSpec m = presetModel("gpt3-175b");
        const qint64 l = 96, h = 12288, V = 50257, s = 2048;
        const qint64 formula = 12 * l * h * h + 13 * l * h + (V + s) * h;
        QCOMPARE(qint64(countParameters(m).total()), formula + 2 * h);
        QCOMPARE(qint64(countParameters(m).output), qint64(0));  // tied
    }

    // reference/hyperparallel.md §4.5.2 (UT test_estimate.py): DeepSeek-V3 MLA
    // weights 187,105,280; with the two latent norms 187,107,328.
    void deepseekMla() {
        const ModelSpec m = presetModel("deepseek-v3");
        const std::vector<LayerKind> stack = layerStack(m);
        QCOMPARE(stack.size(), std::size_t{62});
        QVERIFY(!stack[2].moe && stack[3].moe && stack[61].mtp && stack[61].moe);
        QCOMPARE(qint64(layerParameters(m, stack[0]).attention), qint64(187107328));
    }

    // Active parameters against the vendors' round figures (stated tolerance 1 %).
    void active_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("expected");
        QTest::newRow("DeepSeek-V3: 37B activated (report abstract)") << "deepseek-v3" << 37.0e9;
        QTest::newRow("Mixtral 8x7B: 12.9B active (Mistral AI, Dec 2023)") << "mixtral-8x7b" << 12.9e9;
        QTest::newRow("Mixtral 8x22B: 39B active (Mistral AI, Apr 2024)") << "mixtral-8x22b" << 39.0e9;
        QTest::newRow("Qwen3-235B-A22B: 22B activated (model card)") << "qwen3-235b-a22b" << 22.0e9;
    }
    void active() {
        QFETCH(QString, preset);
        QFETCH(double, expected);
        const double active = double(countParameters(presetModel(preset)).active);
        QVERIFY2(std::abs(active / expected - 1) < 0.02, qPrintable(QString::number(active, 'g', 12)));
    }

    // The layer kinds and the tables add up to the total; the kinds cover the stack.
    void kindsSumToTotal_data() {
        QTest::addColumn<QString>("preset");
        for (const std::string& id : presetIds(PresetKind::Model)) QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void kindsSumToTotal() {
        QFETCH(QString, preset);
        const ModelSpec m = presetModel(preset);
        const ParameterCount c = countParameters(m);
        const std::int64_t finalNorm = (*m.norm == "layernorm" ? 2 : 1) * *m.hidden_size;
        std::int64_t layers = 0, sum = c.embedding + c.positions + c.output + finalNorm;
        for (const KindCount& k : c.byLayerKind) {
            layers += k.layers;
            sum += k.layers * k.perLayer;
        }
        QCOMPARE(qint64(sum), qint64(c.total()));
        QCOMPARE(qint64(layers), qint64(*m.num_hidden_layers + m.mtp_depth.value_or(0)));
    }

    // Each architectural switch moves the count by exactly what it adds.
    void switches() {
        ModelSpec m = presetModel("llama3-8b");
        const std::int64_t base = countParameters(m).total(), h = 4096, L = 32, f = 14336, V = 128256;
        ModelSpec tied = m;
        tied.tie_word_embeddings = true;
        QCOMPARE(countParameters(tied).total(), base - V * h);
        ModelSpec biased = m;
        biased.attention_bias = true;
        biased.attention_out_bias = false;
        QCOMPARE(countParameters(biased).total(), base + L * (4096 + 2 * 1024));
        ModelSpec mlpBias = m;
        mlpBias.mlp_bias = true;
        QCOMPARE(countParameters(mlpBias).total(), base + L * (2 * f + h));
        ModelSpec layerNorm = m;
        layerNorm.norm = "layernorm";
        QCOMPARE(countParameters(layerNorm).total(), base + (2 * L + 1) * h);
        ModelSpec qkNorm = m;
        qkNorm.qk_norm = true;
        QCOMPARE(countParameters(qkNorm).total(), base + L * 2 * 128);
        ModelSpec learned = m;
        learned.position_embedding = "learned";
        QCOMPARE(countParameters(learned).total(), base + 8192 * h);
    }
};

QTEST_APPLESS_MAIN(TestParameters)
#include "tst_parameters.moc"
