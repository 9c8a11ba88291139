// Overlap as the run states it: each switch hides communication behind the compute
// the schedule puts beside it, and what is longer than its cover shows by the
// difference (issue 14). The closed forms are held to small event chains built here,
// the paired schedules to the pipeline simulation, and the cost model to both.
#include <QtTest>

#include <random>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/stagebody.h"
#include "pipeline/closedform.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

// n transfers back to back from the start, and n compute slices, slice i needing
// transfer i (a layer its gathered parameters: forward = true) or transfer i
// needing slice i (a bucket its filled gradients): how long past the compute's own
// length the chain ends.
double chainExposed(double transfer, int n, double cover, bool computeWaits) {
    double transferEnd = 0, computeEnd = 0;
    for (int i = 0; i < n; ++i) {
        if (computeWaits) {
            transferEnd += transfer / n;
            computeEnd = std::max(computeEnd, transferEnd) + cover / n;
        } else {
            computeEnd += cover / n;
            transferEnd = std::max(transferEnd, computeEnd) + transfer / n;
        }
    }
    return std::max(computeEnd, transferEnd) - cover;
}

Estimate priced(const char* yaml, const QStringList& sets = {}) {
    Value doc = parseDocument(yaml, "row.yaml", Format::Yaml);
    for (const QString& s : sets) applyOverride(doc, s.toStdString());
    return estimate(resolve(scenarioFromValue(doc, "row.yaml", "")));
}

PipelineInput equal(const char* schedule, int p, int v, int m, double f, double b, double fComm, double bComm) {
    PipelineInput in;
    in.schedule = schedule, in.stages = p, in.chunks = v, in.microBatches = m;
    in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(v), StageTimes{f, b, 0, fComm, bComm}));
    return in;
}

// Mixtral 8x7B on 16 H100, experts over ep 4: the all-to-all is a real share of a layer.
const char* kMixtral = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
                       "exec: {tp: 2, ep: 4, seq_length: 4096, global_batch_size: 64, optimizer_parallel: true}\n";
// Llama-3 8B on 16 H100, two stages of two chunks each.
const char* kInterleaved = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                           "exec: {tp: 2, pp: 2, vpp: 2, pp_schedule: interleaved, seq_length: 4096, global_batch_size: 64}\n";

}  // namespace

class TestOverlap : public QObject {
    Q_OBJECT
private slots:
    // A transfer shorter than its cover shows one piece; a longer one the difference
    // (less the slice it runs beside). The closed form against the chain, both ways.
    void pipelinedAgainstTheChain_data() {
        QTest::addColumn<double>("transfer");
        QTest::addColumn<int>("pieces");
        QTest::addColumn<double>("cover");
        QTest::addColumn<double>("exposed");
        QTest::newRow("one bucket: full only at the end") << 1.0 << 1 << 10.0 << 1.0;
        QTest::newRow("shorter than its cover: the last piece") << 1.0 << 10 << 10.0 << 0.1;
        QTest::newRow("longer than its cover: by the difference") << 10.0 << 10 << 2.0 << 10 - 2 * 0.9;
        QTest::newRow("as long as its cover") << 4.0 << 4 << 4.0 << 1.0;
        QTest::newRow("no cover") << 3.0 << 5 << 0.0 << 3.0;
    }
    void pipelinedAgainstTheChain() {
        QFETCH(double, transfer);
        QFETCH(int, pieces);
        QFETCH(double, cover);
        QFETCH(double, exposed);
        QVERIFY(qFuzzyCompare(1 + detail::exposedPipelined(transfer, pieces, cover), 1 + exposed));
        for (bool computeWaits : {false, true})
            QVERIFY(qFuzzyCompare(1 + chainExposed(transfer, pieces, cover, computeWaits), 1 + exposed));
    }
    void pipelinedRandom() {
        std::mt19937 rng(14);
        std::uniform_real_distribution<double> seconds(0.01, 5);
        std::uniform_int_distribution<int> count(1, 200);
        for (int i = 0; i < 2000; ++i) {
            const double t = seconds(rng), c = seconds(rng);
            const int n = count(rng);
            const double closed = detail::exposedPipelined(t, n, c);
            QVERIFY2(std::abs(closed - chainExposed(t, n, c, i % 2 == 0)) < 1e-9, qPrintable(QString::number(i)));
        }
        // overlapped_grad_reduce: false waits for the whole reduction.
        RunSettings off;
        off.overlappedGradReduce = false;
        QCOMPARE(detail::exposedReduce(off, 2.0, 50, 100.0), 2.0);
    }

    // Megatron's combined 1F1B at pp 1: F alone, then m-1 pairs of the next forward
    // with the last backward, then B alone; each pair hides either half's all-to-all
    // under the other's compute, exposed by the difference when it is longer.
    void combinedOneFOneB_data() {
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("comm");  // in each of F and B
        QTest::addColumn<double>("pair");
        QTest::newRow("shorter than its cover: hidden") << 1.0 << 2.0 << 0.4 << 1.0 + 2.0 - 2 * 0.4;
        // F 1 = 0.1 compute + 0.9 comm, B 1 likewise: each 0.9 over the other's 0.1, 0.8 shows.
        QTest::newRow("longer than its cover: the difference") << 1.0 << 1.0 << 0.9 << 0.1 + 0.1 + 2 * 0.8;
        QTest::newRow("nothing to hide") << 1.0 << 2.0 << 0.0 << 3.0;
    }
    void combinedOneFOneB() {
        QFETCH(double, f);
        QFETCH(double, b);
        QFETCH(double, comm);
        QFETCH(double, pair);
        const int m = 6;
        PipelineInput in = equal("1f1b", 1, 1, m, f, b, comm, comm);
        in.pairSteadyState = true;
        const PipelineResult r = simulatePipeline(in);
        QVERIFY(qFuzzyCompare(r.makespan, f + (m - 1) * pair + b));
        QCOMPARE(int(std::count_if(r.events.begin(), r.events.end(), [](const PipelineEvent& e) { return e.paired; })), 2 * (m - 1));
        QCOMPARE(r.peakInFlight[0], 2);  // the forward beside the backward is one more micro-batch held
        // Each event says what of its communication the stage waited for and what ran
        // beside compute: the pairs hid exactly what the step saved.
        double exposed = 0, hidden = 0;
        for (const PipelineEvent& e : r.events) exposed += e.commExposed, hidden += e.commHidden;
        QVERIFY(std::abs(hidden - (m * (f + b) - r.makespan)) < 1e-9);
        QVERIFY(std::abs(exposed + hidden - 2 * m * comm) < 1e-9);
        in.pairSteadyState = false;
        QVERIFY(qFuzzyCompare(simulatePipeline(in).makespan, m * (f + b)));
    }

    // Interleaved (Megatron pairs pp > 1 only there), the pairs never deadlock, beat
    // the unpaired order once there is a steady state, and every stage holds one
    // chunk-forward more at most (its extra warm-up forward).
    void pairedPipelines() {
        for (int p : {2, 3, 4, 8})
            for (int v : {2, 3, 4})
                for (int m : {2 * p, 4 * p, 8 * p}) {
                    const char* schedule = "interleaved";
                    PipelineInput in = equal(schedule, p, v, m, 1.0 / v, 2.0 / v, 0.3 / v, 0.3 / v);
                    const PipelineResult plain = simulatePipeline(in);
                    in.pairSteadyState = true;
                    const PipelineResult paired = simulatePipeline(in);
                    const QString row = QString("%1 p=%2 v=%3 m=%4").arg(schedule).arg(p).arg(v).arg(m);
                    QVERIFY2(paired.events.size() == plain.events.size(), qPrintable(row));
                    QVERIFY2(paired.makespan < plain.makespan, qPrintable(row));
                    for (int s = 0; s < p; ++s)
                        QVERIFY2(paired.peakInFlight[std::size_t(s)] == plain.peakInFlight[std::size_t(s)] + 1, qPrintable(row));
                    // Each pair saves what its halves hide, 0.3/v each way: every chunk-forward
                    // past the warm-up is paired.
                    for (int s = 0; s < p; ++s) {
                        const int pairs = m * v - std::min(m * v, 2 * (p - s - 1) + (v - 1) * p + 1);
                        QVERIFY2(std::abs(plain.busy[std::size_t(s)] - paired.busy[std::size_t(s)] - pairs * 0.6 / v) < 1e-9,
                                 qPrintable(row));
                    }
                }
        PipelineInput gpipe = equal("gpipe", 2, 1, 4, 1, 2, 0, 0);
        gpipe.pairSteadyState = true;
        QVERIFY_THROWS_EXCEPTION(SpecError, simulatePipeline(gpipe));
    }

    // In the cost model: the all-to-all the pairs hide is what the step loses, at pp 1
    // (no bubble to change), and only the expert share is hidden.
    void expertOverlapInTheCostModel() {
        const Estimate off = priced(kMixtral), on = priced(kMixtral, {"exec.overlap_moe_expert_parallel_comm=true"});
        QVERIFY(!off.expertCommPaired && on.expertCommPaired);
        const StageTime& t = off.stages[0].time;
        QVERIFY(t.exposed.ep > 0);
        const double hidden = on.breakdown.communicationHiddenBySchedule;
        QVERIFY(hidden > 0);
        QVERIFY(std::abs((off.stepSeconds - on.stepSeconds) - hidden) < 1e-9 * off.stepSeconds);
        // Dispatch and combine hide whole here, each shorter than the other half's
        // compute: every pair (all micro-batches but the first) hides both.
        const double mbn = 64.0 / 8;  // global batch over dp 8 (16 devices, tp 2)
        QVERIFY(std::abs(hidden - (mbn - 1) * t.exposed.ep) < 1e-9 * off.stepSeconds);
        QCOMPARE(on.peakMemory > off.peakMemory, true);  // one more micro-batch in flight
        QCOMPARE(on.stages[0].inFlightMicroBatches, 2);
    }

    // overlap_p2p_comm: the interleaved schedule's sends hide under the chunk beside
    // them (here each is far shorter); off, the stage waits for every one.
    void p2pOverlapInTheCostModel() {
        const Estimate on = priced(kInterleaved), off = priced(kInterleaved, {"exec.overlap_p2p_comm=false"});
        for (std::size_t s = 0; s < on.stages.size(); ++s) {
            QCOMPARE(on.stages[s].time.exposed.pp, 0.0);
            QVERIFY(off.stages[s].time.exposed.pp > 0);
            QVERIFY(std::abs(off.stages[s].time.exposed.pp - off.stages[s].time.pp) < 1e-15);
        }
        QVERIFY(off.stepSeconds > on.stepSeconds);
        // Unstated, it follows the schedule: off under 1f1b.
        const Estimate oneF = priced(kInterleaved, {"exec.vpp=1", "exec.pp_schedule=1f1b"});
        QVERIFY(oneF.stages[0].time.exposed.pp > 0);
    }

    // The distributed optimizer's parameter gather: the fitted share hidden with the
    // switch on (coefficients.h kParamGatherOverlap), all of it exposed with it off.
    void paramGatherSwitch() {
        const char* dense = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                            "exec: {tp: 2, seq_length: 4096, global_batch_size: 64, optimizer_parallel: true}\n";
        const Estimate on = priced(dense), off = priced(dense, {"exec.overlap_param_gather=false"});
        const StageTime& a = on.stages[0].time;
        const StageTime& b = off.stages[0].time;
        QCOMPARE(a.dp, b.dp);
        QVERIFY(b.dpExposed > a.dpExposed);
        // The difference is the hidden share of the gather; the gather is part of a.dp.
        QVERIFY(b.dpExposed - a.dpExposed < a.dp);
        QVERIFY(std::abs((off.stepSeconds - on.stepSeconds) - (b.dpExposed - a.dpExposed)) < 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestOverlap)
#include "tst_overlap.moc"
