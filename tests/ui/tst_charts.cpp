// The step chart's time axis on every example scenario: it starts at 0, ends at the
// first round tick past the longest bar, and has four to eight ticks of 1, 2 or 5 x 10^k
// seconds (Qt's own nice numbers once left a third of the chart empty).
#include <QApplication>
#include <QChart>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <memory>

#include "charts/memorychart.h"
#include "charts/niceaxis.h"
#include "charts/paretochart.h"
#include "charts/stepchart.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "resolve/resolve.h"
#include "search/search.h"

using namespace tessera;

namespace {

// The texts a chart view draws, once it is on screen and laid out (Qt hides a label it
// would overlap, and elides one it cannot fit).
QStringList shownTexts(QChartView& view) {
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) return {};
    QCoreApplication::processEvents();
    QStringList shown;
    for (QGraphicsItem* item : view.scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible()) shown << text->toPlainText();
    return shown;
}

}  // namespace

class TestCharts : public QObject {
    Q_OBJECT
private slots:
    void niceSteps() {
        QCOMPARE(ui::niceStep(1.26), 2.0);
        QCOMPARE(ui::niceStep(2.0), 2.0);
        QCOMPARE(ui::niceStep(3.1), 5.0);
        QCOMPARE(ui::niceStep(7.0), 10.0);
        QVERIFY(std::abs(ui::niceStep(0.031) - 0.05) < 1e-12);
    }

    void stepAxisEndsPastTheLongestBar_data() {
        QTest::addColumn<QString>("scenario");
        for (const std::string& id : core::presetIds(core::PresetKind::Scenario)) QTest::newRow(id.c_str()) << QString::fromStdString(id);
    }
    void stepAxisEndsPastTheLongestBar() {
        QFETCH(QString, scenario);
        const core::ResolvedScenario r = core::resolve(core::presetScenario(scenario.toStdString()));
        const core::Estimate e = core::estimate(r);
        std::unique_ptr<QChart> chart(ui::buildStepChart(e, *r.scenario.exec.micro_batch_num));
        auto* time = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).first());
        QVERIFY(time);
        QCOMPARE(time->min(), 0.0);
        const double tick = time->tickInterval();
        QCOMPARE(ui::niceStep(tick * 0.999), tick);  // 1, 2 or 5 x 10^k
        QVERIFY2(time->max() >= e.stepSeconds && time->max() < e.stepSeconds * 1.02 + tick,
                 qPrintable(QString("step %1 s, axis to %2 s").arg(e.stepSeconds).arg(time->max())));
        const double ticks = time->max() / tick;
        QVERIFY2(ticks >= 4 - 1e-9 && ticks <= 8 + 1e-9, qPrintable(QString("%1 ticks").arg(ticks)));
    }

    // Each row of the step chart keeps its name at the Pipeline view's size (1280 x 800
    // leaves the chart about 270 px): Qt elided all nine of pp 8's to "..." before the
    // labels were sized to their rows.
    void stepRowsKeepTheirNames() {
        const core::ResolvedScenario r = core::resolve(core::parseScenario(
            "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\n"
            "exec: {tp: 8, pp: 8, seq_length: 4096, micro_batch_size: 1, micro_batch_num: 24}\n",
            "t.yaml", core::Format::Yaml, ""));
        QChartView view(ui::buildStepChart(core::estimate(r), 24));
        view.resize(1240, 270);
        const QStringList shown = shownTexts(view);
        QVERIFY2(!shown.contains("...") && !shown.contains(QString::fromUtf8("\u2026")), qPrintable(shown.join(" | ")));
        for (const char* row : {"step", "stage 0", "stage 7"}) QVERIFY2(shown.contains(row), qPrintable(shown.join(" | ")));
    }

    // The legend says how much of compute is the wait for the slowest device
    // (cluster.rank_speed_spread), and says nothing of it when every device is as fast.
    void stepLegendTellsTheSlowestDeviceWait() {
        auto labels = [](const char* spread) {
            const core::ResolvedScenario r = core::resolve(core::parseScenario(
                std::string("model: llama3-8b\ncluster: {device: h100-sxm, devices: 64, rank_speed_spread: ") + spread +
                    "}\nexec: {tp: 1, pp: 1, seq_length: 2048, global_batch_size: 64}\n",
                "t.yaml", core::Format::Yaml, ""));
            std::unique_ptr<QChart> chart(ui::buildStepChart(core::estimate(r), *r.scenario.exec.micro_batch_num));
            QStringList out;
            for (QAbstractSeries* series : chart->series())
                if (auto* bars = qobject_cast<QAbstractBarSeries*>(series))
                    for (QBarSet* set : bars->barSets()) out << set->label();
            return out;
        };
        const QStringList spread = labels("0.02"), even = labels("0");
        QVERIFY2(spread.filter("slowest-device wait").size() == 1 && spread.filter("slowest-device wait").first().startsWith("compute"),
                 qPrintable(spread.join(" | ")));
        QVERIFY2(even.filter("slowest-device").isEmpty(), qPrintable(even.join(" | ")));
    }

    // At the height the Pipeline view gives it, every row of a 16-stage step chart keeps
    // its name - the step's too: at 1280 x 800 Qt showed every other device's and not the
    // step's, its labels closer than a line and its padding.
    void everyStepRowNamedAtItsMinimumHeight() {
        const core::Estimate e = core::estimate(core::resolve(core::presetScenario("deepseek-v3-h800x2048")));
        QCOMPARE(e.stages.size(), std::size_t{16});
        const int rows = ui::stepChartRows(e, false);
        QCOMPARE(rows, 17);
        QChartView view(ui::buildStepChart(e, 120));
        view.resize(1240, ui::stepChartMinimumHeight(rows));
        const QStringList shown = shownTexts(view);
        QVERIFY(shown.contains("step"));
        for (int d = 0; d < 16; ++d) QVERIFY2(shown.contains(QString("device %1").arg(d)), qPrintable(shown.join(" | ")));
    }

    // A 16-stage memory chart as narrow as the window's keeps every device number whole
    // (Qt elided the upright labels to a vertical ellipsis).
    void memoryChartNumbersEveryDevice() {
        const core::Estimate e = core::estimate(core::resolve(core::presetScenario("deepseek-v3-h800x2048")));
        QChartView view(ui::buildMemoryChart(e));
        view.resize(560, 380);
        const QStringList shown = shownTexts(view);
        for (const QString& elided : {QString::fromUtf8("\u22ee"), QString::fromUtf8("\u2026"), QString("...")})
            QVERIFY2(!shown.contains(elided), qPrintable(shown.join(" | ")));
        for (int d = 0; d < 16; ++d) QVERIFY2(shown.contains(QString::number(d)), qPrintable(shown.join(" | ")));
    }

    // The review page's numbered front: every point has its number, no two numbers
    // overlap, none covers a front point, and all stay inside the plot - also where
    // the front crowds into a knee (the 70B preset's first four points sit within 4 GiB).
    void frontNumbersDoNotCollide_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("page") << QSize(820, 420);
        QTest::newRow("small") << QSize(560, 300);
        QTest::newRow("wide") << QSize(1400, 500);
    }
    void frontNumbersDoNotCollide() {
        QFETCH(QSize, size);
        const core::Scenario scenario = core::presetScenario("llama3-70b-h100x64");
        const core::SearchSetup setup = core::searchSetup(scenario);
        const core::SearchResult result = core::runSearch(setup);
        QVERIFY(result.pareto.size() >= 4);
        const core::Estimate e = core::estimate(core::resolve(scenario));
        QChart* chart = ui::buildParetoChart(result, setup.space.memoryLimit, ui::CurrentPoint{e.peakMemory, e.stepSeconds}, {});
        QChartView view(chart);  // takes the chart
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        ui::numberFrontPoints(chart, result);
        std::vector<QRectF> numbers;
        for (QGraphicsItem* item : chart->childItems())
            if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item); text && text->text().toInt() > 0)
                numbers.push_back(text->mapRectToParent(text->boundingRect()));
        QCOMPARE(numbers.size(), result.pareto.size());
        QLineSeries* front = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (s->objectName() == "pareto-front") front = qobject_cast<QLineSeries*>(s);
        QVERIFY(front);
        for (std::size_t i = 0; i < numbers.size(); ++i) {
            QVERIFY2(chart->plotArea().contains(numbers[i]), qPrintable(QString("number %1 leaves the plot").arg(i + 1)));
            for (std::size_t j = i + 1; j < numbers.size(); ++j)
                QVERIFY2(!numbers[i].intersects(numbers[j]), qPrintable(QString("numbers %1 and %2 overlap").arg(i + 1).arg(j + 1)));
            for (const QPointF& p : front->points())
                QVERIFY2(!numbers[i].contains(chart->mapToPosition(p, front)), qPrintable(QString("number %1 covers a front point").arg(i + 1)));
        }
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
