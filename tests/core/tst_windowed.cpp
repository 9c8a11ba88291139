// Windowed attention (issue 16): sliding-window layers (gpt-oss, Gemma 2/3, Mistral)
// and chunked layers (Llama 4) attend to fewer keys than a full causal layer. Under
// flash attention their core FLOPs are the (query, key) pairs of the span, counted
// here by hand; the unfused core computes the whole masked square and stores it, so
// it prices like a full layer. Attention sinks add one logit per head.
#include <QtTest>

#include "costhelpers.h"
#include "model/estimate.h"
#include "model/layercost.h"
#include "model/parameters.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

// A one-layer-kind model: every layer `kind`, with `extra` model keys.
std::string scenario(const std::string& kind, const std::string& extra, bool flash) {
    std::string types = "[";
    for (int i = 0; i < 4; ++i) types += std::string(i ? ", " : "") + kind;
    types += "]";
    return "model: {arch: llama, hidden_size: 4096, num_hidden_layers: 4, num_attention_heads: 32, num_key_value_heads: 8,\n"
           "        intermediate_size: 14336, vocab_size: 32000, layer_types: " + types + extra + "}\n"
           "cluster: {device: h100-sxm, devices: 8}\n"
           "exec: {tp: 8, seq_length: 8192, micro_batch_size: 1, global_batch_size: 8, flash_attention: " +
           (flash ? "true" : "false") + "}\n";
}

}  // namespace

class TestWindowed : public QObject {
    Q_OBJECT
private slots:
    // Keys per query, doubled (the causal square's s²/2 pairs are s per query).
    void attendedKeys_data() {
        QTest::addColumn<int>("span");
        QTest::addColumn<double>("seq");
        QTest::addColumn<double>("expected");
        // s = 8192, w = 4096: the first w queries see 1..w keys (w²/2 pairs), the other s - w see w each.
        QTest::newRow("sliding w = s/2") << int(AttentionSpan::Sliding) << 8192.0 << 2 * (4096.0 * 4096 / 2 + 4096.0 * 4096) / 8192;
        QTest::newRow("sliding w >= s: full") << int(AttentionSpan::Sliding) << 2048.0 << 2048.0;
        // chunks of 2048 in 8192: four causal squares of 2048.
        QTest::newRow("chunked c = s/4") << int(AttentionSpan::Chunked) << 8192.0 << 2 * (4 * 2048.0 * 2048 / 2) / 8192;
        // 5000 = 2048 + 2048 + 904: two whole chunks and a causal 904-square.
        QTest::newRow("chunked, a partial chunk") << int(AttentionSpan::Chunked) << 5000.0 << 2 * (2 * 2048.0 * 2048 / 2 + 904.0 * 904 / 2) / 5000;
        QTest::newRow("full") << int(AttentionSpan::Full) << 8192.0 << 8192.0;
    }
    void attendedKeys() {
        QFETCH(int, span);
        QFETCH(double, seq);
        QFETCH(double, expected);
        ModelShape m;
        m.window = 4096;
        m.chunk = 2048;
        QCOMPARE(tessera::core::attendedKeys(m, AttentionSpan(span), seq), expected);
    }

    // Under flash, a sliding layer's model FLOPs drop by exactly the core's share of the
    // pairs it skips; the memory it keeps is the full layer's (flash keeps no s x s tensor).
    void slidingLayersUnderFlash() {
        const Estimate full = estimateOfYaml(scenario("full_attention", "", true));
        const Estimate sliding = estimateOfYaml(scenario("sliding_attention", ", sliding_window: 2048", true));
        const double B = 8, s = 8192, l = 4, a = 32, dh = 128, w = 2048;
        // Forward + backward = 3x the forward core: 4·B·keys·s·a·dh·l, keys as above.
        const double keysFull = s, keysSliding = 2 * (w * w / 2 + (s - w) * w) / s;
        const double skipped = 3 * 2 * B * s * (keysFull - keysSliding) * a * dh * l;
        QVERIFY(skipped > 0);
        QCOMPARE(full.modelFlopsPerStep - sliding.modelFlopsPerStep, skipped);
        QVERIFY(sliding.stepSeconds < full.stepSeconds);
        QCOMPARE(sliding.peakMemory, full.peakMemory);
    }

    // The unfused core stores and computes the masked square: priced like a full layer.
    void slidingLayersUnfused() {
        const Estimate full = estimateOfYaml(scenario("full_attention", "", false));
        const Estimate sliding = estimateOfYaml(scenario("sliding_attention", ", sliding_window: 2048", false));
        QCOMPARE(sliding.stepSeconds, full.stepSeconds);
        QCOMPARE(sliding.peakMemory, full.peakMemory);
    }

    void chunkedLayersUnderFlash() {
        const Estimate full = estimateOfYaml(scenario("full_attention", "", true));
        const Estimate chunked = estimateOfYaml(scenario("chunked_attention", ", attention_chunk_size: 2048", true));
        const double B = 8, s = 8192, l = 4, a = 32, dh = 128, c = 2048;
        const double skipped = 3 * 2 * B * s * (s - c) * a * dh * l;  // keys per query: s full, c chunked (s/c whole chunks)
        QCOMPARE(full.modelFlopsPerStep - chunked.modelFlopsPerStep, skipped);
    }

    // gpt-oss's sinks: one learned logit per head and layer.
    void sinksAddAHeadsWorthOfParameters() {
        const ResolvedScenario plain = resolveYaml(scenario("full_attention", "", true));
        const ResolvedScenario sinks = resolveYaml(scenario("full_attention", ", attention_sinks: true", true));
        QCOMPARE(countParameters(sinks.scenario.model).total() - countParameters(plain.scenario.model).total(), std::int64_t{4 * 32});
    }
};

QTEST_APPLESS_MAIN(TestWindowed)
#include "tst_windowed.moc"
