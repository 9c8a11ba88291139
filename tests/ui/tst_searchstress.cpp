// The GUI's search worker under stress: a thousand rounds of SearchController - start,
// watch progress, cancel, restart, destroy mid-search, wait for the end - in a seeded
// random order on a small search space. After every signal the invariants hold:
//  - a result arrives only for the controller's current generation (a restart drops
//    the searches before it, however late they end);
//  - each generation finishes at most once, and the last one started finishes exactly
//    once unless the controller is destroyed first;
//  - progress comes only while the current search runs, with fractions in [0, 1] and
//    counts that never go back;
//  - destroying the controller mid-search ends cleanly (no crash, nothing left behind
//    in the thread pool at the end).
// Written to be run under the sanitizers (tests/sanitize/run.sh) as much as in the
// normal build, where it takes a few seconds. TESSERA_STRESS_SEED replays another order.
#include <QThreadPool>
#include <QtTest>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>

#include "io/scenarioio.h"
#include "workers/searchcontroller.h"

using namespace tessera;
using tessera::ui::SearchController;
using tessera::ui::SearchOutcome;

namespace {

constexpr int kRounds = 1000;
constexpr int kTimeoutMs = 120000;  // sanitizers make a search many times slower

// 11,520 candidates, a few milliseconds: small enough for a thousand rounds, large
// enough that the steps below land mid-search. The closed-form schedules only: `auto`
// adds the simulated ones, several times the time under TSan for nothing this tests.
const char* kSmall =
    "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\nexec: {seq_length: 4096}\n"
    "search:\n  space: {tp: auto, pp: auto, vpp: auto, micro_batch_size: auto, recompute: auto,\n"
    "          sequence_parallel: auto, pp_schedule: [gpipe, 1f1b, interleaved],\n"
    "          optimizer_parallel: auto}\n"
    "  constraints: {global_batch_size: 64}\n";

unsigned seed() {
    const char* s = std::getenv("TESSERA_STRESS_SEED");
    return s ? unsigned(std::strtoul(s, nullptr, 10)) : 20240601u;
}

// One controller and what it has been seen to do. Violations are collected as text
// (the signal handlers cannot QVERIFY) and checked by the test after each step.
struct Watched {
    std::set<quint64> finished, superseded;
    bool cancelRequested = false;  // for the current generation
    qulonglong lastCount = 0;
    int progressReports = 0;
    QStringList violations;
    // Last, so it is destroyed first: its destructor waits while the sets above exist.
    std::unique_ptr<SearchController> controller = std::make_unique<SearchController>();

    Watched() {
        SearchController* c = controller.get();
        QObject::connect(c, &SearchController::finished, c, [this, c](std::shared_ptr<const SearchOutcome> o) {
            const quint64 g = o->generation;
            if (g != c->generation()) violations << QString("a stale result: generation %1 while %2 is current").arg(g).arg(c->generation());
            if (superseded.count(g)) violations << QString("generation %1 finished after a restart").arg(g);
            if (!finished.insert(g).second) violations << QString("generation %1 finished twice").arg(g);
            if (!o->error.isEmpty()) violations << "an error: " + o->error;
            const core::SearchResult& r = o->result;
            if (r.cancelled != (r.visited < r.spaceSize)) violations << "cancelled does not match what was visited";
            if (r.cancelled && !cancelRequested) violations << QString("generation %1 cancelled without a cancel").arg(g);
            if (!r.cancelled && r.top.empty()) violations << "a whole search with no result";
        });
        QObject::connect(c, &SearchController::progress, c, [this, c](double fraction, qulonglong n, const QString&) {
            ++progressReports;
            if (finished.count(c->generation())) violations << "progress after the search finished";
            if (fraction < 0 || fraction > 1) violations << QString("progress fraction %1").arg(fraction);
            if (n < lastCount) violations << QString("progress went back from %1 to %2").arg(lastCount).arg(n);
            lastCount = n;
        });
    }

    void start(const core::Scenario& s, int threads) {
        const quint64 before = controller->generation();
        if (before && !finished.count(before)) superseded.insert(before);
        cancelRequested = false;
        lastCount = 0;
        controller->start(s, threads);
    }
    void cancel() {
        cancelRequested = true;
        controller->cancel();
    }
    bool currentFinished() const { return finished.count(controller->generation()) > 0; }
};

void pump(int ms) {
    if (ms > 0)
        QTest::qWait(ms);
    else
        QCoreApplication::processEvents();
}

}  // namespace

class TestSearchStress : public QObject {
    Q_OBJECT
private slots:
    void startCancelRestartDestroy() {
        const core::Scenario scenario = core::parseScenario(kSmall, "stress.yaml", core::Format::Yaml, "");
        const unsigned s = seed();
        std::mt19937 random(s);
        std::unique_ptr<Watched> w;
        int starts = 0, restarts = 0, cancels = 0, destroyedMidway = 0, waited = 0, progressSeen = 0;
        QElapsedTimer clock;
        clock.start();

        for (int round = 0; round < kRounds; ++round) {
            const QByteArray where = "round " + QByteArray::number(round) + " (seed " + QByteArray::number(s) + ")";
            if (!w) w = std::make_unique<Watched>();
            w->start(scenario, 1 + int(random() % 2));
            ++starts;

            // One to four steps while it runs, then perhaps a wait for the end.
            bool destroyed = false;
            for (int steps = 1 + int(random() % 4); steps > 0 && !destroyed; --steps) {
                switch (random() % 6) {
                case 0:  // let it run a little
                    pump(int(random() % 4));
                    break;
                case 1: {  // watch it report progress (or end)
                    const int seen = w->progressReports;
                    QVERIFY2(QTest::qWaitFor([&] { return w->progressReports > seen || w->currentFinished(); }, kTimeoutMs),
                             where + ": neither progress nor an end");
                    progressSeen += w->progressReports > seen;
                    break;
                }
                case 2:
                    w->cancel();
                    ++cancels;
                    break;
                case 3:
                    w->start(scenario, 1 + int(random() % 2));
                    ++restarts;
                    break;
                case 4:  // close the window mid-search
                    destroyedMidway += w->controller->isRunning();
                    w.reset();
                    destroyed = true;
                    break;
                default:
                    pump(0);
                    break;
                }
                if (w) QVERIFY2(w->violations.isEmpty(), where + ": " + w->violations.join("; ").toUtf8());
            }
            if (destroyed || random() % 3) continue;

            // The last search started ends, exactly once; its controller is reused.
            QVERIFY2(QTest::qWaitFor([&] { return w->currentFinished(); }, kTimeoutMs), where + ": never finished");
            ++waited;
            pump(0);
            QVERIFY2(!w->controller->isRunning(), where);
            QVERIFY2(w->violations.isEmpty(), where + ": " + w->violations.join("; ").toUtf8());
        }
        w.reset();
        // Every search, superseded or not, ends: nothing is left running in the pool.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(kTimeoutMs));
        pump(0);
        qInfo("%d rounds (seed %u) in %.2f s: %d starts, %d restarts, %d cancels, %d destroyed mid-search, "
              "%d waited to the end, progress seen %d times",
              kRounds, s, clock.elapsed() / 1000.0, starts, restarts, cancels, destroyedMidway, waited, progressSeen);
    }
};

QTEST_GUILESS_MAIN(TestSearchStress)
#include "tst_searchstress.moc"
