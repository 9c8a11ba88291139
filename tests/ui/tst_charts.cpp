// The step chart's time axis on every example scenario: it starts at 0, ends at the
// first round tick past the longest bar, and has four to eight ticks of 1, 2 or 5 x 10^k
// seconds (Qt's own nice numbers once left a third of the chart empty).
#include <QApplication>
#include <QChart>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <memory>

#include "charts/niceaxis.h"
#include "charts/stepchart.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "resolve/resolve.h"

using namespace tessera;

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
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
