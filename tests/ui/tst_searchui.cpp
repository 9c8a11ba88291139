// The search in the GUI: the worker's signals, cancel, stale results dropped by
// generation, destruction mid-search, the candidates model under
// QAbstractItemModelTester, the Pareto chart, and the event loop's responsiveness
// while a ten-million-candidate search runs (measured and reported).
#include <QAbstractItemModelTester>
#include <QChart>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTimer>
#include <QValueAxis>
#include <QtTest>

#include "charts/paretochart.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "models/candidatesmodel.h"
#include "workers/searchcontroller.h"

using namespace tessera;
using tessera::ui::SearchController;
using tessera::ui::SearchOutcome;

Q_DECLARE_METATYPE(std::shared_ptr<const tessera::ui::SearchOutcome>)

namespace {

core::Scenario scenario(const std::string& yaml) { return core::parseScenario(yaml, "t.yaml", core::Format::Yaml, ""); }

// About 10^7 candidates: DeepSeek-V3 on 2,048 devices, every dimension searched.
core::Scenario bigSearch() {
    return scenario(
        "model: deepseek-v3\ncluster: {device: h800, devices: 2048}\nexec: {seq_length: 4096}\n"
        "search:\n  space: {tp: auto, pp: auto, vpp: auto, cp: auto, ep: auto, etp: [1, 2], micro_batch_size: [1, 2, 3, 4, 5, 6, 8, 10],\n"
        "          sequence_parallel: auto, optimizer_parallel: auto, grad_shard: auto, grad_shard_as_params: auto,\n"
        "          recompute: auto, pp_schedule: [1f1b, interleaved, gpipe, zb-h1]}\n  constraints: {global_batch_size: 15360}\n");
}

}  // namespace

class TestSearchUi : public QObject {
    Q_OBJECT
private slots:
    // A planned candidate shows its own partition (chunks joined by +); an unplanned one
    // says its layers are placed as stated.
    void candidatesShowThePlannedPartition() {
        tessera::ui::CandidatesModel model;
        QAbstractItemModelTester tester(&model);
        tessera::core::Candidate planned, plain;
        auto plan = std::make_shared<tessera::core::Plan>();
        plan->partition = {{19, 21, 21, 19}};
        planned.plan = plan;
        auto interleaved = std::make_shared<tessera::core::Plan>();
        interleaved->partition = {{5, 5}, {4, 6}};
        tessera::core::Candidate chunks;
        chunks.plan = interleaved;
        model.setCandidates({planned, plain, chunks});
        const int column = tessera::ui::CandidatesModel::Layers;
        QCOMPARE(model.headerData(column, Qt::Horizontal).toString(), QString("layers per stage"));
        QCOMPARE(model.data(model.index(0, column)).toString(), QString("19,21,21,19"));
        QCOMPARE(model.data(model.index(1, column)).toString(), QString("as stated"));
        QCOMPARE(model.data(model.index(2, column)).toString(), QString("5+4,5+6"));
    }

    void initTestCase() { qRegisterMetaType<std::shared_ptr<const SearchOutcome>>(); }

    void searchesTheDefaultScenario() {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(core::presetScenario("llama3-70b-h100x64"));
        QVERIFY(finished.wait(60000));
        const auto outcome = finished.first().first().value<std::shared_ptr<const SearchOutcome>>();
        QVERIFY(outcome->error.isEmpty());
        QVERIFY(!outcome->result.top.empty());
        QCOMPARE(outcome->generation, controller.generation());
    }

    // The GUI searches what `tessera search` and `tessera report` search: the core's
    // default space when the scenario states none.
    void aScenarioWithoutSearchGetsTheDefaultSpace() {
        QVERIFY(core::defaultSearchSpace(std::nullopt).space.size() >= 10);
        const core::Scenario bare = core::presetScenario("llama3-8b-a100x8");
        QVERIFY(!bare.search);
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(bare);
        QVERIFY(finished.wait(60000));
        const auto outcome = finished.first().first().value<std::shared_ptr<const SearchOutcome>>();
        QVERIFY(!outcome->result.top.empty());
        QCOMPARE(outcome->result.spaceSize, core::searchSetup(bare).space.size());
        QVERIFY(outcome->result.spaceSize > 1000);
    }

    void progressThenCancel() {
        SearchController controller;
        QSignalSpy progress(&controller, &SearchController::progress);
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(bigSearch(), 1);
        QVERIFY(progress.wait(30000));
        controller.cancel();
        QVERIFY(finished.wait(30000));
        const auto outcome = finished.first().first().value<std::shared_ptr<const SearchOutcome>>();
        QVERIFY(outcome->result.cancelled);
        QVERIFY(outcome->result.visited < outcome->result.spaceSize);
    }

    // Two starts in a row: only the second's result arrives.
    void staleResultsAreDropped() {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(bigSearch(), 1);
        controller.start(core::presetScenario("llama3-70b-h100x64"));
        QVERIFY(finished.wait(60000));
        QTest::qWait(200);  // any late result of the first would arrive by now
        QCOMPARE(finished.size(), 1);
        const auto outcome = finished.first().first().value<std::shared_ptr<const SearchOutcome>>();
        QCOMPARE(outcome->generation, quint64(2));
        QCOMPARE(outcome->setup.space.devices, std::int64_t{64});
    }

    void destroyedMidSearch() {
        auto* controller = new SearchController;
        controller->start(bigSearch(), 1);
        QTest::qWait(50);
        delete controller;  // cancels and waits: no crash, no late signal to a dead object
        QTest::qWait(100);
    }

    void errorsArriveAsText() {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(scenario("model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\nexec: {seq_length: 4096}\n"
                                  "search: {space: {expert_shard: [1]}}\n"));
        QVERIFY(finished.wait(30000));
        QVERIFY(finished.first().first().value<std::shared_ptr<const SearchOutcome>>()->error.contains("expert_shard"));
    }

    // The GUI thread keeps serving events while the worker searches 10^7 candidates.
    void eventLoopStaysResponsive() {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        QElapsedTimer clock;
        qint64 last = 0, worst = 0;
        int ticks = 0;
        QTimer timer;
        timer.setInterval(5);
        connect(&timer, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last);
            last = now;
            ++ticks;
        });
        clock.start();
        timer.start();
        controller.start(bigSearch(), 1);
        QVERIFY(finished.wait(120000));
        timer.stop();
        const auto outcome = finished.first().first().value<std::shared_ptr<const SearchOutcome>>();
        QVERIFY(outcome->result.spaceSize >= 10'000'000);
        QVERIFY(ticks > 10);
        qInfo("%llu candidates in %.2f s; the event loop's longest gap was %lld ms over %d timer ticks",
              (unsigned long long)outcome->result.spaceSize, outcome->result.elapsedSeconds, worst, ticks);
    }

    void candidatesModel() {
        ui::CandidatesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const core::SearchSetup setup = core::searchSetup(core::presetScenario("llama3-70b-h100x64"));
        const core::SearchResult r = core::runSearch(setup);
        model.setCandidates(r.top);
        QCOMPARE(model.rowCount(), int(r.top.size()));
        QCOMPARE(model.data(model.index(0, ui::CandidatesModel::Tp), Qt::UserRole).toLongLong(), qlonglong(r.top[0].tp));
        QVERIFY(model.data(model.index(0, ui::CandidatesModel::Rank), Qt::ToolTipRole).toString().startsWith("dp"));
        model.setCandidates({});
        QCOMPARE(model.rowCount(), 0);
    }

    void paretoChart() {
        const core::SearchSetup setup = core::searchSetup(core::presetScenario("llama3-70b-h100x64"));
        const core::SearchResult r = core::runSearch(setup);
        int picked = 0;
        std::unique_ptr<QChart> chart(ui::buildParetoChart(r, setup.space.memoryLimit, ui::CurrentPoint{40LL << 30, 13.5},
                                                           [&](const core::Candidate&) { ++picked; }));
        QCOMPARE(chart->series().size(), 4);  // limit, kept dots, front, current ring
        QCOMPARE(chart->axes().size(), 2);
    }

    // The memory axis starts at zero while the points spread over more than half of it, and
    // else just below the lightest, so that a front kept near the limit fills the chart.
    void paretoMemoryAxisFitsThePoints() {
        auto axisOf = [](const core::SearchResult& r, double limitGib) {
            std::unique_ptr<QChart> chart(ui::buildParetoChart(r, core::Bytes(limitGib * double(1LL << 30)), std::nullopt, {}));
            auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
            return std::pair<double, double>{x->min(), x->max()};
        };
        auto candidate = [](std::uint64_t index, double gib, double step) {
            core::Candidate c;
            c.index = index, c.peakMemory = core::Bytes(gib * double(1LL << 30)), c.stepSeconds = step;
            return c;
        };
        core::SearchResult near;  // the shape of a per-layer search at 72 GiB: 68 to 72 GiB
        near.pareto = {candidate(0, 68.3, 20.8), candidate(1, 69.1, 18.7), candidate(2, 70.7, 18.2), candidate(3, 71.1, 17.6)};
        near.top = {near.pareto[3], near.pareto[2], candidate(4, 71.6, 18.4)};
        const auto [lo, hi] = axisOf(near, 72);
        QVERIFY2(lo > 60 && lo <= 68.3 && hi >= 72, qPrintable(QString("axis %1 to %2 GiB").arg(lo).arg(hi)));
        QVERIFY((71.6 - 68.3) / (hi - lo) > 0.5);  // the points fill over half of it
        core::SearchResult spread;
        spread.pareto = {candidate(0, 12, 30), candidate(1, 60, 20)};
        spread.top = spread.pareto;
        const auto [lo2, hi2] = axisOf(spread, 80);
        QCOMPARE(lo2, 0.0);
        QVERIFY(hi2 >= 80);
        core::SearchResult one;  // every point at the limit's own peak: still an axis around it
        one.pareto = {candidate(0, 72, 18)};
        one.top = one.pareto;
        const auto [lo3, hi3] = axisOf(one, 72);
        QVERIFY2(lo3 < 72 && hi3 > 72, qPrintable(QString("axis %1 to %2 GiB").arg(lo3).arg(hi3)));
    }
};

QTEST_MAIN(TestSearchUi)
#include "tst_searchui.moc"
