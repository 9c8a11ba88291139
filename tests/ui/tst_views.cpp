// Views that hold up (issue 17): Pareto and Candidates say how to fill them before any
// search; the candidate filter takes several words, each of which must match; a chart's
// hover tooltip stays while the pointer rests (the view's own ToolTip event no longer
// hides it); a stage over the device's memory gets a red outline named in the legend.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QToolTip>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "charts/memorychart.h"
#include "io/presets.h"
#include "mainwindow/mainwindow.h"
#include "views/comparedialog.h"
#include "views/timelinewidget.h"
#include "units/units.h"
#include "models/candidatesmodel.h"
#include "io/scenarioio.h"
#include "model/evaluation.h"
#include "io/overrides.h"
#include "report/estimatereport.h"

using tessera::ui::MainWindow;
namespace core = tessera::core;

class TestViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TesseraTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_views"));
    }

    void emptyHintsThenAFilterOfSeveralWords() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const char* v : {"pareto", "candidates"}) {
            w.showView(QString::fromLatin1(v));
            auto* hint = w.view(QString::fromLatin1(v))->findChild<QLabel*>(QStringLiteral("emptyHint"));
            QVERIFY2(hint && hint->isVisible() && hint->text().contains(QStringLiteral("Search ▶")), v);
        }
        QSignalSpy done(&w, &MainWindow::searchFinished);
        w.startSearch();
        QVERIFY(done.wait(60000));
        auto* table = w.view(QStringLiteral("candidates"))->findChild<QTableView*>(QStringLiteral("candidateTable"));
        QVERIFY(table->isVisible());
        QVERIFY(!w.view(QStringLiteral("candidates"))->findChild<QLabel*>(QStringLiteral("emptyHint"))->isVisible());
        const int all = table->model()->rowCount();
        QVERIFY(all > 2);
        auto* filter = w.view(QStringLiteral("candidates"))->findChild<QLineEdit*>();
        // The first row's own strategy words: its tp and its schedule, each from the table.
        const QString tp = QStringLiteral("tp%1").arg(table->model()->index(0, tessera::ui::CandidatesModel::Tp).data().toString());
        const QString schedule = table->model()->index(0, tessera::ui::CandidatesModel::Schedule).data().toString();
        QTest::keyClicks(filter, tp);
        const int byTp = table->model()->rowCount();
        QVERIFY(byTp >= 1 && byTp <= all);
        QTest::keyClicks(filter, QStringLiteral(" ") + schedule);
        const int byBoth = table->model()->rowCount();
        QVERIFY(byBoth >= 1 && byBoth <= byTp);
        for (int r = 0; r < byBoth; ++r) {
            QCOMPARE(QStringLiteral("tp%1").arg(table->model()->index(r, tessera::ui::CandidatesModel::Tp).data().toString()), tp);
            QCOMPARE(table->model()->index(r, tessera::ui::CandidatesModel::Schedule).data().toString(), schedule);
        }
        QTest::keyClicks(filter, QStringLiteral(" no-such-word"));
        QCOMPARE(table->model()->rowCount(), 0);
    }

    // The sharding column names a shard narrower than the group by its ranks (a search
    // of optimizer_shard: auto or a list), so two candidates that differ only there read apart.
    void shardingNamesANarrowerShard() {
        tessera::ui::CandidatesModel model;
        tessera::core::Candidate whole, node, fsdp, none;
        whole.optimizerSharded = node.optimizerSharded = fsdp.optimizerSharded = true;
        node.optimizerShard = 8;
        fsdp.fsdp = true, fsdp.optimizerShard = 4;
        model.setCandidates({whole, node, fsdp, none});
        const auto text = [&](int row) { return model.index(row, tessera::ui::CandidatesModel::Sharding).data().toString(); };
        QCOMPARE(text(0), QString("ZeRO-1"));
        QCOMPARE(text(1), QString("ZeRO-1, shard 8"));
        QCOMPARE(text(2), QString("FSDP, shard 4"));
        QCOMPARE(text(3), QString("none"));
    }

    void hoverTooltipsStayWhileThePointerRests() {
        MainWindow w({}, nullptr, false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* view = w.view(QStringLiteral("memory"))->findChild<QChartView*>(QStringLiteral("memoryChart"));
        QWidget* viewport = view->viewport();
        const QPoint at = viewport->rect().center();
        QToolTip::showText(viewport->mapToGlobal(at), QStringLiteral("Stage 0 · Activations: 21.00 GiB"), viewport);
        QVERIFY(QToolTip::isVisible());
        // The rest timer's ToolTip event, which QGraphicsView answers by hiding any tooltip.
        QHelpEvent rest(QEvent::ToolTip, at, viewport->mapToGlobal(at));
        QApplication::sendEvent(viewport, &rest);
        QVERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), QStringLiteral("Stage 0 · Activations: 21.00 GiB"));
        QToolTip::hideText();
    }

    // A pinned baseline is named in the legend by its strategy and time; every figure of
    // the status bar carries its delta, tokens/s and MFU too.
    void theBaselineIsNamedAndEveryFigureMoves() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.pinBaseline();
        core::Value doc = w.session().document();
        core::setAt(doc, "exec.recompute", core::parseDocument("[{first: 0, option: full}]", "t", core::Format::Yaml));
        w.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("full recompute"));
        w.session().evaluateNow();
        const QString figures = w.statusBar()->findChildren<QLabel*>().last()->text();
        QVERIFY2(figures.contains(QRegularExpression(QStringLiteral("tok/s")) ) &&
                     figures.contains(QRegularExpression(QStringLiteral("\\(−[0-9,]+\\) tok/s"))),
                 qPrintable(figures));
        QVERIFY2(figures.contains(QRegularExpression(QStringLiteral("MFU [0-9.]+ % \\(−[0-9.]+ pt\\)"))), qPrintable(figures));
        w.showView(QStringLiteral("memory"));
        QChart* chart = w.view(QStringLiteral("memory"))->findChild<QChartView*>(QStringLiteral("memoryChart"))->chart();
        bool named = false;
        const QString expected = QStringLiteral("baseline: ") + QString::fromStdString(core::strategyLine(w.session().baseline()->resolved));
        for (QAbstractSeries* series : chart->series()) named = named || series->name().startsWith(expected + QStringLiteral(", pinned "));
        QVERIFY(named);
    }

    // Exports propose a name beside the scenario; the timeline's zoom starts over for a new scenario.
    void exportsProposeANameAndANewScenarioResetsTheZoom() {
        MainWindow w({}, nullptr, false);
        QVERIFY2(w.proposedPath(QStringLiteral("review.pdf")).endsWith(w.session().title() + QStringLiteral("-review.pdf")),
                 qPrintable(w.proposedPath(QStringLiteral("review.pdf"))));
        auto* timeline = w.view(QStringLiteral("pipeline"))->findChild<tessera::ui::TimelineWidget*>();
        timeline->setView(4, 1.0);
        QCOMPARE(timeline->zoom(), 4.0);
        core::Value doc = w.session().document();
        core::setAt(doc, "exec.recompute", core::parseDocument("[{first: 0, option: full}]", "t", core::Format::Yaml));
        w.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("an edit"));
        w.session().evaluateNow();
        QCOMPARE(timeline->zoom(), 4.0);  // an edit keeps where the reader is
        w.session().load(QStringLiteral("llama3-8b-a100x8"));
        QCOMPARE(timeline->zoom(), 1.0);
    }

    // The token budget's days and GPU-hours per trillion tokens beside step and tokens/s.
    void timeToTrainInTheStatusBar() {
        MainWindow w({}, nullptr, false);
        w.session().load(QStringLiteral("llama3-70b-h100x64"));
        const core::Estimate& e = w.session().evaluation()->estimate;
        QVERIFY(e.trainDays);
        const QString figures = w.statusBar()->findChildren<QLabel*>().last()->text();
        QVERIFY2(figures.contains(QStringLiteral(" GPU-h / T tokens")), qPrintable(figures));
        QVERIFY2(figures.contains(QString::fromStdString(core::formatDays(*e.trainDays)) + QStringLiteral(" for 15T tokens")),
                 qPrintable(figures));
    }

    // File ▸ Compare with…: the diff follows the edits, and says so when it cannot.
    void compareWithFollowsTheEdits() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.session().load(QStringLiteral("llama3-70b-h100x64"));
        auto* dialog = w.compareWith(QStringLiteral("llama3-70b-h100x64"));
        QVERIFY(dialog->otherResolved());
        QVERIFY2(dialog->text().contains(QStringLiteral("No field differs")), qPrintable(dialog->text()));
        core::Value doc = w.session().document();
        core::setAt(doc, "exec.recompute", core::parseDocument("[{first: 0, option: full}]", "t", core::Format::Yaml));
        w.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("full recompute"));
        w.session().evaluateNow();
        QVERIFY2(dialog->text().contains(QStringLiteral("exec.recompute")) && dialog->text().contains(QStringLiteral("step: recompute")),
                 qPrintable(dialog->text()));
        core::setAt(doc, "exec.tp", core::Value::integer(3));
        w.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("tp 3"));
        w.session().evaluateNow();
        QVERIFY(dialog->text().isEmpty());  // never the comparison of a scenario no longer on screen
        QVERIFY(dialog->findChild<QLabel*>()->text().contains(QStringLiteral("Not compared")));
        w.session().undoStack()->undo();
        w.session().evaluateNow();
        QVERIFY(dialog->text().contains(QStringLiteral("exec.recompute")));
        auto* broken = w.compareWith(QStringLiteral("/nonexistent/b.yaml"));
        QVERIFY(!broken->otherResolved());
        QVERIFY2(broken->text().contains(QStringLiteral("could not be read")), qPrintable(broken->text()));
    }

    void aStageOverTheLimitIsOutlinedAndNamed() {
        const core::Evaluation e = core::evaluateScenario(core::presetScenario("deepseek-v3-h800x2048-1f1b"));
        QVERIFY(!e.estimate.fits);
        QChartView shown(tessera::ui::buildMemoryChart(e.estimate, nullptr));  // a legend's markers show once it is
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        QChart* chart = shown.chart();
        int outlines = 0, named = 0;
        for (QAbstractSeries* s : chart->series())
            if (s->name() == QStringLiteral("over the device's memory")) {
                ++outlines;
                named += chart->legend()->markers(s).first()->isVisible();
                QCOMPARE(static_cast<QLineSeries*>(s)->pen().color(), QColor(0xD5, 0x00, 0x00));
            }
        int over = 0;
        for (const core::StageEstimate& s : e.estimate.stages) over += s.memory.total() > e.estimate.deviceMemory;
        QCOMPARE(outlines, over);
        QCOMPARE(named, 1);
        const core::Evaluation fits = core::evaluateScenario(core::presetScenario("llama3-8b-a100x8"));
        std::unique_ptr<QChart> none(tessera::ui::buildMemoryChart(fits.estimate, nullptr));
        for (QAbstractSeries* s : none->series()) QVERIFY(s->name() != QStringLiteral("over the device's memory"));
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
