// The main window (offscreen): the default scenario's views, a bad file's problems,
// the stage model under QAbstractItemModelTester, and headless screenshots.
#include <QAbstractItemModelTester>
#include <QChartView>
#include <QLabel>
#include <QLineEdit>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QSettings>
#include <QApplication>
#include <QPalette>
#include <QClipboard>
#include <QGuiApplication>
#include <QUndoStack>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

#include <QBarCategoryAxis>
#include <QFontDatabase>
#include <QFontInfo>
#include <QMimeData>
#include <QImage>
#include <QPainter>
#include "export/reviewtables.h"
#include "imagechecks.h"
#include "style/reviewmode.h"
#include "views/layerstrip.h"
#include "views/timelinewidget.h"

#include "io/scenarioio.h"
#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "mainwindow/mainwindow.h"
#include "models/candidatesmodel.h"
#include "models/stagememorymodel.h"

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // settings of the tests, not the user's
        QCoreApplication::setOrganizationName("TesseraTests");
        QCoreApplication::setApplicationName("tst_mainwindow");
        QSettings().clear();
    }

    // Save writes what the forms state, atomically; it reads back; the window
    // remembers the file, the view and its geometry for the next start.
    void saveReopenAndRestore() {
        QTemporaryDir dir;
        const QString path = dir.filePath("run.yaml");
        {
            tessera::ui::MainWindow window({});
            window.setNeverAsk(true);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            for (auto [key, text] : {std::pair{"micro_batch_num", "32"}, {"global_batch_size", "64"}}) {
                auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor(key));
                line->selectAll();
                QTest::keyClicks(line, text);
            }
            QVERIFY(window.isDirty());
            QVERIFY(window.saveTo(path));
            QVERIFY(!window.isDirty());
            const tessera::core::Scenario saved = tessera::core::loadScenario(path.toStdString());
            QCOMPARE(*saved.exec.micro_batch_num, std::int64_t{32});
            QCOMPARE(*saved.model.hidden_size, std::int64_t{8192});
            // A failed save says so and keeps the data.
            QVERIFY(!window.saveTo("/nonexistent-dir/run.yaml"));
            QVERIFY(window.statusBar()->currentMessage().contains("still here"));
            window.showView("pipeline");
            QVERIFY(window.close());
        }
        tessera::ui::MainWindow again({});
        QCOMPARE(qobject_cast<QPlainTextEdit*>(again.view("scenario"))->toPlainText().contains("micro_batch_num: 32"), true);
        QVERIFY(again.windowTitle().contains("run.yaml"));
        QVERIFY(again.view("pipeline")->isVisibleTo(&again) || again.findChild<QTabWidget*>()->currentWidget() == again.view("pipeline"));
        QSettings().clear();
    }

    void openingATrainYamlTakesItsRun() {
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.openFile(QStringLiteral(TESSERA_TEST_DATA "/train/llama3-8b-automodels.yaml"));
        QVERIFY(window.loaded());
        auto* tp = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("tp"));
        QCOMPARE(tp->text(), QString("2"));
        auto* hidden = qobject_cast<QLineEdit*>(window.editor()->modelForm()->editor("hidden_size"));
        QCOMPARE(hidden->text(), QString("4096"));
        QVERIFY(window.isDirty());
        QSettings().clear();
    }

    // HyperParallel's own search file, unedited: its model, cluster and search replace
    // the scenario, and its search runs and finds strategies in its memory limit.
    void openingASeedSearchFileTakesItsSearch() {
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.openFile(QStringLiteral(TESSERA_TEST_DATA "/seed/upstream/dense_llm_search.yaml"));
        auto* hidden = qobject_cast<QLineEdit*>(window.editor()->modelForm()->editor("hidden_size"));
        QCOMPARE(hidden->text(), QString("4096"));
        const tessera::core::Value* space = window.session().document().find("search")->find("space");
        QVERIFY(space && space->find("dp_shard"));
        QSignalSpy done(&window, &tessera::ui::MainWindow::searchFinished);
        window.startSearch();
        QVERIFY(done.wait(60000));
        QVERIFY(window.session().search() && window.session().search()->result.feasible > 0);
        QVERIFY(window.isDirty());
        QSettings().clear();
    }

    // A trainer's launch file opens as the run it states, on the device shown (tessera import's reader).
    void openingATorchtitanTomlTakesItsRun() {
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.openFile(QStringLiteral(TESSERA_TEST_DATA "/trainers/torchtitan-llama3-8b.toml"));
        QVERIFY(window.loaded());
        auto* hidden = qobject_cast<QLineEdit*>(window.editor()->modelForm()->editor("hidden_size"));
        QCOMPARE(hidden->text(), QString("4096"));
        QVERIFY(window.isDirty());
        QSettings().clear();
    }

    void openingAnHfConfigReplacesTheModel() {
        tessera::ui::MainWindow window({});
        window.setNeverAsk(true);
        window.openFile(QStringLiteral(TESSERA_TEST_DATA "/hf/llama3-8b.json"));
        auto* hidden = qobject_cast<QLineEdit*>(window.editor()->modelForm()->editor("hidden_size"));
        QCOMPARE(hidden->text(), QString("4096"));
        QVERIFY(window.isDirty());
        QSettings().clear();
    }

    void opensTheDefaultScenario() {
        tessera::ui::MainWindow window({});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.loaded());
        QVERIFY(window.windowTitle().contains("llama3-70b-h100x64"));
        auto* scenario = qobject_cast<QPlainTextEdit*>(window.view("scenario"));
        QVERIFY(scenario->toPlainText().contains("Llama-3 70B"));
        auto* estimate = qobject_cast<QPlainTextEdit*>(window.view("estimate"));
        QVERIFY(estimate->toPlainText().contains("Memory per device"));
        // The estimate's prose wraps at the view's edge; the scenario listing keeps a key a line.
        QCOMPARE(estimate->lineWrapMode(), QPlainTextEdit::WidgetWidth);
        QCOMPARE(scenario->lineWrapMode(), QPlainTextEdit::NoWrap);
        // The memory view: a chart with the seven terms and the device line, a table of stages.
        auto* chart = window.view("memory")->findChild<QChartView*>();
        QVERIFY(chart && chart->chart());
        QCOMPARE(chart->chart()->series().size(), 2);  // the stacked bars and the device memory line
        auto* table = window.view("memory")->findChild<QTableView*>();
        QCOMPARE(table->model()->rowCount(), 4);
        const QString figures = window.statusBar()->findChildren<QLabel*>().last()->text();
        QVERIFY2(figures.contains("tok/s") && figures.contains("MFU") && figures.contains("/ 80.0 GiB"), qPrintable(figures));
        // Every view draws something.
        for (const char* name : {"memory", "estimate", "scenario"}) {
            QVERIFY(window.showView(name));
            const QImage image = window.view(name)->grab().toImage();
            QVERIFY2(tessera::testing::distinctColours(image) >= 3, name);
            if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
                image.save(QString::fromLocal8Bit(dir) + "/view-" + name + ".png");
        }
        QVERIFY(!window.showView("nonsense"));
    }

    // An edit re-evaluates; a wrong value marks its field with the core's words and
    // keeps what the user typed, and the views keep the last scenario that worked.
    void editingTheForms() {
        tessera::ui::MainWindow window({});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* tp = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("tp"));
        QVERIFY(tp);
        auto* figures = window.statusBar()->findChildren<QLabel*>().last();
        const QString before = figures->text();
        tp->selectAll();
        QTest::keyClicks(tp, "3");
        QTRY_VERIFY(tp->styleSheet().contains("D50000"));
        QCOMPARE(tp->text(), QString("3"));
        QVERIFY2(tp->toolTip().contains("must divide num_attention_heads (64), got 3"), qPrintable(tp->toolTip()));
        // The last good estimate stays, and says it is not this scenario's.
        QCOMPARE(figures->text(), "last that priced: " + before);
        QVERIFY(qobject_cast<QPlainTextEdit*>(window.view("estimate"))->toPlainText().startsWith("This scenario cannot be used:"));
        QVERIFY(qobject_cast<QPlainTextEdit*>(window.view("estimate"))->toPlainText().contains("Not current: the scenario has "));
        // A valid edit: tp 4 with dp 4 (and the shard and micro-batches to match).
        auto set = [&](const char* key, const char* text) {
            auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor(key));
            line->selectAll();
            QTest::keyClicks(line, text);
        };
        set("tp", "4");
        set("dp", "4");
        set("optimizer_shard", "4");
        set("micro_batch_num", "32");
        QTRY_VERIFY(tp->styleSheet().isEmpty());
        QTRY_VERIFY(figures->text() != before);
        // Edit to repainted views, measured (reported, not asserted: machines vary).
        const QString previous = figures->text();
        QElapsedTimer clock;
        clock.start();
        set("global_batch_size", "256");  // with micro_batch_num 32 and dp 4: micro_batch_size 2
        set("micro_batch_size", "2");
        QTRY_VERIFY_WITH_TIMEOUT(figures->text() != previous, 5000);
        qInfo("edit to re-evaluated views: %lld ms (30 ms of it the debounce)", clock.elapsed());
    }

    // Compare: pin the current strategy, edit, and every figure shows its difference.
    void pinnedBaseline() {
        tessera::ui::MainWindow window({});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.pinBaseline();
        QVERIFY(window.hasBaseline());
        auto* figures = window.statusBar()->findChildren<QLabel*>().last();
        QVERIFY2(figures->text().contains("(+0.00 s)"), qPrintable(figures->text()));
        auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("recompute"));
        line->selectAll();
        QTest::keyClicks(line, "[{first: 0, option: full}]");
        QTRY_VERIFY(figures->text().contains("(+") && !figures->text().contains("(+0.00 s)"));  // full recompute is slower
        QVERIFY2(figures->text().contains("GiB) / 80.0 GiB"), qPrintable(figures->text()));
        QVERIFY(figures->text().contains("(−"));  // and lighter
        auto* chart = window.view("memory")->findChild<QChartView*>();
        QCOMPARE(chart->chart()->series().size(), 3);  // bars, device line, baseline outline
        auto* table = window.view("memory")->findChild<QTableView*>();
        QVERIFY(table->model()->index(0, tessera::ui::StageMemoryModel::Total).data().toString().contains("(−"));
        if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
            window.grab().save(QString::fromLocal8Bit(dir) + "/compare.png");
        // The pipeline view: the baseline's step in the title and as a bar of its own
        // (its chart is built when the tab opens).
        window.showView("pipeline");
        auto* timeline = window.view("pipeline")->findChild<tessera::ui::TimelineWidget*>();
        QVERIFY2(timeline->title().contains("(baseline "), qPrintable(timeline->title()));
        auto* step = window.view("pipeline")->findChild<QChartView*>("stepChart");
        auto* rows = qobject_cast<QBarCategoryAxis*>(step->chart()->axes(Qt::Vertical).first());
        QVERIFY(rows->categories().contains("baseline step"));
        QCOMPARE(rows->categories().size(), 4 + 2);  // four stages, the baseline, the step
        QVERIFY(step->chart()->title().contains("baseline"));
        if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
            window.grab().save(QString::fromLocal8Bit(dir) + "/compare-pipeline.png");
        window.unpinBaseline();
        QVERIFY(!timeline->title().contains("baseline"));
        QVERIFY(!qobject_cast<QBarCategoryAxis*>(step->chart()->axes(Qt::Vertical).first())->categories().contains("baseline step"));
        window.showView("memory");
        QCOMPARE(chart->chart()->series().size(), 2);
    }

    // Files dropped on the window open; anything else is not accepted.
    void dragAndDrop() {
        QTemporaryDir dir;
        const QString path = dir.filePath("dropped.yaml");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(tessera::core::scenarioYaml(tessera::core::presetScenario("llama3-8b-a100x8"))));
        file.close();
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.acceptDrops());
        auto drag = [&](const QString& dropped) {
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(dropped)});
            QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &enter);
            if (!enter.isAccepted()) return false;
            QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &drop);
            return true;
        };
        QVERIFY(!drag(dir.filePath("notes.txt")));
        QVERIFY(window.windowTitle().startsWith("llama3-70b"));
        QVERIFY(drag(path));
        QVERIFY2(window.windowTitle().startsWith("dropped.yaml"), qPrintable(window.windowTitle()));
        QCOMPARE(qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("dp"))->text().isEmpty(), false);
        QVERIFY(qobject_cast<QPlainTextEdit*>(window.view("scenario"))->toPlainText().contains("Llama-3 8B") ||
                qobject_cast<QPlainTextEdit*>(window.view("scenario"))->toPlainText().contains("llama3-8b"));
    }

    // Review mode draws with the font compiled into the binary, whatever is installed.
    void reviewModeUsesTheBundledFont() {
        const QFont font = tessera::ui::reviewFont(9);
        QCOMPARE(font.family(), QString("DejaVu Sans"));
        QVERIFY(QFontDatabase::applicationFontFamilies(0).contains("DejaVu Sans"));  // loaded from the resource
        QCOMPARE(QFontInfo(font).family(), QString("DejaVu Sans"));
        QCOMPARE(QFontInfo(tessera::ui::reviewMonoFont()).family(), QString("DejaVu Sans Mono"));
    }

    // The review's prose wraps inside the page: a key figure longer than the body (the
    // one-NIC lines are) goes on as an indented continuation instead of off the edge.
    void reviewLinesWrapInsideTheirWidth() {
        QImage page(800, 400, QImage::Format_RGB32);
        page.fill(Qt::white);
        QPainter p(&page);
        p.setPen(Qt::black);
        const QFont font = tessera::ui::reviewFont(9);
        const QString line = "The routed experts' data-parallel collectives are priced at one NIC per rank: NCCL can carry this "
                             "group's 2 ranks in a node on 2 NICs, up to 2x faster on the network (not priced; README, the "
                             "collectives)";
        const double width = 300, one = tessera::ui::drawLines(p, {"x"}, {0, 0}, font);
        p.fillRect(page.rect(), Qt::white);
        const double high = tessera::ui::drawLines(p, {line, "  • a short bullet"}, {10, 0}, font, width);
        p.end();
        QVERIFY2(high >= 4 * one, qPrintable(QString("%1 px for lines of %2 px").arg(high).arg(one)));
        int rightmost = 0;  // nothing drawn past the width
        for (int y = 0; y < page.height(); ++y)
            for (int x = 0; x < page.width(); ++x)
                if (page.pixel(x, y) != qRgb(255, 255, 255)) rightmost = std::max(rightmost, x);
        QVERIFY2(rightmost <= 10 + width, qPrintable(QString("ink at x = %1").arg(rightmost)));
        QVERIFY(rightmost > 10 + width / 2);  // and it fills the width, not a word a line
    }

    // The search section as a form: a wrong candidate is marked, a good space searches.
    void searchForm() {
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        auto* tp = window.editor()->findChild<QLineEdit*>("search.space.tp");
        QVERIFY(tp);
        QCOMPARE(tp->text(), QString("auto"));  // from the default scenario's search section
        tp->clear();
        QTest::keyClicks(tp, "[1, two]");
        QTRY_VERIFY(tp->styleSheet().contains("D50000"));
        QVERIFY2(tp->toolTip().contains("expected a whole number"), qPrintable(tp->toolTip()));
        tp->clear();
        QTest::keyClicks(tp, "[4, 8]");
        QTRY_VERIFY(tp->styleSheet().isEmpty());
        QSignalSpy done(&window, &tessera::ui::MainWindow::searchFinished);
        window.startSearch();
        QVERIFY(done.wait(60000));
        auto* table = window.view("candidates")->findChild<QTableView*>("candidateTable");
        QVERIFY(table->model()->rowCount() > 0);
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const int t = table->model()->index(row, tessera::ui::CandidatesModel::Tp).data().toInt();
            QVERIFY(t == 4 || t == 8);
        }
    }

    // Undo and redo; typing into one field is one step.
    void undoRedo() {
        tessera::ui::MainWindow window({});
        window.setNeverAsk(true);
        QUndoStack* stack = window.editor()->undoStack();
        auto* mbn = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("micro_batch_num"));
        auto* gbs = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("global_batch_size"));
        mbn->selectAll();
        QTest::keyClicks(mbn, "32");  // two keystrokes, one field: one command; the global batch follows (1·32·2)
        QCOMPARE(gbs->text(), QString("64"));
        gbs->selectAll();
        QTest::keyClicks(gbs, "256");  // the micro-batches follow it (256 / (1·2))
        QCOMPARE(mbn->text(), QString("128"));
        QCOMPARE(stack->count(), 2);
        auto* figures = window.statusBar()->findChildren<QLabel*>().last();
        QTRY_VERIFY(figures->text().contains("step"));
        stack->undo();
        QCOMPARE(gbs->text(), QString("64"));
        QCOMPARE(mbn->text(), QString("32"));
        stack->undo();
        QCOMPARE(mbn->text(), QString("64"));
        QCOMPARE(gbs->text(), QString("128"));
        QTRY_VERIFY(window.editor()->execForm()->editor("micro_batch_num")->styleSheet().isEmpty());
        stack->redo();
        QCOMPARE(mbn->text(), QString("32"));
        stack->redo();
        QCOMPARE(gbs->text(), QString("256"));
        QTRY_VERIFY(gbs->styleSheet().isEmpty());
        // A pinned field is left as it is: the rule it breaks is marked instead.
        window.editor()->execForm()->setPinned("global_batch_size", true);
        mbn->selectAll();
        QTest::keyClicks(mbn, "64");
        QCOMPARE(gbs->text(), QString("256"));
        QTRY_VERIFY(gbs->styleSheet().contains("D50000") || mbn->styleSheet().contains("D50000"));
    }

    // PNG export renders the current view at the asked size and pixel ratio; the copy
    // goes to the clipboard.
    void viewPictures() {
        tessera::ui::MainWindow window({});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showView("memory");
        const QImage image = window.renderView(QSize(1000, 600), 2);
        QCOMPARE(image.size(), QSize(2000, 1200));
        QVERIFY(tessera::testing::distinctColours(image) >= 8);
        window.copyView();
        QVERIFY(!QGuiApplication::clipboard()->image().isNull());
    }

    // Under the bars, each stage's layers and their recompute: the preset's partition and
    // its one selective rule, then the plan's (Ctrl+P) with a choice per layer; a cell's
    // tooltip names its layer, and the strips run left to right with the stages.
    void layerStripFollowsThePlan() {
        tessera::ui::MainWindow window(QStringLiteral("deepseek-v3-h800x2048-1f1b"), nullptr, false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.showView("memory"));
        auto* strip = window.view("memory")->findChild<tessera::ui::LayerStrip*>("layerStrip");
        QVERIFY(strip);
        QCOMPARE(strip->stages().size(), std::size_t(16));
        QCOMPARE(strip->stages().front().size(), std::size_t(3));  // pp_partition [3, 4, ..., 4, 3]
        QCOMPARE(strip->options(), QStringList{"recompute normOp, attUp"});
        QTRY_VERIFY(!strip->cellRect(0, 0).isEmpty());
        const QString first = strip->cellText(strip->cellRect(0, 0).center().toPoint());
        QVERIFY2(first.contains("Layer 0 (dense)") && first.contains("stage 0"), qPrintable(first));
        for (std::size_t s = 1; s < 16; ++s) QVERIFY(strip->cellRect(s, 0).left() > strip->cellRect(s - 1, 0).right());
        QVERIFY(strip->cellText(QPoint(1, 1)).isEmpty());

        auto* plan = window.findChild<QAction*>("planStrategy");
        QVERIFY(plan);
        plan->trigger();
        QTRY_VERIFY(window.session().evaluationIsCurrent() && window.session().evaluation()->estimate.fits);
        QTRY_VERIFY(strip->options().contains("full"));
        std::size_t layers = 0;
        for (const auto& stage : strip->stages()) layers += stage.size();
        QCOMPARE(layers, std::size_t(62));
        const auto& partition = window.session().scenario()->exec.pp_partition;
        QVERIFY(partition);
        if (const QString dir = qEnvironmentVariable("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
            window.view("memory")->grab().save(dir + "/memory-planned.png");
    }

    // A dark palette stays readable: the charts take the dark theme.
    void darkPalette() {
        const QPalette light = QApplication::palette();
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
        dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
        QApplication::setPalette(dark);
        {
            tessera::ui::MainWindow window({}, nullptr, false);
            window.resize(1400, 860);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            auto* chart = window.view("memory")->findChild<QChartView*>();
            QCOMPARE(chart->chart()->theme(), QChart::ChartThemeDark);
            const QImage image = window.grab().toImage();
            QVERIFY(tessera::testing::distinctColours(image) >= 8);
            if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
                image.save(QString::fromLocal8Bit(dir) + "/dark.png");
            window.showView("pipeline");
            QCOMPARE(window.view("pipeline")->findChild<QChartView*>("stepChart")->chart()->theme(), QChart::ChartThemeDark);
            if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
                window.grab().save(QString::fromLocal8Bit(dir) + "/dark-pipeline.png");
        }
        QApplication::setPalette(light);
    }

    void showsEveryProblemOfABadFile() {
        tessera::ui::MainWindow window(QStringLiteral(TESSERA_TEST_DATA "/cli/three-mistakes.yaml"));
        QVERIFY(!window.loaded());
        const QString text = qobject_cast<QPlainTextEdit*>(window.view("scenario"))->toPlainText();
        QVERIFY(text.contains("cannot be used"));
        QVERIFY(text.contains("model.num_hiden_layers"));
        QVERIFY(text.contains("exec.pp_schedule"));
        QVERIFY(window.statusBar()->currentMessage().contains("3"));
    }

    void stageModel() {
        tessera::ui::StageMemoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = tessera::core::resolve(tessera::core::presetScenario("deepseek-v3-h800x2048-1f1b"));
        model.setEstimate(tessera::core::estimate(r));
        QCOMPARE(model.rowCount(), 16);
        const QModelIndex total = model.index(1, tessera::ui::StageMemoryModel::Total);
        QVERIFY(model.data(total, Qt::UserRole).toLongLong() > 80LL << 30);  // stage 1 is over the device
        QCOMPARE(model.data(total, Qt::ForegroundRole).value<QBrush>().color(), QColor(0xD5, 0x00, 0x00));
        QVERIFY(model.data(total, Qt::ToolTipRole).toString().endsWith("bytes"));
        model.setEstimate({});
        QCOMPARE(model.rowCount(), 0);
    }

    // tessera --screenshot, headless: the asked size, not blank.
    void headlessScreenshots_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QSize>("size");
        QTest::newRow("window") << "window" << QSize(1600, 1000);
        QTest::newRow("memory") << "memory" << QSize(1200, 800);
    }
    void headlessScreenshots() {
        QFETCH(QString, view);
        QFETCH(QSize, size);
        QTemporaryDir dir;
        const QString out = dir.filePath("shot.png");
        QProcess p;
        p.start(QStringLiteral(TESSERA_BINARY), {"--screenshot", out, "llama3-8b-a100x8", "--view", view, "--size",
                                                  QString("%1x%2").arg(size.width()).arg(size.height())});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QImage image(out);
        QVERIFY(!image.isNull());
        if (view == "window") QCOMPARE(image.size(), size);
        else QVERIFY(image.width() <= size.width() && image.width() > size.width() / 2);
        QVERIFY(tessera::testing::distinctColours(image) >= 8);
    }

    // tessera report: a PDF of four pages (memory, pipeline, Pareto, strategies), not empty.
    void headlessReport() {
        QTemporaryDir dir;
        const QString out = dir.filePath("review.pdf");
        QProcess p;
        p.start(QStringLiteral(TESSERA_BINARY), {"report", "llama3-8b-a100x8", "-o", out});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QFile pdf(out);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const QByteArray bytes = pdf.readAll();
        QVERIFY(bytes.startsWith("%PDF-"));
        QVERIFY(bytes.size() > 50'000);  // five pages of pictures
        QCOMPARE(bytes.count("/Type /Page") - bytes.count("/Type /Pages"), 5);
        // It reads as a document: the verdict, the strategy, the assumptions, page numbers
        // and the tables are text (poppler-utils' pdftotext, installed by tessera.sh).
        QProcess text;
        text.start(QStringLiteral("pdftotext"), {"-layout", out, "-"});
        QVERIFY(text.waitForFinished(60000));
        const QString words = QString::fromUtf8(text.readAllStandardOutput());
        for (const QString& s : {QStringLiteral("FITS: the fullest device (stage 0) holds"), QStringLiteral("Strategy: dp"),
                                 QStringLiteral("Assumptions"), QStringLiteral("Efficiencies: uncalibrated (the built-in fits)"),
                                 QStringLiteral("Fields not stated, and what filled them"), QStringLiteral("derived:"),
                                 QStringLiteral("Stage"), QStringLiteral("Total (GiB)"), QStringLiteral("peak GiB"),
                                 QStringLiteral("tokens/s")})
            QVERIFY2(words.contains(s), qPrintable(s));
        for (int page = 1; page <= 5; ++page) QVERIFY(words.contains(QStringLiteral("page %1 of 5").arg(page)));
        // Nothing the user wrote is overwritten without asking.
        QProcess again;
        again.start(QStringLiteral(TESSERA_BINARY), {"report", "llama3-8b-a100x8", "-o", out});
        QVERIFY(again.waitForFinished(60000));
        QCOMPARE(again.exitCode(), 1);
    }

    // A scenario file that is not there: exit 1 and the CLI's message, no picture or PDF.
    void headlessCommandsOnAMissingFile_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("report") << QStringList{"report", "%1/missing.yaml", "-o", "%1/out.pdf"};
        QTest::newRow("screenshot") << QStringList{"--screenshot", "%1/out.png", "%1/missing.yaml"};
    }
    void headlessCommandsOnAMissingFile() {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        for (QString& a : args) a = a.arg(dir.path());
        QProcess p;
        p.start(QStringLiteral(TESSERA_BINARY), args);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(p.readAllStandardError().contains("missing.yaml: cannot open the file"), "the CLI's message");
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{});
    }

    void screenshotRefusesBadArguments() {
        QProcess p;
        p.start(QStringLiteral(TESSERA_BINARY), {"--screenshot", "/tmp/x.png", "--size", "12x9"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 64);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
