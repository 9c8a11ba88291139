// The time model: measured throughput (published.md §4, fitted and held-out rows) within 10 % after the
// efficiency fit, model FLOPs as the papers count them, the closed-form pipeline
// against the event simulation on real stage times, and the step's breakdown.
#include <QtTest>

#include <map>

#include "costhelpers.h"
#include "model/estimate.h"
#include "model/layercost.h"
#include "pipeline/schedule.h"
#include "throughputrows.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

Estimate estimateYaml(const std::string& yaml) {
    Estimate e;
    evaluate(inputYaml(yaml), &e);
    return e;
}

std::string llama70b(const std::string& exec) {
    return "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\nexec: {tp: 8, pp: 4, sequence_parallel: true, "
           "seq_length: 8192, micro_batch_size: 1, micro_batch_num: 32, optimizer_parallel: true" + exec + "}\n";
}

// Fitted-table rows no modelled cause reaches yet, each with why (the failure message
// adds the figure as it stands).
const std::map<QString, QString>& knownMisses() {
    static const std::map<QString, QString> kMisses = {
        {"Megatron-LM H100 16B",
         "4 micro-batches a step under a 48-way data-parallel group: Tessera exposes about a quarter of the step "
         "as the fp32 gradient reduce-scatter behind the last micro-batch's backward and the gather before the "
         "first forward. The curve is fitted on the compute-bound rows (model/efficiency.cpp), so this row shows that "
         "exposure's pessimism rather than hiding it in the ceiling; splitting the inter-node traffic over the node's "
         "NICs overcorrects it, the 1.7B and 7.1B rows turning far too fast (#15, the stop-37 note)"},
        {"Megatron-LM H100 32B",
         "as the 16B row: 4 micro-batches under a 48-way data-parallel group, one rank per node, whose fp32 "
         "reduce-scatter of 3.8 G gradients (83 buckets of 48 M, each paying its ring's 47 network steps of "
         "latency) outlasts the last micro-batch's backward several times over; the row left 10 % when those "
         "per-bucket latencies, NCCL's own model, were priced (stop 43)"},
    };
    return kMisses;
}

}  // namespace

class TestTime : public QObject {
    Q_OBJECT
private slots:
    // Fitted rows and held-out rows (the fit never saw them) alike: within 10 %.
    void measuredThroughput_data() {
        QTest::addColumn<int>("row");
        QTest::addColumn<bool>("heldOut");
        const auto rows = throughputRows();
        for (std::size_t i = 0; i < rows.size(); ++i) QTest::newRow(rows[i].name) << int(i) << false;
        const auto held = heldOutRows();
        for (std::size_t i = 0; i < held.size(); ++i) QTest::newRow(held[i].name) << int(i) << true;
    }
    void measuredThroughput() {
        QFETCH(int, row);
        QFETCH(bool, heldOut);
        const ThroughputRow r = (heldOut ? heldOutRows() : throughputRows())[std::size_t(row)];
        const Summary s = evaluate(inputYaml(throughputScenario(r)));
        // The run ran: it fits its device as priced.
        QVERIFY2(s.fits, qPrintable(QString::asprintf("peak %.1f GiB", double(s.peakMemory) / (1 << 30))));
        const double predicted = tableFlopsPerStep(r) / s.stepSeconds / r.gpus / 1e12;
        const double error = predicted / r.measuredTflops - 1;
        qInfo("%s: measured %.1f, Tessera %.1f TFLOP/s (%+.1f %%)", r.name, r.measuredTflops, predicted, error * 100);
        if (auto it = knownMisses().find(r.name); it != knownMisses().end() && !heldOut)
            QEXPECT_FAIL("", qPrintable(QString("%1 %: %2").arg(error * 100, 0, 'f', 1).arg(it->second)), Continue);
        QVERIFY2(std::abs(error) <= 0.10, qPrintable(QString("measured %1, predicted %2 TFLOP/s (%3 %)")
                                                         .arg(r.measuredTflops).arg(predicted, 0, 'f', 1)
                                                         .arg(error * 100, 0, 'f', 1)));
    }

    // Model FLOPs per step, as Tessera counts them (causal attention, no recompute),
    // equal 72·B·s·l·h²·(1 + s/(12h) + V/(12lh)) for a GPT model: Narayanan et al. 2021's
    // count without recompute (72 = 96·3/4) and with the causal half of the attention.
    void modelFlopsGpt3() {
        const Estimate e = estimateYaml("model: gpt3-175b\ncluster: {device: a100-80gb, devices: 1024}\n"
                                        "exec: {tp: 8, pp: 16, seq_length: 2048, micro_batch_size: 1, global_batch_size: 1536}\n");
        const double B = 1536, s = 2048, l = 96, h = 12288, V = 50257;
        const double expected = 72 * B * s * l * h * h * (1 + s / (12 * h) + V / (12 * l * h));
        QVERIFY2(std::abs(e.modelFlopsPerStep / expected - 1) < 1e-12, qPrintable(QString::number(e.modelFlopsPerStep)));
        QVERIFY(std::abs(e.mfu - e.modelFlopsPerStep / (e.stepSeconds * 1024 * 312e12)) < 1e-12);
        QVERIFY(std::abs(e.tokensPerSecond - B * s / e.stepSeconds) < 1e-6);
    }

    void breakdownAddsUpToTheStep_data() {
        QTest::addColumn<QString>("exec");
        QTest::newRow("1f1b") << "";
        QTest::newRow("interleaved") << ", vpp: 2, pp_schedule: interleaved";
        QTest::newRow("gpipe, full recompute") << ", pp_schedule: gpipe, recompute: [{first: 0, option: full}]";
    }
    void breakdownAddsUpToTheStep() {
        QFETCH(QString, exec);
        const Estimate e = estimateYaml(llama70b(exec.toStdString()));
        const TimeBreakdown& b = e.breakdown;
        QVERIFY(std::abs(b.compute + b.recompute + b.communicationExposed + b.bubble + b.optimizer - e.stepSeconds) <
                1e-9 * e.stepSeconds);
        QVERIFY(b.compute > 0 && b.bubble > 0 && b.communicationExposed > 0 && b.optimizer > 0);
    }

    void schedulesAndRecompute() {
        const Estimate oneF = estimateYaml(llama70b(""));
        const Estimate inter = estimateYaml(llama70b(", vpp: 2, pp_schedule: interleaved"));
        QVERIFY(inter.bubbleFraction < oneF.bubbleFraction);  // (p-1)/v instead of p-1
        QVERIFY(inter.peakMemory > oneF.peakMemory);           // L(1 + (p-1)/(pv)) > L layers' worth
        const Estimate full = estimateYaml(llama70b(", recompute: [{first: 0, option: full}]"));
        QVERIFY(full.stepSeconds > oneF.stepSeconds);
        QVERIFY(full.peakMemory < oneF.peakMemory);
        QVERIFY(full.breakdown.recompute > 0 && oneF.breakdown.recompute == 0);  // flash: selective drops nothing
    }

    // The step's pipeline part is the closed form; simulating the schedule on the same
    // stage times gives the same makespan when the last stage is the slowest (1F1B's
    // closed form is exact then; tst_pipeline states how far it drifts otherwise).
    void closedFormAgreesWithTheSimulation_data() {
        QTest::addColumn<QString>("exec");
        QTest::addColumn<QString>("schedule");
        QTest::newRow("1f1b") << "" << "1f1b";
        QTest::newRow("gpipe") << ", pp_schedule: gpipe" << "gpipe";
    }
    void closedFormAgreesWithTheSimulation() {
        QFETCH(QString, exec);
        QFETCH(QString, schedule);
        const Estimate e = estimateYaml(llama70b(exec.toStdString()));
        PipelineInput input;
        input.schedule = schedule.toStdString();
        input.stages = int(e.stages.size());
        input.microBatches = 32;
        double tail = 0;
        for (const StageEstimate& st : e.stages) {
            const StageTime& t = st.time;
            input.times.push_back({StageTimes{t.forward, t.backward + t.weightGrad + t.recompute, 0}});
            tail = std::max(tail, t.dpExposed + t.optimizer);
        }
        QVERIFY(e.stages.back().time.perMicroBatch() >= e.stages.front().time.perMicroBatch());
        const PipelineResult sim = simulatePipeline(input);
        QVERIFY2(std::abs(sim.makespan + tail - e.stepSeconds) < 1e-9 * e.stepSeconds,
                 qPrintable(QString("simulated %1 + %2, estimated %3").arg(sim.makespan).arg(tail).arg(e.stepSeconds)));
        // Tessera's bubble is the straggler's idle share of the pipeline.
        const double busiest = *std::max_element(sim.busy.begin(), sim.busy.end());
        QVERIFY(std::abs((1 - busiest / sim.makespan) - e.bubbleFraction) < 1e-9);
    }

    // Rank order TP, CP, EP, DP, PP: a group crosses nodes when its block of ranks
    // is larger than a node.
    void groupLinks_data() {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("dp");
        QTest::addColumn<bool>("tpInter");
        QTest::addColumn<bool>("cpInter");
        QTest::addColumn<bool>("dpInter");
        QTest::newRow("tp 8 in a node") << 8 << 1 << 4 << false << false << true;
        QTest::newRow("tp 16 spans two") << 16 << 1 << 2 << true << false << true;
        QTest::newRow("tp 2 cp 4 in a node") << 2 << 4 << 1 << false << false << false;
        QTest::newRow("tp 4 cp 4 spans") << 4 << 4 << 1 << false << true << true;
    }
    void groupLinks() {
        QFETCH(int, tp);
        QFETCH(int, cp);
        QFETCH(int, dp);
        QFETCH(bool, tpInter);
        QFETCH(bool, cpInter);
        QFETCH(bool, dpInter);
        Strategy s;
        s.tp = tp, s.cp = cp, s.dp = dp;
        const GroupLinks g = tessera::core::groupLinks(s, 8);
        QCOMPARE(g.tp == Link::Inter, tpInter);
        QCOMPARE(g.cp == Link::Inter, cpInter);
        QCOMPARE(g.dp == Link::Inter, dpInter);
    }

    // A configurable rank order: data parallelism innermost pushes a tensor-parallel
    // group of 8 across nodes (cluster.rank_order).
    void rankOrder() {
        Strategy s;
        s.tp = 8, s.dp = 2;
        QCOMPARE(tessera::core::groupLinks(s, 8).tp, Link::Intra);
        QCOMPARE(tessera::core::groupLinks(s, 8).dp, Link::Inter);
        s.rankOrder = {RankDim::Dp, RankDim::Tp, RankDim::Cp, RankDim::Ep, RankDim::Pp};
        QCOMPARE(tessera::core::groupLinks(s, 8).tp, Link::Inter);
        QCOMPARE(tessera::core::groupLinks(s, 8).dp, Link::Intra);
        const std::string yaml = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16, rank_order: [dp, tp, cp, ep, pp]}\n"
                                 "exec: {tp: 8, seq_length: 4096, global_batch_size: 16, sequence_parallel: true}\n";
        const Estimate dpInner = estimateYaml(yaml);
        std::string tpInnerYaml = yaml;
        tpInnerYaml.replace(tpInnerYaml.find("[dp, tp"), 7, "[tp, dp");
        const Estimate tpInner = estimateYaml(tpInnerYaml);
        QVERIFY(dpInner.stages.front().time.tp > 3 * tpInner.stages.front().time.tp);
    }

    // More tensor parallelism: less compute per device, more (and, past a node, slower)
    // communication.
    void tensorParallelCommunication() {
        const std::string base = "model: llama2-7b\ncluster: {device: h100-sxm, devices: 16}\nexec: {seq_length: 4096, "
                                 "global_batch_size: 16, sequence_parallel: true, tp: ";
        const Estimate t8 = estimateYaml(base + "8}\n"), t16 = estimateYaml(base + "16}\n");
        QVERIFY(t16.stages.front().time.tp > t8.stages.front().time.tp);
        QVERIFY(t16.breakdown.communicationExposed > t8.breakdown.communicationExposed);
    }

    // TP traffic hidden behind compute: half by default (seed), 7/8 with Transformer
    // Engine's pipelined overlap, which needs sequence parallelism.
    void tensorParallelOverlap_data() {
        QTest::addColumn<bool>("sp");
        QTest::addColumn<bool>("overlap");
        QTest::addColumn<double>("hidden");
        QTest::newRow("default") << true << false << 0.5;
        QTest::newRow("tp_comm_overlap") << true << true << 0.875;
        QTest::newRow("no sequence parallel: no userbuffers") << false << true << 0.5;
    }
    void tensorParallelOverlap() {
        QFETCH(bool, sp);
        QFETCH(bool, overlap);
        QFETCH(double, hidden);
        CostInput in = inputYaml(llama70b(""));
        in.strategy.sp = sp, in.strategy.tpCommOverlap = overlap;
        const LayerCost lc = layerCost(in, in.model.kinds.front(), RecomputeClass{}, tessera::core::groupLinks(in.strategy, 8));
        QVERIFY(lc.tpSeconds > 0);
        QVERIFY(qFuzzyCompare(lc.commExposedForward + lc.commExposedBackward, (1 - hidden) * lc.tpSeconds));
    }

    // Under FP8 with userbuffers the all-gathers carry the quantised tensor, one byte an
    // element; the reduce-scatters stay in BF16 (Transformer Engine's initialize_ub).
    // Without userbuffers, or in BF16, both halves move two bytes.
    void fp8AllGathersUnderUserBuffers_data() {
        QTest::addColumn<QString>("exec");
        QTest::addColumn<bool>("halvedGathers");
        QTest::newRow("fp8, userbuffers") << ", compute_dtype: fp8, tp_comm_overlap: true" << true;
        QTest::newRow("fp8, no userbuffers") << ", compute_dtype: fp8" << false;
        QTest::newRow("bf16, userbuffers") << ", tp_comm_overlap: true" << false;
    }
    void fp8AllGathersUnderUserBuffers() {
        QFETCH(QString, exec);
        QFETCH(bool, halvedGathers);
        const CostInput in = inputYaml(llama70b(exec.toStdString()));
        const GroupLinks links = tessera::core::groupLinks(in.strategy, 8);
        const LayerCost lc = layerCost(in, in.model.kinds.front(), RecomputeClass{}, links);
        const double activation = 2.0 * 8192 * 8192;  // BF16, T = 8192 tokens of h 8192
        const double gather = allGather(halvedGathers ? activation / 2 : activation, 8, links.tp, in.device).seconds;
        const double scatter = allGather(activation, 8, links.tp, in.device).seconds;
        // Two gather/scatter pairs a pass, forward and backward.
        QVERIFY2(qFuzzyCompare(lc.tpSeconds, 4 * (gather + scatter)), qPrintable(QString::number(lc.tpSeconds)));
    }

    // alpha-beta: a ring all-gather over n ranks sends (n-1)/n of the tensor, at 80 % of
    // NVLink in a node and 90 % of the NIC across nodes (coefficients.h).
    void collectiveBandwidth() {
        const CostInput in = inputYaml(llama70b(""));
        const double bytes = 1e9;
        const CollectiveCost intra = allGather(bytes, 8, Link::Intra, in.device);
        const CollectiveCost inter = allGather(bytes, 8, Link::Inter, in.device);
        QCOMPARE(intra.bytes, bytes * 7 / 8);
        QVERIFY(qFuzzyCompare(intra.seconds, 7 * 5e-6 + bytes * 7 / 8 / (450e9 * 0.8)));
        QVERIFY(qFuzzyCompare(inter.seconds, 7 * 12e-6 + bytes * 7 / 8 / (50e9 * 0.9)));
        // Across 8 nodes the all-reduce is a ring (two passes, at NCCL's plateau of 1.4 on
        // the latency) or a tree, whichever NCCL's model prices lower: at 1 GB the ring.
        const double ring = 1.4 * 2 * 7 * 12e-6 + 2 * bytes * 7 / 8 / (50e9 * 0.9);
        QVERIFY(qFuzzyCompare(allReduce(bytes, 8, Link::Inter, in.device).seconds, ring));
        QCOMPARE(allReduce(bytes, 8, Link::Inter, in.device).bytes, 2 * inter.bytes);
    }
};

QTEST_APPLESS_MAIN(TestTime)
#include "tst_time.moc"
