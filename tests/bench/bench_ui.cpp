// From an edit to repainted views, for the default scenario (issue 17: 16 ms at the median, debounce included).
// A real window on the event loop (offscreen): type into a field, then time the
// debounce, the evaluation (resolve, estimate, pipeline simulation, charts and
// tables rebuilt) and the repaint of the shown view, over many edits. Reports
// the median and the worst; never fails on speed.
#include <QApplication>
#include <QChartView>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QStandardPaths>
#include <QtTest>
#include <algorithm>

#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "mainwindow/mainwindow.h"

namespace {

// Notes when a widget has painted.
class PaintWatch : public QObject {
public:
    bool painted = false;
    qint64 at = 0;
    const QElapsedTimer* clock = nullptr;
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Paint && !painted) painted = true, at = clock->nsecsElapsed();
        return false;
    }
};

struct Sample {
    double debounce, evaluation, repaint, total;  // ms
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

class BenchUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("TesseraBench");
    }

    void editToRepaint_data() {
        QTest::addColumn<QString>("view");
        QTest::newRow("memory") << "memory";
        QTest::newRow("pipeline") << "pipeline";
    }
    void editToRepaint() {
        QFETCH(QString, view);
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showView(view);
        QVERIFY(window.loaded());
        // The repaint that counts is the chart's (memory) or the timeline's (pipeline).
        QWidget* target = view == "memory" ? window.view("memory")->findChild<QChartView*>("memoryChart")->viewport()
                                           : static_cast<QWidget*>(window.view("pipeline")->findChildren<QWidget*>().first());
        auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("recompute"));
        QVERIFY(line);
        QElapsedTimer clock;
        PaintWatch watch;
        watch.clock = &clock;
        target->installEventFilter(&watch);
        qint64 evaluatedAt = 0;
        connect(&window, &tessera::ui::MainWindow::evaluated, this, [&] { evaluatedAt = clock.nsecsElapsed(); });
        const char* texts[] = {"[{first: 0, option: full}]", "[{first: 0, option: selective}]", "[{first: 0, option: none}]"};
        std::vector<Sample> samples;
        for (int i = 0; i < 30; ++i) {
            line->selectAll();
            QTest::keyClicks(line, texts[i % 3]);  // the last keystroke is the edit's moment
            clock.start();
            evaluatedAt = 0;
            watch.painted = false;
            QVERIFY(QTest::qWaitFor([&] { return evaluatedAt > 0; }, 5000));
            watch.painted = false;  // a paint after the views changed
            QVERIFY(QTest::qWaitFor([&] { return watch.painted; }, 5000));
            const double debounce = window.debounceMs();
            const double evaluated = double(evaluatedAt) / 1e6, painted = double(watch.at) / 1e6;
            samples.push_back({debounce, evaluated - debounce, painted - evaluated, painted});
        }
        auto column = [&](double Sample::*m) {
            std::vector<double> v;
            for (const Sample& s : samples) v.push_back(s.*m);
            return v;
        };
        const std::vector<double> total = column(&Sample::total);
        qInfo("%s view, edit to repaint over %zu edits: median %.1f ms (debounce %.0f + evaluation %.1f + repaint %.1f), worst %.1f ms",
              qPrintable(view), samples.size(), median(total), median(column(&Sample::debounce)),
              median(column(&Sample::evaluation)), median(column(&Sample::repaint)), *std::max_element(total.begin(), total.end()));
    }

    // One edit's evaluation and repaint without the debounce, as QBENCHMARK counts it.
    void evaluateAndRepaint() {
        tessera::ui::MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("recompute"));
        bool done = false;
        connect(&window, &tessera::ui::MainWindow::evaluated, this, [&] { done = true; });
        int i = 0;
        QBENCHMARK {
            line->setText(i++ % 2 ? "[{first: 0, option: full}]" : "[{first: 0, option: selective}]");
            emit window.editor()->execForm()->edited(QStringLiteral("recompute"));
            done = false;
            QVERIFY(QTest::qWaitFor([&] { return done; }, 5000));
            window.repaint();
        }
    }
};

QTEST_MAIN(BenchUi)
#include "bench_ui.moc"
