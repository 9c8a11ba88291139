// No view shows a stale result as current (issue 17): while the document does not
// resolve, every view of the evaluation lies under a cover that says "Not evaluated: N
// problems" and names them, the status bar leads with ⚠ and the figures say they are the
// last that priced - through an invalid edit, a device change in that state, and undo;
// a search of an earlier scenario names what changed since and runs again on request.
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUndoStack>
#include <QtTest>

#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "io/overrides.h"
#include "mainwindow/mainwindow.h"
#include "views/notcurrentcover.h"

using tessera::ui::MainWindow;
namespace core = tessera::core;

namespace {

void typeInto(tessera::ui::SpecForm* form, const char* key, const QString& text) {
    auto* line = qobject_cast<QLineEdit*>(form->editor(QString::fromLatin1(key)));
    line->selectAll();
    QTest::keyClicks(line, text);
}

tessera::ui::NotCurrentCover* coverOf(MainWindow& w, const char* view) {
    return w.view(QString::fromLatin1(view))->findChild<tessera::ui::NotCurrentCover*>();
}

// Every covered view says the same thing; the status bar leads with ⚠.
void expectCovered(MainWindow& w) {
    const std::size_t problems = w.session().problems().size();
    QVERIFY(problems > 0);
    for (const char* v : {"memory", "pipeline", "estimate"}) {
        auto* cover = coverOf(w, v);
        QVERIFY2(cover && cover->isVisibleTo(w.view(QString::fromLatin1(v))), v);
        QCOMPARE(cover->geometry(), w.view(QString::fromLatin1(v))->rect());
        const QString title = cover->findChildren<QLabel*>().first()->text();
        QVERIFY2(title.contains(QStringLiteral("Not evaluated: %1 problem%2").arg(problems).arg(problems == 1 ? "" : "s")), qPrintable(title));
    }
    QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("⚠")), qPrintable(w.statusBar()->currentMessage()));
    const QString figures = w.statusBar()->findChildren<QLabel*>().last()->text();
    QVERIFY2(figures.startsWith(QStringLiteral("last that priced")), qPrintable(figures));
}

void expectCurrent(MainWindow& w) {
    QVERIFY(w.session().evaluationIsCurrent());
    for (const char* v : {"memory", "pipeline", "estimate"}) QVERIFY2(!coverOf(w, v)->isVisibleTo(w.view(QString::fromLatin1(v))), v);
    QVERIFY(!w.statusBar()->currentMessage().startsWith(QStringLiteral("⚠")));
}

}  // namespace

class TestNotCurrent : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TesseraTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_notcurrent"));
    }

    void invalidEditsCoverEveryViewThroughUndoAndDeviceChanges_data() {
        QTest::addColumn<QString>("tp");
        QTest::newRow("tp does not divide") << QStringLiteral("3");
        QTest::newRow("tp is not a number") << QStringLiteral("abc");
    }
    void invalidEditsCoverEveryViewThroughUndoAndDeviceChanges() {
        QFETCH(QString, tp);
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        expectCurrent(w);
        const double step = w.session().evaluation()->estimate.stepSeconds;
        typeInto(w.editor()->execForm(), "tp", tp);
        w.session().evaluateNow();
        QVERIFY(!w.session().evaluationIsCurrent());
        QCOMPARE(w.session().evaluation()->estimate.stepSeconds, step);  // the last that priced, kept behind the cover
        expectCovered(w);
        // Another change while it does not resolve: still not evaluated, still saying why.
        core::Value doc = w.session().document();
        core::setAt(doc, "cluster.device", core::Value::string("a100-sxm-80g"));
        w.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("device"));
        w.session().evaluateNow();
        expectCovered(w);
        w.session().undoStack()->undo();  // the device back: the bad tp stays
        w.session().evaluateNow();
        expectCovered(w);
        while (w.session().undoStack()->canUndo()) w.session().undoStack()->undo();
        w.session().evaluateNow();
        expectCurrent(w);
        QCOMPARE(w.session().evaluation()->estimate.stepSeconds, step);
    }

    void aStaleSearchNamesTheChangeAndRunsAgainOnRequest() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        QSignalSpy done(&w, &MainWindow::searchFinished);
        w.startSearch();
        QVERIFY(done.wait(60000));
        auto* stale = w.view(QStringLiteral("pareto"))->findChild<QLabel*>(QStringLiteral("staleSearch"));
        QVERIFY(stale && stale->isHidden());
        const QString layers = w.editor()->modelForm()->text(QStringLiteral("num_hidden_layers"));
        typeInto(w.editor()->modelForm(), "num_hidden_layers", QStringLiteral("40"));
        QVERIFY(w.session().searchIsStale());
        const QStringList since = w.session().searchStaleSince();
        QCOMPARE(since, QStringList{QStringLiteral("model.num_hidden_layers %1 → 40").arg(layers)});
        QVERIFY2(stale->text().contains(since.front()), qPrintable(stale->text()));
        QVERIFY(!stale->isHidden());
        for (const char* v : {"pareto", "candidates"})
            QVERIFY(!w.view(QString::fromLatin1(v))->findChild<QLabel*>(QStringLiteral("staleSearch"))->isHidden());
        emit stale->linkActivated(QStringLiteral("search"));
        QVERIFY(w.session().isSearching());
        QVERIFY(done.wait(60000));
        QVERIFY(!w.session().searchIsStale());
        QVERIFY(stale->isHidden());
    }
};

QTEST_MAIN(TestNotCurrent)
#include "tst_notcurrent.moc"
