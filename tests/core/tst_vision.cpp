// Vision towers (issue 16): Qwen2.5-VL's ViT priced on the first stage - its
// parameters, the FLOPs of its blocks over the patches (attention both ways), the
// patch embedding and merger - and nowhere else; exec.visual_seq_len refused where it
// means nothing.
#include <QtTest>
#include <nlohmann/json.hpp>

#include "costhelpers.h"
#include "model/estimate.h"
#include "model/parameters.h"
#include "plan/planner.h"
#include "report/estimatereport.h"
#include "trainyaml/trainyaml.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

const std::string kData = TESSERA_TEST_DATA;

// Qwen2.5-VL-7B's config; `vision` false drops its tower (the text model alone).
std::string scenario(bool vision, const std::string& exec) {
    std::string model = "model: {file: " + kData + "/hf/qwen2.5-vl-7b.json";
    if (!vision)
        model = "model: {arch: qwen, hidden_size: 3584, num_hidden_layers: 28, num_attention_heads: 28, num_key_value_heads: 4, "
                "intermediate_size: 18944, vocab_size: 152064, tie_word_embeddings: false, max_position_embeddings: 128000";
    return model + "}\ncluster: {device: h100-sxm, devices: 8}\nexec: {seq_length: 4096, global_batch_size: 16, " +
           (vision ? "visual_seq_len: 1024, " : "") + exec + "}\n";
}

}  // namespace

class TestVision : public QObject {
    Q_OBJECT
private slots:
    // The first stage holds the tower; the others are the text model's alone.
    void firstStageOnly() {
        const Estimate vl = estimateOfYaml(scenario(true, "pp: 2, tp: 2"));
        const Estimate text = estimateOfYaml(scenario(false, "pp: 2, tp: 2"));
        QCOMPARE(vl.stages.size(), std::size_t{2});
        QVERIFY(vl.stages[0].memory.total() > text.stages[0].memory.total());
        QVERIFY(vl.stages[0].time.forward > text.stages[0].time.forward);
        QCOMPARE(vl.stages[1].memory.total(), text.stages[1].memory.total());
        QCOMPARE(vl.stages[1].time.forward, text.stages[1].time.forward);
        // Parameters on one device of stage 0: the blocks and merger split over TP, the patch
        // embedding whole (676,550,144 in all: 1,505,280 embedding, 32 × 19,702,200, 44,574,464 merger);
        // of a block, its two norms and the biases of its row-parallel outputs (5,120) whole too.
        const double tower = 32.0 * ((19702200 - 5120) / 2.0 + 5120) + 1505280 + 44574464.0 / 2;
        QCOMPARE(vl.stages[0].parameters - text.stages[0].parameters, tower);
        // ... and the stage says so apart (estimate text, JSON, the Memory view).
        QCOMPARE(vl.stages[0].vision.parameters, tower);
        QVERIFY(!vl.stages[1].vision.any() && !text.stages[0].vision.any());
        QCOMPARE(double(vl.stages[0].time.forward - text.stages[0].time.forward), vl.stages[0].vision.forwardSeconds);
        QVERIFY(vl.stages[0].vision.keptPerMicroBatch > 0);
        QVERIFY(visionShareText(vl.stages[0]).starts_with("Stage 0 holds the vision tower, in the figures above: "));
        QCOMPARE(countParameters(resolveYaml(scenario(true, "")).scenario.model).total() -
                     countParameters(resolveYaml(scenario(false, "")).scenario.model).total(),
                 std::int64_t{676550144});
    }

    // Model FLOPs of the tower, by hand: per block over P patches, 2P(4h² + 3hf) in its
    // projections and gated MLP and 4P·keys·h in its core - every patch both ways in the 4
    // full blocks, the 64 of its (112 px / 14 px)² window in the 28 others; the patch
    // embedding 2P·(3·2·14²)·h; the merger 2(P/4)(W² + W·3584) with W = 4h. Forward and
    // backward: three times the forward, for every sample of the step.
    void modelFlopsOfTheTower() {
        const Estimate vl = estimateOfYaml(scenario(true, "tp: 2"));
        const Estimate text = estimateOfYaml(scenario(false, "tp: 2"));
        const double P = 1024 * 4, h = 1280, f = 3420, W = 4 * h;
        const double blocks = 32 * 2 * P * (4 * h * h + 3 * h * f) + 4 * (4 * P * P * h) + 28 * (4 * P * 64 * h);
        const double forward = blocks + 2 * P * (3 * 2 * 14 * 14) * h + 2 * (P / 4) * (W * W + W * 3584);
        QCOMPARE(vl.modelFlopsPerStep - text.modelFlopsPerStep, 3 * 16 * forward);
    }

    // Gemma 3's SigLIP tower, by hand (modeling_siglip.py, modeling_gemma3.py): per block over
    // P patches 2P(4h² + 2hf) in its projections and plain MLP and 4P·P·h in its core (every
    // patch both ways); the patch embedding 2P·(3·14²)·h; the pooled projector 2(P/16)·h·5376.
    // The text model's FLOPs do not move with visual_seq_len (the image tokens sit in the
    // sequence), so two token counts differ by the tower alone.
    void gemma3TowerFlops() {
        auto gemma = [](int tokens) {
            return "model: {file: " + kData + "/hf/gemma3-27b-it.json}\ncluster: {device: h100-sxm, devices: 8}\n"
                   "exec: {tp: 8, seq_length: 4096, global_batch_size: 16, visual_seq_len: " + std::to_string(tokens) + "}\n";
        };
        const Estimate one = estimateOfYaml(gemma(256)), half = estimateOfYaml(gemma(128));
        const double h = 1152, f = 4304;
        auto tower = [&](double P) {
            return 27 * (2 * P * (4 * h * h + 2 * h * f) + 4 * P * P * h) + 2 * P * (3 * 14 * 14) * h + 2 * (P / 16) * h * 5376;
        };
        QCOMPARE(one.modelFlopsPerStep - half.modelFlopsPerStep, 3 * 16 * (tower(256 * 16) - tower(128 * 16)));
        QVERIFY(one.stages[0].memory.activations > half.stages[0].memory.activations);
    }

    // Llama 4's tower the same way (modeling_llama4.py): 34 blocks of plain MLP over P patches,
    // the unfold-and-linear patch embedding, and the pixel-shuffle projector over P/4 tokens:
    // 5632 -> 4096 -> 4096, then 4096 -> 5120.
    void llama4TowerFlops() {
        auto scout = [](int tokens) {
            return "model: {file: " + kData + "/hf/llama4-scout.json}\ncluster: {device: h100-sxm, devices: 8}\n"
                   "exec: {tp: 8, ep: 8, expert_tp: 1, seq_length: 4096, global_batch_size: 16, visual_seq_len: " + std::to_string(tokens) + "}\n";
        };
        const Estimate one = estimateOfYaml(scout(144)), two = estimateOfYaml(scout(288));
        const double h = 1408, f = 5632, w = 4096;
        auto tower = [&](double P) {
            return 34 * (2 * P * (4 * h * h + 2 * h * f) + 4 * P * P * h) + 2 * P * (3 * 14 * 14) * h +
                   2 * (P / 4) * (4 * h * w + w * w + w * 5120);
        };
        QCOMPARE(two.modelFlopsPerStep - one.modelFlopsPerStep, 3 * 16 * (tower(288 * 4) - tower(144 * 4)));
    }

    // A frozen tower (MindSpeed freeze: true) holds its weights alone, runs forward only and
    // keeps nothing: stage 0 loses exactly the tower's gradients, states and master copy
    // (fp32 gradients, the default grad_bytes 4, + 2 fp32 states + fp32 master = 16 bytes an element, unsharded).
    void frozenTower() {
        const Estimate trained = estimateOfYaml(scenario(true, "tp: 2"));
        const Estimate frozen = estimateOfYaml(scenario(true, "tp: 2, freeze_vision_tower: true"));
        const StageEstimate &a = trained.stages[0], &b = frozen.stages[0];
        QCOMPARE(b.parameters, a.parameters);
        QCOMPARE(b.memory.parameters, a.memory.parameters);
        QVERIFY(b.memory.gradients < a.memory.gradients);
        const double perElement = double(a.memory.gradients - b.memory.gradients + a.memory.optimizerStates -
                                         b.memory.optimizerStates + a.memory.mainParameters - b.memory.mainParameters) /
                                  a.vision.parameters;
        QVERIFY2(std::abs(perElement - 16) < 1e-3, qPrintable(QString::number(perElement)));
        QCOMPARE(b.vision.keptPerMicroBatch, 0.0);
        QCOMPARE(b.vision.backwardSeconds, 0.0);
        QCOMPARE(b.vision.forwardSeconds, a.vision.forwardSeconds);
        QVERIFY(b.memory.activations < a.memory.activations);
        QVERIFY(frozen.stepSeconds < trained.stepSeconds);
        // A train.yaml carries neither the image tokens nor the freeze: both are named, not dropped.
        std::vector<std::string> keys;
        for (const std::string& line : trainYamlUnexpressed(resolveYaml(scenario(true, "tp: 2, freeze_vision_tower: true"))))
            keys.push_back(line.substr(0, line.find(':')));
        QCOMPARE(keys, (std::vector<std::string>{"exec.visual_seq_len", "exec.freeze_vision_tower"}));
        try {
            resolveYaml(scenario(false, "tp: 2, freeze_vision_tower: true"));
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains("exec.freeze_vision_tower: is true, but the model has no vision tower"), e.what());
        }
    }

    // Qwen2.5-VL's windowed blocks: under flash they attend within their 64 patches; the
    // unfused core masks the whole square, and prices as if no block were windowed.
    void windowedBlocks() {
        const std::string windowed = scenario(true, "tp: 2");
        std::string full = windowed;
        full.replace(full.find("{file: "), 7, "{vision_full_attention_blocks: 32, file: ");
        const Estimate w = estimateOfYaml(windowed), f = estimateOfYaml(full);
        const double P = 1024 * 4, h = 1280;
        QCOMPARE(f.modelFlopsPerStep - w.modelFlopsPerStep, 3 * 16 * 28 * 4 * P * (P - 64) * h);
        QVERIFY(w.stepSeconds < f.stepSeconds);
        const Estimate wu = estimateOfYaml(scenario(true, "tp: 2, flash_attention: false"));
        std::string fullUnfused = scenario(true, "tp: 2, flash_attention: false");
        fullUnfused.replace(fullUnfused.find("{file: "), 7, "{vision_full_attention_blocks: 32, file: ");
        QCOMPARE(wu.stepSeconds, estimateOfYaml(fullUnfused).stepSeconds);
    }

    // The tower recomputes as the stage's first layer does: full recompute keeps less.
    void recomputeShrinksWhatItKeeps() {
        const Estimate none = estimateOfYaml(scenario(true, "tp: 2"));
        const Estimate full = estimateOfYaml(scenario(true, "tp: 2, full_recompute: true"));
        const Estimate textNone = estimateOfYaml(scenario(false, "tp: 2"));
        const Estimate textFull = estimateOfYaml(scenario(false, "tp: 2, full_recompute: true"));
        const double towerNone = double(none.stages[0].memory.activations - textNone.stages[0].memory.activations);
        const double towerFull = double(full.stages[0].memory.activations - textFull.stages[0].memory.activations);
        QVERIFY2(towerFull < towerNone / 4, qPrintable(QString("%1 vs %2").arg(towerFull).arg(towerNone)));
        QVERIFY(full.stages[0].time.recompute > textFull.stages[0].time.recompute);
    }

    // The tower over two stages (exec.vision_partition, MindSpeed-MM's vision_encoder
    // pipeline_num_layers [16, 16, 0, 0]): its parts add up to the whole, the text begins on
    // the tower's last stage with the embedding, and the first stage sends patches on.
    void splitOverStages() {
        const std::string whole = "pp: 4, tp: 2, pp_partition: [4, 8, 8, 8]";
        const std::string split = "pp: 4, tp: 2, pp_partition: [0, 12, 8, 8], vision_partition: [16, 16, 0, 0]";
        const Estimate w = estimateOfYaml(scenario(true, whole));
        const Estimate s = estimateOfYaml(scenario(true, split));
        QCOMPARE(s.stages.size(), std::size_t{4});
        QCOMPARE(s.stages[0].layers, std::int64_t{0});
        QCOMPARE(s.stages[0].vision.firstBlock, std::int64_t{0});
        QCOMPARE(s.stages[0].vision.endBlock, std::int64_t{16});
        QCOMPARE(s.stages[1].vision.firstBlock, std::int64_t{16});
        QCOMPARE(s.stages[1].vision.endBlock, std::int64_t{32});
        QVERIFY(!s.stages[2].vision.any() && !s.stages[3].vision.any());
        // The tower's parameters, forward and backward, split and whole: the same sums.
        const VisionShare& all = w.stages[0].vision;
        QCOMPARE(s.stages[0].vision.parameters + s.stages[1].vision.parameters, all.parameters);
        QVERIFY(qFuzzyCompare(s.stages[0].vision.forwardSeconds + s.stages[1].vision.forwardSeconds, all.forwardSeconds));
        QVERIFY(qFuzzyCompare(s.stages[0].vision.backwardSeconds + s.stages[1].vision.backwardSeconds, all.backwardSeconds));
        QVERIFY(std::abs(s.stages[0].vision.keptPerMicroBatch + s.stages[1].vision.keptPerMicroBatch - all.keptPerMicroBatch) <= 2);
        // Stage 0: 16 blocks and the patch embedding; 1,505,280 of the tower's elements whole,
        // each block as in firstStageOnly.
        QCOMPARE(s.stages[0].vision.parameters, 16.0 * ((19702200 - 5120) / 2.0 + 5120) + 1505280);
        QCOMPARE(s.stages[0].parameters, s.stages[0].vision.parameters);  // no embedding table, no text layer
        // Stage 1 holds the embedding table (152,064 × 3,584 over tp 2) with its 12 layers.
        QVERIFY(s.stages[1].parameters > s.stages[1].vision.parameters + 152064.0 * 3584 / 2);
        QCOMPARE(s.modelFlopsPerStep, w.modelFlopsPerStep);
        QCOMPARE(QString::fromStdString(visionShareText(s.stages[0])).section(',', 0, 0),
                 QStringLiteral("Stage 0 holds vision blocks 0-15 of 32 and the patch embedding"));
        QVERIFY(visionShareText(s.stages[1]).starts_with("Stage 1 holds vision blocks 16-31 of 32 and the projector,"));
        // Stage 0 sends the tower's patches (4 × 1,024 of width 1,280 over SP's tp), not text tokens.
        QVERIFY(s.stages[0].time.pp > 0 && s.stages[0].time.pp < w.stages[0].time.pp);
        // The JSON says which blocks.
        const auto json = nlohmann::json::parse(estimateJson(resolveYaml(scenario(true, split)), s, nullptr));
        QCOMPARE(json["stages"][1]["vision_tower"]["first_block"].get<int>(), 16);
        QCOMPARE(json["stages"][1]["vision_tower"]["block_count"].get<int>(), 16);
    }

    // The planner keeps a split tower's partition and prices it as estimate does; with
    // the budget between the stated peak and the lightest plan's, it recomputes to fit.
    void planWithASplitTower() {
        const std::string split = "pp: 4, tp: 2, pp_partition: [0, 12, 8, 8], vision_partition: [16, 16, 0, 0]";
        const ResolvedScenario r = resolveYaml(scenario(true, split));
        const CostInput in = costInput(r);
        const Estimate e = estimate(r);
        const Plan loose = planStrategy(in, PlanRequest{});
        QVERIFY2(loose.planned && loose.fits, loose.why.c_str());
        QVERIFY(loose.note.find("exec.vision_partition") != std::string::npos);
        QCOMPARE(loose.partition, r.partition.layers);
        QVERIFY(std::abs(loose.stepSeconds - e.stepSeconds) <= 1e-12 * e.stepSeconds);
        const Bytes budget = e.peakMemory - (Bytes{8} << 30);
        const Plan tight = planStrategy(in, PlanRequest{}, budget);
        QVERIFY2(tight.planned && tight.fits, tight.why.c_str());
        QVERIFY(tight.peakMemory <= budget && tight.stepSeconds > e.stepSeconds);
        CostInput applied = in;
        applyPlan(tight, applied.strategy);
        QCOMPARE(applied.strategy.visionBlocks, r.visionBlocks);
        QVERIFY(std::abs(evaluate(applied).stepSeconds - tight.stepSeconds) <= 1e-12 * tight.stepSeconds);
    }

    void refusals_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected");
        std::string partial = scenario(false, "tp: 2");
        partial.insert(partial.find("max_position"), "vision_hidden_size: 64, ");
        QTest::newRow("a tower stated in part") << QString::fromStdString(partial)
                                                << "model.vision_depth: required: the model states a vision tower";
        QTest::newRow("tokens without a tower") << QString::fromStdString(scenario(false, "tp: 2, visual_seq_len: 64"))
                                                << "exec.visual_seq_len: is stated, but the model has no vision tower";
        std::string tooMany = scenario(true, "tp: 2");
        tooMany.replace(tooMany.find("visual_seq_len: 1024"), 20, "visual_seq_len: 8192");
        QTest::newRow("more image tokens than the sequence") << QString::fromStdString(tooMany)
                                                             << "exec.visual_seq_len: the image tokens sit in the sequence";
        auto split = [](const std::string& exec) { return QString::fromStdString(scenario(true, exec)); };
        QTest::newRow("a split without the text's partition")
            << split("pp: 4, tp: 2, vision_partition: [16, 16, 0, 0]")
            << "exec.pp: the vision tower runs on stages 0-1, so stage 0 cannot hold text layers, which come after it: "
               "state pp_partition, e.g. [0, 9, 9, 10]";
        QTest::newRow("text before the tower ends") << split("pp: 4, tp: 2, vision_partition: [16, 16, 0, 0], pp_partition: [1, 11, 8, 8]")
                                                    << "exec.pp_partition: stage 0 would hold 1 text layers, but the vision tower";
        QTest::newRow("a block count per stage") << split("pp: 4, tp: 2, vision_partition: [16, 16]")
                                                 << "exec.vision_partition: one count per stage: pp = 4 stages, got 2";
        QTest::newRow("every block placed") << split("pp: 4, tp: 2, vision_partition: [16, 8, 0, 0], pp_partition: [0, 12, 8, 8]")
                                            << "exec.vision_partition: the stages hold 24 vision blocks, but the tower has 32";
        QTest::newRow("blocks in order") << split("pp: 4, tp: 2, vision_partition: [16, 0, 16, 0], pp_partition: [0, 12, 8, 8]")
                                         << "exec.vision_partition: the tower runs from stage 0 on consecutive stages";
        QTest::newRow("one chunk a stage") << split("pp: 2, vpp: 2, tp: 2, pp_schedule: interleaved, vision_partition: [16, 16]")
                                           << "exec.vision_partition: splits the tower over stages with one chunk per stage";
        QTest::newRow("no V") << split("pp: 2, vpp: 2, tp: 2, pp_schedule: zbv, vision_partition: [16, 16], pp_partition: [[0, 14], [14, 0]]")
                              << "exec.vision_partition: splits the tower over stages under gpipe, 1f1b or zb-h1";
        QTest::newRow("no tower") << QString::fromStdString(scenario(false, "pp: 2, vision_partition: [1, 0]"))
                                  << "exec.vision_partition: is stated, but the model has no vision tower";
    }
    void refusals() {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        try {
            resolveYaml(yaml.toStdString());
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestVision)
#include "tst_vision.moc"
