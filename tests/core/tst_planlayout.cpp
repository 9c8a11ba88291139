// The planner over layouts and schedules past one chunk per stage under 1F1B:
// interleaved models of several layer kinds (where a stage's chunks sit), a stated
// recompute kept under interleaving, zb-h1, and plans written to train.yaml and read
// back (tst_plan holds the planner to brute force on the small families).
#include <QtTest>

#include <cmath>

#include "doc/document.h"
#include "model/estimate.h"
#include "plan/planexec.h"
#include "plan/planner.h"
#include "planfixtures.h"
#include "trainyaml/trainyaml.h"

using namespace tessera::core;
using namespace tessera::testing;

class TestPlanLayout : public QObject {
    Q_OBJECT
private slots:
    // Interleaved DeepSeek-V3 (three dense layers, 58 MoE, the MTP layer; pp 16, vpp 2):
    // the even split does not fit 80 GiB; the planned partition does, its walk priced as
    // the cost model prices it. A model whose later rounds mix kinds over a space too
    // large to walk keeps its stated partition, and the plan says why.
    void interleavedSeveralKinds() {
        const QStringList interleaved = interleavedDeepSeek();
        const ResolvedScenario r = resolve(presetWith("deepseek-v3-h800x2048-1f1b", interleaved));
        const CostInput in = costInput(r);
        QVERIFY(evaluate(in).peakMemory > Bytes{80} << 30);
        const Plan plan = planStrategy(in, planRequest(r));
        QVERIFY2(plan.note.find("partition is not planned") == std::string::npos, plan.note.c_str());
        QVERIFY(plan.fits);
        QVERIFY(plan.peakMemory <= Bytes{80} << 30);
        QCOMPARE(plan.walkedStep, plan.stepSeconds);
        QCOMPARE(plan.partition.size(), std::size_t(2));
        std::int64_t layers = 0;
        for (const auto& chunk : plan.partition)
            for (std::int64_t n : chunk) layers += n;
        QCOMPARE(layers, std::int64_t{62});

        // 127 body layers, the first 60 dense, at vpp 3: a dense layer can sit in any round.
        QStringList wide = interleaved;
        std::string grid;  // 128 layers over 48 chunks, the extra ones on the last 32
        for (int c = 0; c < 3; ++c) {
            grid += c ? ",[" : "[[";
            for (int s = 0; s < 16; ++s) grid += std::string(s ? "," : "") + (c == 0 ? "2" : "3");
            grid += c == 2 ? "]]" : "]";
        }
        wide << "model.num_hidden_layers=127" << "model.first_k_dense_replace=60" << "exec.vpp=3"
             << QString::fromStdString("exec.pp_partition=" + grid);
        const ResolvedScenario big = resolve(presetWith("deepseek-v3-h800x2048-1f1b", wide));
        const Plan kept = planStrategy(costInput(big), planRequest(big));
        QVERIFY(kept.planned);
        QVERIFY2(kept.note.find("the stated pp_partition is kept") != std::string::npos, kept.note.c_str());
        QCOMPARE(kept.partition, costInput(big).strategy.partition);
        QVERIFY(std::isnan(kept.walkedStep));
    }

    // A stage holding more layers can be the faster one: under FSDP a last stage of the
    // MTP layer alone waits on that layer's whole gather, which one more layer's compute
    // hides. The walk once stopped adding layers to a stage at the first count too slow
    // for the step in hand, and on DeepSeek-V3 at pp 32 said nothing fit where the even
    // split, recompute planned, fits; the plan must never be slower than that split.
    void moreLayersCanBeFaster() {
        std::string even = "[1,1";
        for (int s = 2; s < 32; ++s) even += ",2";
        even += "]";
        Scenario s = presetWith("deepseek-v3-h800x2048-1f1b",
                                {"exec.dp=64", "exec.pp=32", "exec.ep=1", "exec.micro_batch_num=240", "exec.grad_shard_as_params=true",
                                 QString::fromStdString("exec.pp_partition=" + even)});
        s.exec.optimizer_shard.reset();  // the whole data-parallel group
        const ResolvedScenario r = resolve(s);
        const CostInput in = costInput(r);
        const Plan split = planStrategy(in, planRequest(r, false, true));  // the even split, recompute planned
        QVERIFY(split.fits);
        const Plan plan = planStrategy(in, planRequest(r));
        QVERIFY2(plan.fits, plan.why.c_str());
        QVERIFY2(plan.stepSeconds <= split.stepSeconds * (1 + 1e-12),
                 qPrintable(QString("planned %1 s, the even split %2 s").arg(plan.stepSeconds).arg(split.stepSeconds)));
        QCOMPARE(plan.walkedStep, plan.stepSeconds);
    }

    // The partition planned around a stated recompute (--keep-recompute) under
    // interleaving: layers of one kind that recompute differently are different layers
    // to the walk, which must count each chunk where it sits. Every partition of the
    // family is priced; the plan is the fastest that fits, and its walk prices it as the
    // cost model does.
    void interleavedKeepsStatedRecompute_data() {
        QTest::addColumn<QString>("recompute");
        QTest::newRow("first three full") << "[{first: 0, count: 3, option: full}]";
        QTest::newRow("last two full, one selective") << "[{first: 4, count: 1, option: selective}, {first: 5, count: 2, option: full}]";
    }
    void interleavedKeepsStatedRecompute() {
        QFETCH(QString, recompute);
        std::string yaml = scenario(QString::fromStdString(kDenseFamily).arg(7).toStdString(), 2, 2, 4, "interleaved", 1, 7);
        yaml.insert(yaml.rfind('}'), ", recompute: " + recompute.toStdString());
        const ResolvedScenario r = resolvedOf(yaml);
        const CostInput in = costInput(r);
        std::vector<Priced> all;
        std::vector<std::int64_t> part;
        compositions(7, 2, part, [&](const std::vector<std::int64_t>& totals) {
            if (totals[0] < 2 || totals[1] < 2) return;
            CostInput c = in;
            c.strategy.partition.assign(2, std::vector<std::int64_t>(2));
            for (std::size_t s = 0; s < 2; ++s)
                for (std::size_t ch = 0; ch < 2; ++ch) c.strategy.partition[ch][s] = totals[s] / 2 + (ch >= 2 - std::size_t(totals[s] % 2) ? 1 : 0);
            const Summary sum = evaluate(c);
            all.push_back({sum.peakMemory, sum.stepSeconds});
        });
        PlanRequest request = planRequest(r);
        request.recompute = false;
        for (Bytes budget : budgetsOf(all)) {
            const Plan plan = planStrategy(in, request, budget);
            const double best = fastestWithin(all, budget);
            QCOMPARE(plan.fits, std::isfinite(best));
            if (!plan.fits) continue;
            QCOMPARE(plan.walkedStep, plan.stepSeconds);
            QCOMPARE(plan.stepSeconds, best);
        }
    }

    // zb-h1 is planned like 1f1b with its held-back weight gradients on each stage and
    // its own closed form (the brute-force rows hold it exact); with fewer micro-batches
    // than stages its drain depends on the least weight gradient, and the plan says it
    // does not balance that.
    void zeroBubbleH1() {
        const ResolvedScenario r = resolve(presetWith("llama3-70b-h100x64", {"exec.pp_schedule=zb-h1", "exec.device_memory=40GiB"}));
        const Plan plan = planStrategy(costInput(r), planRequest(r));
        QVERIFY2(plan.planned && plan.fits, plan.why.c_str());
        QVERIFY(plan.peakMemory <= Bytes{40} << 30);
        QCOMPARE(plan.walkedStep, plan.stepSeconds);
        // (resolve refuses a pipeline that so few micro-batches cannot fill; the planner does not lean on it)
        CostInput few = costInput(r);
        few.strategy.mbn = 2;
        const Plan refused = planStrategy(few, planRequest(r));
        QVERIFY(!refused.planned);
        QVERIFY2(refused.why.find("at least pp micro-batches") != std::string::npos, refused.why.c_str());
    }

    // A plan with uneven stages (and chunks) written to train.yaml (offsets per stage, or
    // per chunk and stage, and activation_checkpoint.layers) reads back to the same
    // partition, the same option on every layer, and the same price. Both as
    // HyperParallel's trainer runs them: optimizer states sharded with FSDP only, no
    // DeepEP, and its own selective recompute (what SLCT is, and what the file says).
    void trainYamlRoundTrip_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("device");
        QTest::addColumn<qint64>("devices");
        QTest::newRow("llama3-70b at 40 GiB") << "llama3-70b-h100x64"
                                              << QStringList{"exec.device_memory=40GiB", "exec.grad_shard_as_params=true"}
                                              << "h100-sxm" << qint64(64);
        QTest::newRow("deepseek-v3 interleaved vpp 2")
            << "deepseek-v3-h800x2048-1f1b"
            << (interleavedDeepSeek() << "exec.grad_shard_as_params=true" << "exec.moe_enable_deepep=false"
                                      << "exec.selective_rule=hyperparallel" << "exec.recompute=[{first: 0, option: selective}]")
            << "h800" << qint64(2048);
    }
    void trainYamlRoundTrip() {
        QFETCH(QString, preset);
        QFETCH(QStringList, sets);
        QFETCH(QString, device);
        QFETCH(qint64, devices);
        const Scenario stated = presetWith(preset.toStdString(), sets);
        const ResolvedScenario r = resolve(stated);
        const Plan plan = planStrategy(costInput(r), planRequest(r));
        QVERIFY(plan.fits);
        QVERIFY(plan.partition != costInput(r).strategy.partition);  // moved from the even split
        Scenario written = stated;
        written.exec = planExec(stated.exec, plan);
        const ResolvedScenario planned = resolve(written);
        QCOMPARE(planned.partition.layers, plan.partition);
        const std::string yaml = trainYaml(planned, nullptr);
        QVERIFY(yaml.find("offset") != std::string::npos);
        QVERIFY(yaml.find("layers:") != std::string::npos);
        Diagnostics d;
        Value back = scenarioFromTrainYaml(parseDocument(yaml, "train.yaml", Format::Yaml), "", d);
        d.raiseIfAny();
        back.find("cluster")->set("device", Value::string(device.toStdString()));
        back.find("cluster")->set("devices", Value::integer(devices));
        const ResolvedScenario again = resolve(scenarioFromValue(back, "train.yaml", ""));
        QCOMPARE(again.partition.layers, plan.partition);
        const CostInput a = costInput(planned), b = costInput(again);
        QCOMPARE(a.strategy.layerClass.size(), b.strategy.layerClass.size());
        for (std::size_t l = 0; l < a.strategy.layerClass.size(); ++l)
            QVERIFY(a.strategy.classes[a.strategy.layerClass[l]] == b.strategy.classes[b.strategy.layerClass[l]]);
        QCOMPARE(estimate(again).peakMemory, plan.peakMemory);
        QCOMPARE(estimate(again).stepSeconds, plan.stepSeconds);
    }
};

QTEST_GUILESS_MAIN(TestPlanLayout)
#include "tst_planlayout.moc"
