// V-Half and V-Min (Qi et al. 2024, "Pipeline Parallelism with Controllable Memory",
// arXiv 2405.15362): the order each stage runs, held op for op to the authors' own
// scheduler's output; the memory and bubble the paper claims against 1F1B; and the
// cost model pricing them from the simulation.
#include <QtTest>

#include <fstream>
#include <sstream>

#include "costhelpers.h"
#include "model/estimate.h"
#include "pipeline/orders.h"
#include "pipeline/schedule.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

PipelineInput equalStages(const std::string& schedule, int p, int m, double f, double b, double w) {
    const bool v = schedule != "1f1b";
    PipelineInput in;
    in.schedule = schedule, in.stages = p, in.chunks = v ? 2 : 1, in.microBatches = m;
    // A V chunk is half a stage: the same stage's work either way.
    const double share = v ? 0.5 : 1.0;
    in.times.assign(std::size_t(p), std::vector<StageTimes>(std::size_t(in.chunks), StageTimes{f * share, b * share, w * share}));
    return in;
}

// The most chunk-forwards' activations a stage keeps at once, a weight gradient's
// inputs counted until it runs (the paper's accounting: a chunk's memory lives until W).
int peakKept(const PipelineResult& r, int s) {
    int best = 0;
    for (const MemoryPoint& pt : r.memory[std::size_t(s)]) best = std::max(best, pt.held + pt.waitingWeightGrads);
    return best;
}

// The scheduler's type numbers (zbv_greedy.py's 'FfBbWw') for an event.
int referenceType(const PipelineEvent& e) {
    switch (e.phase) {
    case Phase::Forward: return e.chunk;
    case Phase::Backward: return e.chunk == 1 ? 2 : 3;
    case Phase::WeightGrad: return e.chunk == 1 ? 4 : 5;
    }
    return -1;
}

std::string mixtral(const std::string& schedule) {
    return "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 64}\n"
           "exec: {dp: 8, tp: 1, pp: 8, ep: 8, seq_length: 4096, micro_batch_size: 1, micro_batch_num: 32, "
           "optimizer_parallel: true, pp_schedule: " + schedule + (schedule == "1f1b" ? "" : ", vpp: 2") + "}\n";
}

}  // namespace

class TestControllable : public QObject {
    Q_OBJECT
private slots:
    // tests/data/schedules/controllable-memory.txt holds the authors' scheduler's own
    // output (the file names the commit and the call): every stage's order, op for op.
    void ordersAreTheAuthorsScheduler() {
        std::ifstream file(TESSERA_TEST_DATA "/schedules/controllable-memory.txt");
        QVERIFY(file.good());
        std::string line;
        int blocks = 0;
        while (std::getline(file, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream head(line);
            std::string schedule;
            int p = 0, m = 0;
            head >> schedule >> p >> m;
            const PipelineResult r = simulatePipeline(equalStages(schedule, p, m, 1, 1, 1));
            for (int s = 0; s < p; ++s) {
                QVERIFY(std::getline(file, line));
                std::string ours;
                for (const PipelineEvent& e : r.events)
                    if (e.stage == s)
                        ours += (ours.empty() ? "" : " ") + std::to_string(referenceType(e)) + ":" + std::to_string(e.microBatch);
                QVERIFY2(ours == line, qPrintable(QString("%1 p %2 m %3 stage %4:\n ours   %5\n theirs %6")
                                                      .arg(schedule.c_str()).arg(p).arg(m).arg(s).arg(ours.c_str(), line.c_str())));
            }
            ++blocks;
        }
        QCOMPARE(blocks, 6);
    }

    // The paper's claims (abstract and §4; published.md §5's row): with F = B = W, V-Half
    // keeps about half of 1F1B's activations and V-Min a third, for a bubble of about
    // half and two thirds of 1F1B's (p-1)(F+B+W). 1F1B's stage 0 keeps p micro-batches
    // of a whole stage, 2p chunk-forwards of half a stage. The counts: V-Half p + 2
    // chunk-forwards (p/2 + 1 stages' worth), V-Min 2·ceil(p/3) + 2 at most.
    void memoryAndBubbleAgainst1F1B_data() {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("m");
        for (int p : {2, 3, 4, 6, 8, 12, 16})
            for (int m : {2 * p, 4 * p}) QTest::addRow("p %d m %d", p, m) << p << m;
    }
    void memoryAndBubbleAgainst1F1B() {
        QFETCH(int, p);
        QFETCH(int, m);
        const double work = 3.0 * m;  // F + B + W = 3 a micro-batch a stage
        const PipelineResult one = simulatePipeline(equalStages("1f1b", p, m, 1, 1, 1));
        const double oneBubble = (p - 1) * 3.0;  // 1F1B with the backward whole
        for (const std::string schedule : {"v-half", "v-min"}) {
            const bool half = schedule == "v-half";
            const PipelineResult r = simulatePipeline(equalStages(schedule, p, m, 1, 1, 1));
            const double bubble = r.makespan - work;
            int most = 0;
            for (int s = 0; s < p; ++s) most = std::max(most, peakKept(r, s));
            const int bound = half ? p + 2 : 2 * ((p + 2) / 3) + 2;
            qInfo("%s p %d m %d: keeps %d chunk-forwards (1F1B %d), bubble %.1f (1F1B %.1f, %.2fx)", schedule.c_str(), p, m,
                  most, 2 * one.peakInFlight[0], bubble, oneBubble, bubble / oneBubble);
            QVERIFY2(most <= bound, qPrintable(QString("%1 keeps %2, bound %3").arg(schedule.c_str()).arg(most).arg(bound)));
            if (p >= 3) QVERIFY(most < 2 * p);
            if (p >= 16) QVERIFY(most <= (half ? 0.6 : 0.4) * 2 * p);  // toward 1/2 and 1/3 as p grows
            QVERIFY(bubble >= 0);
            QVERIFY2(bubble <= (half ? 0.5 : 2.0 / 3.0) * oneBubble + 1e-9,
                     qPrintable(QString("%1 bubble %2 against 1F1B's %3").arg(schedule.c_str()).arg(bubble).arg(oneBubble)));
            // The steady state keeps the block: the bubble does not grow with m.
            const PipelineResult longer = simulatePipeline(equalStages(schedule, p, 2 * m, 1, 1, 1));
            QCOMPARE(longer.makespan - 6.0 * m, bubble);
        }
    }

    // The order is fixed by the block, built for F = B = W; with a weight gradient shorter
    // than the input gradient (as real layers have it) V-Min's steady state waits on its
    // own dependencies every block, so its bubble grows with m. V-Half's does not: the
    // simulation times the order on the real times, which is what a run would do.
    void unequalTimes() {
        const int p = 4;
        auto bubble = [&](const std::string& s, int m) {
            return simulatePipeline(equalStages(s, p, m, 0.8, 0.9, 0.56)).makespan - 2.26 * m;
        };
        QVERIFY(bubble("v-min", 64) > 2 * bubble("v-min", 16));
        QVERIFY(std::abs(bubble("v-half", 64) - bubble("v-half", 16)) < 1e-9);
        QVERIFY(bubble("v-half", 64) < bubble("1f1b", 64));
    }

    // Through the cost model: a V like zbv (the same stages, parameters and step's work),
    // priced by the simulation, with less activation memory on the busiest stage.
    void pricedAsAV() {
        const Estimate zbv = estimate(resolveYaml(mixtral("zbv")));
        const Estimate half = estimate(resolveYaml(mixtral("v-half")));
        const Estimate min = estimate(resolveYaml(mixtral("v-min")));
        const Estimate one = estimate(resolveYaml(mixtral("1f1b")));
        for (const Estimate* e : {&half, &min}) {
            QCOMPARE(e->stages.size(), zbv.stages.size());
            QCOMPARE(e->perDeviceMaxParameters, zbv.perDeviceMaxParameters);
            QCOMPARE(e->tokensPerSecond * e->stepSeconds, zbv.tokensPerSecond * zbv.stepSeconds);
        }
        auto activations = [](const Estimate& e) {
            Bytes most = 0;
            for (const StageEstimate& s : e.stages) most = std::max(most, s.memory.activations);
            return double(most);
        };
        qInfo("most activations on a stage, GiB: 1f1b %.2f, zbv %.2f, v-half %.2f, v-min %.2f", activations(one) / (1 << 30),
              activations(zbv) / (1 << 30), activations(half) / (1 << 30), activations(min) / (1 << 30));
        qInfo("step, s: 1f1b %.3f, zbv %.3f, v-half %.3f, v-min %.3f", one.stepSeconds, zbv.stepSeconds, half.stepSeconds,
              min.stepSeconds);
        QVERIFY(activations(half) < 0.7 * activations(zbv));
        QVERIFY(activations(min) < activations(half));
        QVERIFY(activations(half) < activations(one));
        QVERIFY(half.stepSeconds < one.stepSeconds);
    }

    // A long search asks for many shapes: what the cache keeps stays within its bound,
    // the oldest let go, an order larger than the bound alone built and not kept, and a
    // shape asked again after eviction built again alike.
    void cacheBoundedBySize() {
        using namespace pipeline_detail;
        const auto first = controllableMemoryOrders(true, 16, 2000);
        const StageOrders kept = *first;
        std::size_t most = 0;
        for (int m = 2001; m < 2030; ++m) {  // 29 shapes of 192,000 steps: more than the bound
            controllableMemoryOrders(m % 2 == 0, 16, m);
            most = std::max(most, controllableStepsKept());
        }
        QVERIFY(most <= kKeptControllableSteps);
        QVERIFY(most > kKeptControllableSteps / 2);
        const std::size_t before = controllableStepsKept();
        const auto huge = controllableMemoryOrders(false, 64, 11000);  // 4,224,000 steps, over the bound alone
        std::size_t hugeSteps = 0;
        for (const auto& o : *huge) hugeSteps += o.size();
        QVERIFY(hugeSteps > kKeptControllableSteps);
        QCOMPARE(controllableStepsKept(), before);
        const auto again = controllableMemoryOrders(true, 16, 2000);  // evicted by now: built again
        QVERIFY(again.get() != first.get());
        QCOMPARE(again->size(), kept.size());
        for (std::size_t s = 0; s < kept.size(); ++s) {
            QCOMPARE((*again)[s].size(), kept[s].size());
            for (std::size_t i = 0; i < kept[s].size(); ++i) {
                QCOMPARE((*again)[s][i].op.microBatch, kept[s][i].op.microBatch);
                QCOMPARE((*again)[s][i].op.chunk, kept[s][i].op.chunk);
                QCOMPARE(int((*again)[s][i].op.phase), int(kept[s][i].op.phase));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestControllable)
#include "tst_controllable.moc"
