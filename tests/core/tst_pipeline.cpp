// Pipeline schedules: the simulation against Megatron-LM's orders, the published
// bubbles and memory factors, and the closed forms the search uses instead.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <tuple>

#include "pipeline/schedule.h"
#include "spec/diagnostics.h"

using namespace tessera::core;

namespace {

// F and B are one micro-batch's time on a whole stage, split evenly over its chunks
// (powers of two, so the split is exact in binary).
PipelineInput equalInput(const QString& schedule, int p, int v, int m, double f = 1, double b = 2, double w = 0,
                         double p2p = 0) {
    PipelineInput in{schedule.toStdString(), p, v, m, {}, p2p, {}, {}};
    in.times.assign(p, std::vector<StageTimes>(v, StageTimes{f / v, b / v, w / v}));
    return in;
}

QList<int> toList(const std::vector<int>& v) { return QList<int>(v.begin(), v.end()); }

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

double duration(const PipelineInput& in, const PipelineEvent& e) {
    const StageTimes& t = in.times[e.stage][e.chunk];
    return e.phase == Phase::Forward ? t.forward : e.phase == Phase::Backward ? t.backward : t.weightGrad;
}

// Stage s's work in order, as "F0c1 B0c1 W0c1 ...".
QString stageOrder(const PipelineResult& r, int stage) {
    QStringList out;
    for (const PipelineEvent& e : r.events)
        if (e.stage == stage)
            out << QString("%1%2c%3").arg("FBW"[int(e.phase)]).arg(e.microBatch).arg(e.chunk);
    return out.join(' ');
}

}  // namespace

class TestPipeline : public QObject {
    Q_OBJECT
private slots:
    // (1) With equal stages the closed forms are the simulation, number for number.
    void closedFormsMatchEqualStages_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("w");
        for (const char* schedule : {"gpipe", "1f1b", "interleaved"})
            for (int p : {1, 2, 4, 8})
                for (int v : {1, 2, 4})
                    for (int m : {p, 2 * p, 8 * p})
                        for (double w : {0.0, 1.0}) {  // 1.0: a ZB-style split backward
                            if (QString(schedule) != "interleaved" && v != 1) continue;
                            QTest::addRow("%s p=%d v=%d m=%d w=%g", schedule, p, v, m, w) << schedule << p << v << m << w;
                        }
    }
    void closedFormsMatchEqualStages() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, v);
        QFETCH(int, m);
        QFETCH(double, w);
        const PipelineInput in = equalInput(schedule, p, v, m, 1, 2, w);
        const PipelineResult r = simulatePipeline(in);
        QVERIFY2(relative(closedFormMakespan(in), r.makespan) <= 1e-9,
                 qPrintable(QString("closed form %1, simulated %2").arg(closedFormMakespan(in)).arg(r.makespan)));
        QCOMPARE(toList(r.peakInFlight), toList(closedFormInFlight(in)));
        QCOMPARE(r.peakInFlightPerChunk, closedFormInFlightPerChunk(in));
    }

    // (2) Published bubbles and stage-0 activation factors (reference/published.md §5).
    void publishedBubbleAndMemory_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("bubble");
        QTest::addColumn<double>("layersHeld");  // stage 0, in units of the stage's layers
        // Narayanan et al. 2021 §2.1: 1F1B bubble (p-1)/(m+p-1), p micro-batches in flight.
        QTest::newRow("Narayanan 2021 1F1B p=4 m=8") << "1f1b" << 4 << 1 << 8 << 3.0 / 11 << 4.0;
        QTest::newRow("Narayanan 2021 1F1B p=8 m=64") << "1f1b" << 8 << 1 << 64 << 7.0 / 71 << 8.0;
        QTest::newRow("Narayanan 2021 1F1B p=16 m=16") << "1f1b" << 16 << 1 << 16 << 15.0 / 31 << 16.0;
        // Narayanan et al. 2021 §2.2: interleaved (p-1)/(vm+p-1), p·(1 + (p-1)/(pv)) held.
        for (auto [p, v, m] : {std::tuple{4, 2, 8}, {8, 2, 64}, {8, 4, 16}, {16, 4, 512}})
            QTest::addRow("Narayanan 2021 interleaved p=%d v=%d m=%d", p, v, m)
                << "interleaved" << p << v << m << double(p - 1) / (v * m + p - 1) << p * (1 + double(p - 1) / (p * v));
        // Huang et al. 2019: GPipe idles (p-1)/(m+p-1) of the step and holds all m.
        QTest::newRow("Huang 2019 GPipe p=4 m=16") << "gpipe" << 4 << 1 << 16 << 3.0 / 19 << 16.0;
    }
    void publishedBubbleAndMemory() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, v);
        QFETCH(int, m);
        QFETCH(double, bubble);
        QFETCH(double, layersHeld);
        const PipelineResult r = simulatePipeline(equalInput(schedule, p, v, m));
        QVERIFY(relative(r.bubbleFraction, bubble) <= 1e-9);
        QCOMPARE(double(r.peakInFlight[0]) / v, layersHeld);  // a chunk-forward holds 1/v of the stage's layers
    }

    // (3) Unequal stages: a seeded sweep of 300 draws per row, F_s in [0.5, 1.5],
    // B_s in [1, 3], half the draws with W_s in [0, 1], p in {2, 4, 8}, v in 1..4.
    // Every stage must run m·(F_s+B_s+W_s), so that bounds the step from below. The
    // closed forms are exact for gpipe always and for 1f1b when the last stage is
    // the slowest. The tolerances are what the sweep measured, rounded up, as
    // (closed - sim)/sim: 1f1b 0..+17.0% at m = p, 0..+3.4% at m = 8p (never under);
    // interleaved -16.7..+3.5% at m = p (Megatron runs every forward first there, its
    // all_warmup_microbatches: a slow stage then delays each chunk's whole wave),
    // -7.8..+20.0% at m = 2p, -2.2..+6.1% at m = 8p, and within -2.3..+4.2% when the
    // last stage is the slowest.
    void unequalStages_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("mPerStage");  // m = mPerStage · p
        QTest::addColumn<bool>("lastStageSlowest");
        QTest::addColumn<double>("under");  // allowed (sim - closed) / sim
        QTest::addColumn<double>("over");   // allowed (closed - sim) / sim
        const double exact = 1e-9;
        for (bool last : {false, true}) {
            const char* where = last ? "last stage slowest" : "any stage slowest";
            QTest::addRow("gpipe m=p, %s", where) << "gpipe" << 1 << last << exact << exact;
            QTest::addRow("gpipe m=8p, %s", where) << "gpipe" << 8 << last << exact << exact;
            QTest::addRow("1f1b m=p, %s", where) << "1f1b" << 1 << last << exact << (last ? exact : 0.18);
            QTest::addRow("1f1b m=8p, %s", where) << "1f1b" << 8 << last << exact << (last ? exact : 0.035);
            QTest::addRow("interleaved m=p, %s", where) << "interleaved" << 1 << last << (last ? 0.025 : 0.17) << (last ? 0.045 : 0.035);
            QTest::addRow("interleaved m=2p, %s", where) << "interleaved" << 2 << last << (last ? 0.025 : 0.08) << (last ? 0.045 : 0.21);
            QTest::addRow("interleaved m=8p, %s", where) << "interleaved" << 8 << last << (last ? 0.025 : 0.025) << (last ? 0.045 : 0.065);
        }
    }
    void unequalStages() {
        QFETCH(QString, schedule);
        QFETCH(int, mPerStage);
        QFETCH(bool, lastStageSlowest);
        QFETCH(double, under);
        QFETCH(double, over);
        std::mt19937 rng(2021);  // the engine's sequence is fixed by the standard
        auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
        for (int trial = 0; trial < 300; ++trial) {
            const int p = 2 << (trial % 3), v = schedule == "interleaved" ? 1 + trial % 4 : 1, m = mPerStage * p;
            PipelineInput in = equalInput(schedule, p, v, m);
            double lowerBound = 0;
            for (int s = 0; s < p; ++s) {
                double f = uniform(0.5, 1.5), b = uniform(1, 3), w = (trial / 12) % 2 ? 0.0 : uniform(0, 1);
                if (lastStageSlowest && s == p - 1) f *= 4, b *= 4;  // >= 6 against <= 5.5 elsewhere
                lowerBound = std::max(lowerBound, m * (f + b + w));
                for (StageTimes& t : in.times[s]) t = {f / v, b / v, w / v};
            }
            const double sim = simulatePipeline(in).makespan, closed = closedFormMakespan(in);
            const QString what = QString("p=%1 v=%2 m=%3: simulated %4, closed form %5").arg(p).arg(v).arg(m).arg(sim).arg(closed);
            QVERIFY2(sim >= lowerBound * (1 - 1e-12), qPrintable(what));
            QVERIFY2((sim - closed) / sim <= under, qPrintable(what));
            QVERIFY2((closed - sim) / sim <= over, qPrintable(what));
        }
    }

    // (4) The orders are Megatron-LM's (schedules.py), worked out by hand.
    void stageOrders_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("w");
        QTest::addColumn<int>("stage");
        QTest::addColumn<QString>("order");
        QTest::newRow("gpipe stage 0") << "gpipe" << 2 << 1 << 3 << 0.0 << 0 << "F0c0 F1c0 F2c0 B2c0 B1c0 B0c0";
        QTest::newRow("1f1b p=4 stage 1: 2 warm-up") << "1f1b" << 4 << 1 << 6 << 0.0 << 1
                                                    << "F0c0 F1c0 F2c0 B0c0 F3c0 B1c0 F4c0 B2c0 F5c0 B3c0 B4c0 B5c0";
        QTest::newRow("1f1b split backward") << "1f1b" << 2 << 1 << 2 << 1.0 << 0 << "F0c0 F1c0 B0c0 W0c0 B1c0 W1c0";
        // warm-up 2·1 + 1·2 = 4 on stage 0, 2 on stage 1; backward mirrors the chunk.
        QTest::newRow("interleaved p=2 v=2 stage 0")
            << "interleaved" << 2 << 2 << 4 << 0.0 << 0
            << "F0c0 F1c0 F0c1 F1c1 F2c0 B0c1 F3c0 B1c1 F2c1 B0c0 F3c1 B1c0 B2c1 B3c1 B2c0 B3c0";
        QTest::newRow("interleaved p=2 v=2 stage 1")
            << "interleaved" << 2 << 2 << 4 << 0.0 << 1
            << "F0c0 F1c0 F0c1 B0c1 F1c1 B1c1 F2c0 B0c0 F3c0 B1c0 F2c1 B2c1 F3c1 B3c1 B2c0 B3c0";
    }
    void stageOrders() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, v);
        QFETCH(int, m);
        QFETCH(double, w);
        QFETCH(int, stage);
        QFETCH(QString, order);
        QCOMPARE(stageOrder(simulatePipeline(equalInput(schedule, p, v, m, 1, 2, w)), stage), order);
    }

    // (4) Every event once, stages never double-booked, inputs arrive before use, and
    // the in-flight peak recounted from the timeline rather than from the order.
    void eventsAreConsistent_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("w");
        QTest::addColumn<double>("p2p");
        QTest::newRow("gpipe p=4 m=8, p2p") << "gpipe" << 4 << 1 << 8 << 0.0 << 0.1;
        QTest::newRow("1f1b p=4 m=8, split backward, p2p") << "1f1b" << 4 << 1 << 8 << 0.5 << 0.1;
        QTest::newRow("1f1b p=8 m=3 (m < p)") << "1f1b" << 8 << 1 << 3 << 0.0 << 0.0;
        QTest::newRow("interleaved p=4 v=3 m=8, p2p") << "interleaved" << 4 << 3 << 8 << 0.0 << 0.25;
        QTest::newRow("interleaved p=4 v=2 m=4, split backward") << "interleaved" << 4 << 2 << 4 << 1.0 << 0.0;
    }
    void eventsAreConsistent() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, v);
        QFETCH(int, m);
        QFETCH(double, w);
        QFETCH(double, p2p);
        PipelineInput in = equalInput(schedule, p, v, m, 1, 2, w, p2p);
        for (int s = 0; s < p; ++s)  // uneven, so waiting actually happens
            for (StageTimes& t : in.times[s]) {
                t.forward *= 1 + 0.3 * s;
                t.backward *= 1 + 0.2 * ((s * 7) % p);
            }
        const PipelineResult r = simulatePipeline(in);
        const int phases = w > 0 ? 3 : 2;
        QCOMPARE(int(r.events.size()), p * v * m * phases);

        std::map<std::tuple<int, int, int, int>, const PipelineEvent*> seen;
        for (const PipelineEvent& e : r.events)
            QVERIFY(seen.emplace(std::tuple{e.stage, e.microBatch, e.chunk, int(e.phase)}, &e).second);
        double makespan = 0;
        std::vector<double> busy(p, 0.0);
        for (std::size_t i = 0; i < r.events.size(); ++i) {
            const PipelineEvent& e = r.events[i];
            QVERIFY(std::abs(e.end - e.start - duration(in, e)) <= 1e-12);
            if (i > 0 && r.events[i - 1].stage == e.stage) QVERIFY(e.start >= r.events[i - 1].end - 1e-12);
            if (i > 0) QVERIFY(r.events[i - 1].stage <= e.stage);  // grouped by stage
            busy[e.stage] += e.end - e.start;
            makespan = std::max(makespan, e.end);
            // The input: previous position's forward, next position's backward, own forward at the end.
            const int pos = e.chunk * p + e.stage;
            int depPos = -1, depPhase = 0;
            if (e.phase == Phase::Forward && pos > 0) depPos = pos - 1, depPhase = int(Phase::Forward);
            if (e.phase == Phase::Backward)
                depPos = pos == p * v - 1 ? pos : pos + 1, depPhase = int(pos == p * v - 1 ? Phase::Forward : Phase::Backward);
            if (e.phase == Phase::WeightGrad) depPos = pos, depPhase = int(Phase::Backward);
            if (depPos < 0) continue;
            const PipelineEvent* dep = seen.at({depPos % p, e.microBatch, depPos / p, depPhase});
            QVERIFY(e.start >= dep->end + (dep->stage != e.stage ? p2p : 0.0) - 1e-12);
        }
        QCOMPARE(r.makespan, makespan);
        for (int s = 0; s < p; ++s) QVERIFY(std::abs(r.busy[s] - busy[s]) <= 1e-9);

        for (int s = 0; s < p; ++s) {  // held over [forward start, backward end)
            std::vector<std::pair<double, int>> edges;
            for (const PipelineEvent& e : r.events)
                if (e.stage == s && e.phase != Phase::WeightGrad)
                    edges.push_back(e.phase == Phase::Forward ? std::pair{e.start, +1} : std::pair{e.end, -1});
            std::sort(edges.begin(), edges.end());  // at a tie the release (-1) sorts first
            int held = 0, peak = 0;
            for (auto [t, d] : edges) peak = std::max(peak, held += d);
            QCOMPARE(r.peakInFlight[s], peak);
        }
    }

    // (5) Refuse rather than default: each message names the field.
    void refusals_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("interleaved m % p") << "m" << "the interleaved schedule needs a multiple of stages (4), got 6";
        QTest::newRow("unknown schedule") << "schedule" << "expected one of gpipe, 1f1b, interleaved, zb-h1, zbv, dualpipe, dualpipev, seqpipe, v-half, v-min, zb-h2, seqsmartvpp; got 'zb-v'";
        QTest::newRow("too few stage rows") << "rows" << "pipeline.times: expected one row per stage (4), got 3";
        QTest::newRow("too few chunks") << "chunks" << "pipeline.times[2]: expected one entry per chunk (2), got 1";
        QTest::newRow("chunks on 1f1b") << "1f1b" << "pipeline.chunks: only the interleaved, V and dual schedules have more than one chunk";
        QTest::newRow("no micro-batches") << "m0" << "pipeline.microBatches: must be at least 1, got 0";
        QTest::newRow("negative time") << "negative" << "pipeline.times[1][0]: durations must be finite and non-negative";
        QTest::newRow("NaN p2p") << "p2p" << "pipeline.p2pSeconds: must be finite and non-negative";
        QTest::newRow("too long to simulate") << "huge" << "pipeline.microBatches: at most 4194304 events (3 a micro-batch, chunk and stage) are simulated, got 6291456";
    }
    void refusals() {
        QFETCH(QString, what);
        QFETCH(QString, message);
        PipelineInput in = equalInput("interleaved", 4, 2, 8);
        if (what == "m") in.microBatches = 6;
        if (what == "schedule") in.schedule = "zb-v";
        if (what == "rows") in.times.pop_back();
        if (what == "chunks") in.times[2].pop_back();
        if (what == "1f1b") in.schedule = "1f1b";
        if (what == "m0") in.microBatches = 0;
        if (what == "negative") in.times[1][0].backward = -1;
        if (what == "p2p") in.p2pSeconds = std::nan("");
        if (what == "huge") in.microBatches = 1 << 18;  // 3 · 4 stages · 2 chunks · 2^18
        for (int call = 0; call < (what == "huge" ? 1 : 4); ++call) {  // the closed forms walk no events
            try {
                if (call == 0) simulatePipeline(in);
                if (call == 1) closedFormMakespan(in);
                if (call == 2) closedFormInFlight(in);
                if (call == 3) closedFormInFlightPerChunk(in);
                QFAIL("accepted");
            } catch (const SpecError& e) {
                QVERIFY2(QString(e.what()).contains(message), e.what());
            }
        }
    }

    // (6) A production-sized interleaved run: 16 stages, 4 chunks, 512 micro-batches.
    void largeInterleaved() {
        const PipelineInput in = equalInput("interleaved", 16, 4, 512);
        const PipelineResult r = simulatePipeline(in);
        QCOMPARE(int(r.events.size()), 16 * 4 * 512 * 2);
        QVERIFY(relative(r.makespan, closedFormMakespan(in)) <= 1e-9);
        QCOMPARE(r.peakInFlight[0], 2 * 15 + 3 * 16 + 1);
        QCOMPARE(toList(r.peakInFlight), toList(closedFormInFlight(in)));
    }
};

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
