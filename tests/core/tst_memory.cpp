// The memory model against published figures: Korthikanti et al. 2022 per-layer
// activations to the byte, ZeRO model states exactly, Megatron-LM's theoretical
// memory explained term by term, and the schedules' in-flight micro-batches.
#include <QtTest>

#include "costhelpers.h"
#include "model/estimate.h"
#include "model/layercost.h"
#include "io/scenarioio.h"

using namespace tessera::core;
using tessera::testing::inputYaml;
using tessera::testing::resolveYaml;

namespace {

// GPT-3 175B (h 12288, a 96) at s 2048, b 1: the GPT layer of published.md §1.
std::string gpt3(int tp, bool sp) {
    return "model: gpt3-175b\ncluster: {device: a100-80gb, devices: " + std::to_string(tp) +
           "}\nexec: {tp: " + std::to_string(tp) + ", sequence_parallel: " + (sp ? "true" : "false") +
           ", flash_attention: false, seq_length: 2048, global_batch_size: 1}\n";
}

double keptPerLayer(const std::string& yaml, RecomputeClass cls) {
    const CostInput in = inputYaml(yaml);
    return layerCost(in, in.model.kinds.front(), cls, groupLinks(in.strategy, in.device.perNode)).kept;
}

const RecomputeClass kNone{RecomputeClass::None, kOpAll};
const RecomputeClass kFull{RecomputeClass::Full, kOpAll};
const RecomputeClass kSelective{RecomputeClass::Selective, selectiveRuleMask("megatron", false, false)};

}  // namespace

class TestMemory : public QObject {
    Q_OBJECT
private slots:
    // published.md §1: Korthikanti et al. 2022 (arXiv 2205.05198), Table 2.
    void korthikantiTable2_data() {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<int>("mode");  // 0 none, 1 selective, 2 full
        QTest::addColumn<double>("expected");
        const double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
        QTest::newRow("no parallelism: sbh(34 + 5as/h)") << 1 << false << 0 << sbh * (34 + 5 * a * s / h);
        QTest::newRow("tensor parallel: sbh(10 + 24/t + 5as/(ht))") << 8 << false << 0 << sbh * (10 + 24 / t + 5 * a * s / (h * t));
        QTest::newRow("tensor + sequence parallel: sbh(34/t + 5as/(ht))") << 8 << true << 0 << sbh * (34 / t + 5 * a * s / (h * t));
        QTest::newRow("tensor parallel + selective: sbh(10 + 24/t)") << 8 << false << 1 << sbh * (10 + 24 / t);
        QTest::newRow("tensor + sequence parallel + selective: sbh·34/t") << 8 << true << 1 << sbh * 34 / t;
        QTest::newRow("full recompute: 2sbh") << 8 << false << 2 << sbh * 2;
        QTest::newRow("full recompute with SP: 2sbh/t") << 8 << true << 2 << sbh * 2 / t;
    }
    void korthikantiTable2() {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(int, mode);
        QFETCH(double, expected);
        const RecomputeClass cls = mode == 0 ? kNone : mode == 1 ? kSelective : kFull;
        QCOMPARE(keptPerLayer(gpt3(tp, sp), cls), expected);
    }

    // Flash attention keeps no s x s tensor: selective recompute has nothing left to
    // drop, and the layer keeps Korthikanti's 34 sbh/t plus FlashAttention's fp32
    // log-sum-exp per head and token.
    void flashAttentionKeepsNoSquare() {
        std::string yaml = gpt3(8, true);
        yaml.replace(yaml.find("flash_attention: false"), 22, "flash_attention: true");
        const double s = 2048, h = 12288, a = 96, t = 8;
        QCOMPARE(keptPerLayer(yaml, kNone), s * h * 34 / t + 4 * s * a / t);
        QCOMPARE(keptPerLayer(yaml, kSelective), keptPerLayer(yaml, kNone));
    }

    // published.md §2: ZeRO (Rajbhandari et al. 2020), mixed-precision Adam, K = 12:
    // 16Ψ; ZeRO-1 4Ψ + 12Ψ/N; ZeRO-2 2Ψ + 14Ψ/N; ZeRO-3 16Ψ/N. Llama-3 8B on 64 ranks.
    void zeroStages_data() {
        QTest::addColumn<QString>("sharding");
        QTest::addColumn<qint64>("expected");
        const qint64 psi = 8030261248, n = 64;
        QTest::newRow("baseline 16Ψ") << "optimizer_parallel: false" << 16 * psi;
        QTest::newRow("ZeRO-1 4Ψ + 12Ψ/N") << "optimizer_parallel: true" << 4 * psi + 12 * psi / n;
        QTest::newRow("ZeRO-2 2Ψ + 14Ψ/N") << "optimizer_parallel: true, grad_shard: true" << 2 * psi + 14 * psi / n;
        QTest::newRow("ZeRO-3 16Ψ/N") << "optimizer_parallel: true, grad_shard_as_params: true" << 16 * psi / n;
    }
    void zeroStages() {
        QFETCH(QString, sharding);
        QFETCH(qint64, expected);
        Estimate e;
        evaluate(inputYaml("model: llama3-8b\ncluster: {device: a100-80gb, devices: 64}\n"
                           "exec: {grad_bytes: 2, seq_length: 2048, global_batch_size: 64, " + sharding.toStdString() + "}\n"),
                 &e);
        const StageMemory& m = e.stages.front().memory;
        QCOMPARE(qint64(m.parameters + m.gradients + m.optimizerStates + m.mainParameters), expected);
    }

    // published.md §3: Megatron-LM theoretical_memory_usage.py, first stage.
    // Llama-3 8B, TP 2, PP 1, DP 4, distributed optimizer: 4,015,263,744 parameters on
    // the device (Tessera counts RMSNorm weights replicated on each TP rank, Megatron
    // LayerNorm weight and bias split over TP: at TP 2 the two agree), 9 bytes each
    // (6 + 12/DP).
    void megatronLlama3_8b() {
        Estimate e;
        evaluate(inputYaml("model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
                           "exec: {tp: 2, dp: 4, sequence_parallel: true, flash_attention: false, seq_length: 8192,\n"
                           "  micro_batch_size: 1, micro_batch_num: 1, optimizer_parallel: true,\n"
                           "  recompute: [{first: 0, option: selective}]}\n"),
                 &e);
        const StageEstimate& st = e.stages.front();
        QCOMPARE(qint64(st.parameters), qint64(4015263744));
        QCOMPARE(qint64(st.memory.parameters + st.memory.gradients + st.memory.optimizerStates + st.memory.mainParameters),
                 qint64(36137373696));
        // Activations: Megatron prices sbh(18 + 4f/h)/t per layer = 32 sbh/t at f = 3.5h,
        // for an MHA layer with dropout and a two-matrix activation input. Llama differs by
        // +7 (SwiGLU keeps gate and up outputs: 2f, not f), -4(1 - g/a) = -3 (GQA: K and V are
        // g/a = 1/4 of Q's size each, not Q's size), -2 (no dropout, no masks): 34 sbh/t.
        const double s = 8192, h = 4096, t = 2, V = 128256, sbh = s * h;
        const double megatronLayers = 32 * sbh / t * 32;
        QCOMPARE(megatronLayers + 4 * sbh / t * (1 + V / h) + sbh / t + 8 * s / t, 19365134336.0);
        const double tesseraLayers = megatronLayers + 32 * (7 - 4 * (1 - 8.0 / 32) - 2) * sbh / t;
        // The output: Megatron 4 bytes per sbh/t and per sbV/t (fp32 logits); Tessera keeps
        // the final norm's and the output matmul's inputs (2 + 2 bytes per sbh/t) and the
        // logits in bf16 beside the loss's fp32 copy (6 bytes per sbV/t).
        const double tesseraOutput = 4 * sbh / t + 6 * s * V / t;
        // The embedding: Megatron a dropout mask (sbh/t) and token ids over TP (8s/t);
        // Llama has no dropout, and Tessera keeps the ids whole (8s).
        const double tesseraEmbedding = 8 * s;
        QCOMPARE(double(st.memory.activations), tesseraLayers + tesseraOutput + tesseraEmbedding);
    }

    // Llama-2 70B, vocab padded to 32768, TP 8, PP 4, DP 2, seq 4096, 1F1B first stage.
    void megatronLlama2_70b_data() {
        QTest::addColumn<bool>("distributed");
        QTest::addColumn<qint64>("weightsAndOptimizer");
        QTest::newRow("distributed optimizer off (18 bytes)") << false << qint64(39113625600);
        QTest::newRow("distributed optimizer on (6 + 12/2 bytes)") << true << qint64(26075750400);
    }
    void megatronLlama2_70b() {
        QFETCH(bool, distributed);
        QFETCH(qint64, weightsAndOptimizer);
        Estimate e;
        evaluate(inputYaml(std::string("model: llama2-70b\ncluster: {device: h100-sxm, devices: 64}\n"
                                       "exec: {tp: 8, pp: 4, dp: 2, sequence_parallel: true, flash_attention: false,\n"
                                       "  seq_length: 4096, micro_batch_size: 1, micro_batch_num: 64, optimizer_parallel: ") +
                           (distributed ? "true" : "false") + ",\n  recompute: [{first: 0, option: selective}]}\n"),
                 &e);
        const StageEstimate& st = e.stages.front();
        // Megatron's 2,172,979,200 holds 2,048 more: the final norm (2h over TP), which its
        // count places on the first stage and Tessera on the last, where it runs.
        const qint64 megatronParams = 2172979200, finalNorm = 2 * 8192 / 8;
        QCOMPARE(qint64(st.parameters), megatronParams - finalNorm);
        const qint64 bytesPerParam = weightsAndOptimizer / megatronParams;
        QCOMPARE(qint64(st.memory.parameters + st.memory.gradients + st.memory.optimizerStates + st.memory.mainParameters),
                 bytesPerParam * (megatronParams - finalNorm));
        // Activations: 20 layers x 4 micro-batches in flight; per layer as above, +7 - 4(1 - g/a)
        // - 2 sbh/t with g/a = 8/64; Megatron's embedding dropout mask (sbh/t · p) and ids (8s/t · p)
        // against Tessera's ids (8s · p).
        const double s = 4096, h = 8192, t = 8, p = 4, sbh = s * h;
        const double megatron = 10754211840.0, megatronEmbedding = sbh / t * p + 8 * s / t * p;
        const double tessera = megatron - megatronEmbedding + 20 * p * (7 - 4 * (1 - 8.0 / 64) - 2) * sbh / t + 8 * s * p;
        QCOMPARE(double(st.memory.activations), tessera);
        QCOMPARE(st.inFlightMicroBatches, std::int64_t{4});
    }

    // published.md §1: under 1F1B the first stage holds p micro-batches of L/p layers;
    // with v interleaved chunks L(1 + (p-1)/(pv)) layers' worth.
    void inFlightLayersWorth_data() {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<double>("layersWorth");
        const double L = 32;
        QTest::newRow("1f1b p4") << 4 << 1 << L;
        QTest::newRow("interleaved p4 v2") << 4 << 2 << L * (1 + 3.0 / 8);
        QTest::newRow("interleaved p4 v4") << 4 << 4 << L * (1 + 3.0 / 16);
        QTest::newRow("interleaved p8 v2") << 8 << 2 << L * (1 + 7.0 / 16);
    }
    void inFlightLayersWorth() {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(double, layersWorth);
        const std::string yaml = "model: llama3-8b\ncluster: {device: h100-sxm, devices: " + std::to_string(pp) +
                                 "}\nexec: {pp: " + std::to_string(pp) + ", vpp: " + std::to_string(vpp) +
                                 ", pp_schedule: " + (vpp > 1 ? "interleaved" : "1f1b") +
                                 ", seq_length: 4096, micro_batch_size: 1, micro_batch_num: 64}\n";
        const CostInput in = inputYaml(yaml);
        Estimate e;
        evaluate(in, &e);
        const double perLayer = layerCost(in, in.model.kinds.front(), kNone, groupLinks(in.strategy, 8)).kept;
        const double embedding = 8.0 * 4096 * double(e.stages.front().inFlightPerChunk.front());
        QCOMPARE(double(e.stages.front().memory.activations) - embedding, layersWorth * perLayer);
    }

    void fitsComparesWithTheDevice() {
        Estimate e;
        evaluate(inputYaml("model: llama3-70b\ncluster: {device: h100-sxm, devices: 8}\n"
                           "exec: {tp: 8, seq_length: 8192, global_batch_size: 8}\n"),
                 &e);
        QVERIFY(!e.fits);  // 70B of bf16 weights, fp32 grads and Adam on 8 GPUs: far over 80 GiB
        QVERIFY(e.peakMemory > 80 * GiB);
        Estimate small;
        evaluate(inputYaml("model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
                           "exec: {tp: 8, seq_length: 4096, global_batch_size: 8}\n"),
                 &small);
        QVERIFY(small.fits);
    }

    // The seed keeps a 1 GiB safety buffer on every stage (HyperParallel backbone,
    // reference §4.1.2): Tessera's run default, its own term, counted in "fits"; a run
    // may state another amount, or 0.
    void reserveIsATermOfItsOwn() {
        auto priced = [](std::optional<Bytes> reserve) {
            Scenario s = presetScenario("llama3-70b-h100x64");  // 46.8 GiB of 80 on its peak stage
            s.exec.memory_reserve = reserve;
            Estimate e;
            evaluate(costInput(resolve(s)), &e);
            return e;
        };
        const Estimate seed = priced(std::nullopt), none = priced(0), big = priced(40 * GiB);
        QCOMPARE(seed.stages.size(), std::size_t(4));
        for (std::size_t s = 0; s < seed.stages.size(); ++s) {
            QCOMPARE(seed.stages[s].memory.reserve, GiB);
            QCOMPARE(none.stages[s].memory.reserve, Bytes(0));
            QCOMPARE(seed.stages[s].memory.total() - none.stages[s].memory.total(), GiB);
        }
        QCOMPARE(seed.peakMemory - none.peakMemory, GiB);
        QVERIFY(seed.fits && none.fits);
        QVERIFY(!big.fits);  // what fits is what is held plus what is kept free
        QVERIFY(big.peakMemory - 40 * GiB <= big.deviceMemory);
        try {
            resolveYaml("model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
                        "exec: {seq_length: 4096, global_batch_size: 8, memory_reserve: -1}\n");
            QFAIL("a negative reserve was accepted");
        } catch (const SpecError& e) {
            QVERIFY(QString(e.what()).contains("exec.memory_reserve: expected an amount of memory"));
        }
    }
};

QTEST_APPLESS_MAIN(TestMemory)
#include "tst_memory.moc"
