// The sequence pipelines: seqpipe (Seq1F1B) and seqsmartvpp (Seq1F1B-I), Sun et al.
// 2024, the seed's schedules with seq_split. Their closed forms against the
// simulation, their orders worked out from the source, and what they refuse.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "pipeline/closedform.h"
#include "pipeline/schedule.h"
#include "spec/diagnostics.h"

using namespace tessera::core;

namespace {

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

QString stageOrder(const PipelineResult& r, int stage) {
    QStringList out;
    for (const PipelineEvent& e : r.events)
        if (e.stage == stage) out << QString("%1%2.%3c%4").arg("FBW"[int(e.phase)]).arg(e.microBatch).arg(e.part).arg(e.chunk);
    return out.join(' ');
}

}  // namespace

class TestSeqPipe : public QObject {
    Q_OBJECT
private slots:
    // seqpipe (Seq1F1B, Sun et al. 2024): 1F1B over m·n sequence parts of 1/n of the
    // micro-batch each, so equal stages idle (p-1)(F+B)/n, 1F1B's bubble cut n times,
    // and stage s holds p - s + n - 1 parts (the seed's base - s + n - 1, reference §4.8).
    // The closed forms the cost model uses against the simulation, on a grid.
    void seqPipeClosedForms() {
        for (int p : {1, 2, 3, 4, 8})
            for (int n : {1, 2, 4, 8})
                for (int m : {1, 2, p, 4 * p}) {
                    PipelineInput in;
                    in.schedule = "seqpipe", in.stages = p, in.chunks = 1, in.microBatches = m, in.seqSplit = n;
                    in.times.assign(std::size_t(p), std::vector<StageTimes>(1, StageTimes{1.0 / n, 2.0 / n, 0, 0, 0}));
                    in.keptBytes.assign(std::size_t(p), std::vector<double>(1, 64.0 / n));
                    const PipelineResult r = simulatePipeline(in);
                    const QString row = QString("p=%1 n=%2 m=%3").arg(p).arg(n).arg(m);
                    QVERIFY2(std::abs(r.makespan - (m * n + p - 1) * 3.0 / n) < 1e-9, qPrintable(row));
                    QVERIFY2(std::abs(closedFormMakespan(in) - r.makespan) < 1e-9, qPrintable(row));
                    const std::vector<int> held = closedFormInFlight(in);
                    for (int st = 0; st < p; ++st) {
                        QVERIFY2(r.peakInFlight[std::size_t(st)] == std::min(p - st + n - 1, m * n), qPrintable(row));
                        QCOMPARE(held[std::size_t(st)], r.peakInFlight[std::size_t(st)]);
                        QCOMPARE(r.peakBytes[std::size_t(st)], r.peakInFlight[std::size_t(st)] * 64.0 / n);
                    }
                }
    }

    // The order Seq1F1B keeps: forwards walk a micro-batch's parts in sequence order (a
    // part attends to the ones before it), backwards in reverse (its keys' and values'
    // gradients come from the later parts), and the last stage runs all n forwards of
    // micro-batch 0 before its first backward, at part n-1.
    void seqPipeOrder() {
        const int p = 3, n = 4, m = 3;
        PipelineInput in;
        in.schedule = "seqpipe", in.stages = p, in.chunks = 1, in.microBatches = m, in.seqSplit = n;
        in.times.assign(std::size_t(p), std::vector<StageTimes>(1, StageTimes{0.25, 0.5, 0, 0, 0}));
        const PipelineResult r = simulatePipeline(in);
        for (int st = 0; st < p; ++st) {
            std::vector<std::pair<int, int>> forwards, backwards;  // (micro-batch, part) in start order
            for (const PipelineEvent& e : r.events)
                if (e.stage == st) (e.phase == Phase::Forward ? forwards : backwards).push_back({e.microBatch, e.part});
            QCOMPARE(int(forwards.size()), m * n);
            for (int k = 0; k < m * n; ++k) {
                QCOMPARE(forwards[std::size_t(k)], std::make_pair(k / n, k % n));
                QCOMPARE(backwards[std::size_t(k)], std::make_pair(k / n, n - 1 - k % n));
            }
        }
        std::vector<const PipelineEvent*> last;
        for (const PipelineEvent& e : r.events)
            if (e.stage == p - 1) last.push_back(&e);
        for (int k = 0; k < n; ++k) QCOMPARE(last[std::size_t(k)]->phase, Phase::Forward);
        QCOMPARE(last[std::size_t(n)]->phase, Phase::Backward);
        QCOMPARE(last[std::size_t(n)]->part, n - 1);
        // A split of one is 1f1b, event for event.
        in.seqSplit = 1;
        in.times.assign(std::size_t(p), std::vector<StageTimes>(1, StageTimes{1, 2, 0, 0, 0}));
        const PipelineResult one = simulatePipeline(in);
        in.schedule = "1f1b";
        QCOMPARE(one.makespan, simulatePipeline(in).makespan);
        in.seqSplit = 2;
        QVERIFY_THROWS_EXCEPTION(SpecError, simulatePipeline(in));  // only seqpipe splits a micro-batch
    }

    // seqsmartvpp (Seq1F1B-I, Sun et al. 2024, its interleaved variant; thunlp/Seq1F1B's interleaved
    // schedules.py): Megatron's interleaved table over the m·n sequence parts, with n - 1
    // more warm-up parts. Equal stages: m·X + (p - 1)X/(v·n), interleaved's bubble cut n
    // times; stage s holds 2(p-s-1) + (v-1)p + n chunk-parts of 1/n of a micro-batch's
    // chunk (the seed: interleaved's count "with the last chunk shifted by n - 1", §4.8),
    // and every chunk-part forward at m = p (the all-warm-up case). The grid runs every
    // n dividing p: none deadlocks, and the closed forms the cost model uses are exact.
    void seqSmartVppClosedForms() {
        for (int p : {2, 3, 4, 6, 8})
            for (int v : {2, 3, 4})
                for (int n = 1; n <= p; ++n)
                    for (int m : {p, 2 * p, 4 * p}) {
                        if (p % n != 0) continue;
                        PipelineInput in;
                        in.schedule = "seqsmartvpp", in.stages = p, in.chunks = v, in.microBatches = m, in.seqSplit = n;
                        const double f = 1.0 / (n * v), b = 2.0 / (n * v);
                        in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(v), StageTimes{f, b, 0, 0, 0}));
                        in.keptBytes.assign(std::size_t(p), std::vector<double>(std::size_t(v), 64.0 / (n * v)));
                        const QString row = QString("p=%1 v=%2 n=%3 m=%4").arg(p).arg(v).arg(n).arg(m);
                        PipelineResult r;
                        try {
                            r = simulatePipeline(in);
                        } catch (const std::logic_error& e) {
                            QFAIL(qPrintable(row + ": " + e.what()));
                        }
                        const double form = 3.0 * m + 3.0 * (p - 1) / (v * n);
                        QVERIFY2(relative(r.makespan, form) < 1e-9, qPrintable(row + QString(": %1 against %2").arg(r.makespan).arg(form)));
                        QVERIFY2(relative(closedFormMakespan(in), r.makespan) < 1e-9, qPrintable(row));
                        const std::vector<int> held = closedFormInFlight(in);
                        for (int st = 0; st < p; ++st) {
                            const int want = m == p ? m * n * v : std::min(2 * (p - st - 1) + (v - 1) * p + n, m * n * v);
                            QVERIFY2(r.peakInFlight[std::size_t(st)] == want,
                                     qPrintable(row + QString(" stage %1: %2 against %3").arg(st).arg(r.peakInFlight[std::size_t(st)]).arg(want)));
                            QCOMPARE(held[std::size_t(st)], want);
                            QVERIFY(relative(r.peakBytes[std::size_t(st)], want * 64.0 / (n * v)) < 1e-12);
                        }
                    }
    }

    // The order Seq1F1B-I keeps on each stage: forwards walk the interleaved table over
    // parts (p units of chunk 0, then the same p of chunk 1, ...), so a micro-batch's
    // parts run forward in sequence order on every chunk; each chunk's backwards take
    // the micro-batches in order and their parts last first; the last stage's first
    // backward is micro-batch 0's last part on the last chunk. A split of one is
    // interleaved, event for event.
    void seqSmartVppOrder() {
        const int p = 4, v = 2, n = 2, m = 8;
        PipelineInput in;
        in.schedule = "seqsmartvpp", in.stages = p, in.chunks = v, in.microBatches = m, in.seqSplit = n;
        in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(v), StageTimes{0.25, 0.5, 0, 0, 0}));
        const PipelineResult r = simulatePipeline(in);
        for (int st = 0; st < p; ++st) {
            std::map<int, std::vector<std::pair<int, int>>> forwards, backwards;  // per chunk: (micro-batch, part) in start order
            std::vector<const PipelineEvent*> own;
            for (const PipelineEvent& e : r.events)
                if (e.stage == st) {
                    (e.phase == Phase::Forward ? forwards : backwards)[e.chunk].push_back({e.microBatch, e.part});
                    if (e.phase == Phase::Forward) own.push_back(&e);
                }
            for (int c = 0; c < v; ++c) {
                QCOMPARE(int(forwards[c].size()), m * n);
                for (int k = 0; k < m * n; ++k) {
                    QCOMPARE(forwards[c][std::size_t(k)], std::make_pair(k / n, k % n));
                    QCOMPARE(backwards[c][std::size_t(k)], std::make_pair(k / n, n - 1 - k % n));
                }
            }
            // The table: the k-th forward is unit (k / pv)·p + k mod p of chunk (k mod pv) / p.
            for (int k = 0; k < m * n * v; ++k) {
                const int unit = k / (p * v) * p + k % p, chunk = k % (p * v) / p;
                QCOMPARE(std::make_tuple(own[std::size_t(k)]->microBatch, own[std::size_t(k)]->part, own[std::size_t(k)]->chunk),
                         std::make_tuple(unit / n, unit % n, chunk));
            }
        }
        std::vector<const PipelineEvent*> last;
        for (const PipelineEvent& e : r.events)
            if (e.stage == p - 1) last.push_back(&e);
        const int warm = (v - 1) * p + n - 1;
        for (int k = 0; k <= warm; ++k) QCOMPARE(last[std::size_t(k)]->phase, Phase::Forward);
        QCOMPARE(last[std::size_t(warm + 1)]->phase, Phase::Backward);
        QCOMPARE(std::make_tuple(last[std::size_t(warm + 1)]->microBatch, last[std::size_t(warm + 1)]->part, last[std::size_t(warm + 1)]->chunk),
                 std::make_tuple(0, n - 1, v - 1));
        in.seqSplit = 1;
        in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(v), StageTimes{1, 2, 0, 0, 0}));
        const PipelineResult one = simulatePipeline(in);
        in.schedule = "interleaved";
        const PipelineResult chunks = simulatePipeline(in);
        QCOMPARE(one.makespan, chunks.makespan);
        QCOMPARE(stageOrder(one, 0), stageOrder(chunks, 0));
        QCOMPARE(stageOrder(one, p - 1), stageOrder(chunks, p - 1));
    }

    // Memory over time, both sequence pipelines: each stage's points run forward in
    // time, end with nothing held, peak at the closed form the cost model uses, and
    // reach it exactly when the stage's first backward starts (the warm-up's parts and
    // the one forward beside it); the byte peak is that many parts of 1/n.
    void memoryOverTime_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("v");
        QTest::addColumn<int>("n");
        for (int p : {2, 4, 8})
            for (int n : {2, p}) {
                QTest::addRow("seqpipe p=%d n=%d", p, n) << "seqpipe" << p << 1 << n;
                QTest::addRow("seqsmartvpp p=%d n=%d v=2", p, n) << "seqsmartvpp" << p << 2 << n;
                QTest::addRow("seqsmartvpp p=%d n=%d v=3", p, n) << "seqsmartvpp" << p << 3 << n;
            }
    }
    void memoryOverTime() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, v);
        QFETCH(int, n);
        PipelineInput in;
        in.schedule = schedule.toStdString(), in.stages = p, in.chunks = v, in.microBatches = 4 * p, in.seqSplit = n;
        in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(v), StageTimes{1.0 / n, 2.0 / n, 0, 0, 0}));
        const double kept = 12.0 / n;
        in.keptBytes.assign(std::size_t(p), std::vector<double>(std::size_t(v), kept));
        const PipelineResult r = simulatePipeline(in);
        const std::vector<int> form = closedFormInFlight(in);
        for (int s = 0; s < p; ++s) {
            const auto& points = r.memory[std::size_t(s)];
            int peak = 0;
            double last = 0;
            for (const MemoryPoint& pt : points) {
                QVERIFY(pt.time >= last - 1e-12 && pt.held >= 0);
                last = pt.time, peak = std::max(peak, pt.held);
            }
            QCOMPARE(points.back().held, 0);
            QCOMPARE(peak, form[std::size_t(s)]);
            QCOMPARE(r.peakBytes[std::size_t(s)], peak * kept);
            double firstBackward = -1;
            for (const PipelineEvent& e : r.events)
                if (e.stage == s && e.phase == Phase::Backward) {
                    firstBackward = e.start;
                    break;
                }
            int heldThen = 0;
            for (const MemoryPoint& pt : points)
                if (pt.time <= firstBackward + 1e-12) heldThen = pt.held;
            QCOMPARE(heldThen, peak);
        }
    }

    // What Seq1F1B-I cannot run is refused by name: parts that do not divide the stages
    // (a micro-batch straddling two groups of the table deadlocks: its last part's
    // backward is due before the table runs that part's forward), one chunk (that is
    // seqpipe), micro-batches outside groups of p.
    void seqSmartVppRefusals_data() {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("microBatches");
        QTest::addColumn<int>("split");
        QTest::addColumn<QString>("message");
        QTest::newRow("parts above stages") << 2 << 8 << 8 << "pipeline.seqSplit: seqsmartvpp walks the interleaved table in groups of the 4 stages";
        QTest::newRow("parts across groups") << 2 << 8 << 3 << "seq_split must divide them, got 3";
        QTest::newRow("one chunk") << 1 << 8 << 2 << "pipeline.chunks: seqsmartvpp interleaves chunks and needs at least 2";
        QTest::newRow("short group") << 2 << 6 << 2 << "pipeline.microBatches: the seqsmartvpp schedule needs a multiple of stages (4), got 6";
    }
    void seqSmartVppRefusals() {
        QFETCH(int, chunks);
        QFETCH(int, microBatches);
        QFETCH(int, split);
        QFETCH(QString, message);
        PipelineInput in;
        in.schedule = "seqsmartvpp", in.stages = 4, in.chunks = chunks, in.microBatches = microBatches, in.seqSplit = split;
        in.times.assign(4, std::vector<StageTimes>(std::size_t(chunks), StageTimes{1, 2, 0, 0, 0}));
        try {
            simulatePipeline(in);
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestSeqPipe)
#include "tst_seqpipe.moc"
