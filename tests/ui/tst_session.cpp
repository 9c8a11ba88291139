// The Session is the one owner of what the window is about: a pick reaches the forms,
// Save and the review's hash, and undo takes it back; a model preset is one undo step
// as a whole; undoing back to the saved text is unmodified; the GUI's search, the
// report's and `tessera search` search the same space.
#include <QApplication>
#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "doc/emit.h"
#include "export/report.h"
#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "io/overrides.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "mainwindow/mainwindow.h"
#include "search/search.h"

using tessera::ui::MainWindow;
namespace core = tessera::core;

namespace {

QString rowText(tessera::ui::SpecForm* form, const char* key) { return form->text(QString::fromLatin1(key)); }

void typeInto(tessera::ui::SpecForm* form, const char* key, const QString& text) {
    auto* line = qobject_cast<QLineEdit*>(form->editor(QString::fromLatin1(key)));
    line->selectAll();
    QTest::keyClicks(line, text);
}

// The first strategy of the search that differs from the one shown in tp or pp.
const core::Candidate* another(const core::SearchResult& r, std::int64_t tp, std::int64_t pp) {
    for (const core::Candidate& c : r.top)
        if (c.tp != tp || c.pp != pp) return &c;
    return nullptr;
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TesseraTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_session"));
    }

    void pickReachesFormsSaveAndHashAndUndoTakesItBack() {
        QTemporaryDir dir;
        MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        tessera::ui::Session& session = window.session();
        tessera::ui::SpecForm* exec = window.editor()->execForm();
        const QString tpBefore = rowText(exec, "tp"), ppBefore = rowText(exec, "pp");
        const double stepBefore = session.evaluation()->estimate.stepSeconds;
        const QString hashBefore = session.hash();
        QSignalSpy done(&window, &MainWindow::searchFinished);
        window.startSearch();
        QVERIFY(done.wait(60000));
        const core::Candidate* pick = another(session.search()->result, tpBefore.toLongLong(), ppBefore.toLongLong());
        QVERIFY(pick);
        window.pickCandidate(*pick);
        // The forms, the views and the document say the pick, at once.
        QCOMPARE(rowText(exec, "tp"), QString::number(pick->tp));
        QCOMPARE(rowText(exec, "pp"), QString::number(pick->pp));
        QVERIFY(session.evaluationIsCurrent());
        QCOMPARE(session.evaluation()->estimate.stepSeconds, pick->stepSeconds);
        QCOMPARE(session.evaluation()->estimate.peakMemory, pick->peakMemory);
        QVERIFY(window.isDirty());
        QVERIFY(!session.searchIsStale());  // a pick changes only what the search chose
        // Save writes the picked strategy, and the review's hash is the saved scenario's.
        const QString path = dir.filePath(QStringLiteral("picked.yaml"));
        QVERIFY(window.saveTo(path));
        const core::Scenario saved = core::loadScenario(path.toStdString());
        QCOMPARE(*saved.exec.tp, pick->tp);
        QCOMPARE(*saved.exec.pp, pick->pp);
        QCOMPARE(*saved.exec.micro_batch_size, pick->mbs);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString fileHash = QString::fromLatin1(QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex().left(12));
        const tessera::ui::Review review = tessera::ui::reviewOf(session);
        QCOMPARE(review.scenarioHash, fileHash);
        QVERIFY(review.scenarioHash != hashBefore);
        QVERIFY(tessera::ui::titleBlock(review).last().contains(fileHash));
        QCOMPARE(review.evaluation->estimate.stepSeconds, pick->stepSeconds);
        // Undo: back to the strategy before the pick, in the forms and the views.
        session.undoStack()->undo();
        QCOMPARE(rowText(exec, "tp"), tpBefore);
        QCOMPARE(rowText(exec, "pp"), ppBefore);
        QCOMPARE(session.evaluation()->estimate.stepSeconds, stepBefore);
        QCOMPARE(session.hash(), hashBefore);
    }

    void undoAfterAModelPresetRestoresTheModelAsAWhole() {
        MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        tessera::ui::Session& session = window.session();
        const core::Value before = *session.document().find("model");
        auto* presets = window.findChild<QComboBox*>(QStringLiteral("modelPreset"));
        const int index = presets->findData(QStringLiteral("llama3-8b"));
        QVERIFY(index > 0);
        presets->activated(index);
        QCOMPARE(rowText(window.editor()->modelForm(), "hidden_size"), QStringLiteral("4096"));
        QCOMPARE(session.undoStack()->count(), 1);  // one step
        QVERIFY(session.evaluationIsCurrent());
        session.undoStack()->undo();
        QVERIFY(session.document().find("model")->sameAs(before));  // every field, not only the ones typed
        QCOMPARE(rowText(window.editor()->modelForm(), "hidden_size"), QStringLiteral("8192"));
        QCOMPARE(rowText(window.editor()->modelForm(), "num_hidden_layers"), QStringLiteral("80"));
        QVERIFY(!window.isDirty());
    }

    void undoingBackToTheSavedTextIsUnmodified() {
        QTemporaryDir dir;
        MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        tessera::ui::SpecForm* exec = window.editor()->execForm();
        QUndoStack* stack = window.session().undoStack();
        QVERIFY(!window.isDirty() && !window.isWindowModified());
        typeInto(exec, "micro_batch_num", QStringLiteral("32"));
        QVERIFY(window.isDirty() && window.isWindowModified());
        stack->undo();
        QVERIFY(!window.isDirty());
        QVERIFY(!window.isWindowModified());
        // After a save, the saved text is the clean one.
        typeInto(exec, "micro_batch_num", QStringLiteral("32"));  // the global batch follows, to 64
        typeInto(exec, "seq_length", QStringLiteral("4096"));
        QVERIFY(window.saveTo(dir.filePath(QStringLiteral("run.yaml"))));
        QVERIFY(!window.isWindowModified());
        typeInto(exec, "seq_length", QStringLiteral("2048"));
        QVERIFY(window.isWindowModified());
        stack->undo();
        QVERIFY(!window.isWindowModified());
        stack->undo();  // before the save: modified again
        QVERIFY(window.isWindowModified());
        // Typing a field back to what it was is no step at all.
        typeInto(exec, "tp", QStringLiteral("4"));
        const int steps = stack->count();
        typeInto(exec, "tp", QStringLiteral("8"));
        QCOMPARE(stack->count(), steps - 1);
    }

    // What the window, `tessera report` and `tessera search` search when a scenario
    // states no space: the core's default (tst_cli checks the CLI's side).
    void theReportSearchesTheDefaultSpace() {
        tessera::ui::Session session;
        QVERIFY(session.load(QStringLiteral("llama3-8b-a100x8")));
        QVERIFY(session.scenario() && !session.scenario()->search);
        QSignalSpy done(&session, &tessera::ui::Session::searchFinished);
        session.startSearch();
        QVERIFY(done.wait(60000));
        const core::SearchSetup expected = core::searchSetup(*session.scenario());
        QCOMPARE(session.search()->result.spaceSize, expected.space.size());
        QCOMPARE(session.search()->setup.space.varied, expected.space.varied);
        QVERIFY(expected.space.varied.size() >= 10);
        const tessera::ui::Review review = tessera::ui::reviewOf(session);
        QCOMPARE(review.search, session.search());
        QVERIFY(!review.searchStale);
    }

    // Plan (Ctrl+P): DeepSeek-V3's stated strategy does not fit 80 GiB; the plan that
    // does is written into exec as one undo step, and the views price it at once.
    void planIsOneUndoStepThatFits() {
        tessera::ui::Session session;
        QVERIFY(session.load(QStringLiteral("deepseek-v3-h800x2048-1f1b")));
        QVERIFY(session.evaluationIsCurrent());
        QVERIFY(!session.evaluation()->estimate.fits);
        const core::Value before = session.document();
        QSignalSpy planned(&session, &tessera::ui::Session::planned);
        const QString summary = session.plan();
        QCOMPARE(planned.count(), 1);
        QVERIFY2(summary.startsWith("Planned"), qPrintable(summary));
        session.evaluateNow();
        QVERIFY(session.evaluationIsCurrent());
        QVERIFY(session.evaluation()->estimate.fits);
        QVERIFY(session.scenario()->exec.pp_partition);
        QVERIFY(session.scenario()->exec.recompute->size() > 1);  // a choice per layer range
        QVERIFY(session.isModified());
        session.undoStack()->undo();
        QCOMPARE(core::toYaml(session.document()), core::toYaml(before));
        // A budget nothing fits: said, and nothing changes.
        core::Value tight = session.document();
        core::setAt(tight, "exec.device_memory", core::Value::string("8 GiB"));
        session.setScenario(tight, tessera::ui::Change::Edit, "edit exec.device_memory");
        session.evaluateNow();
        const core::Value unchanged = session.document();
        QVERIFY(session.plan().startsWith("No plan fits"));
        QCOMPARE(core::toYaml(session.document()), core::toYaml(unchanged));
    }

    // Plan with offload: at 40 GiB Llama-3 70B's first stages offload rather than recompute,
    // written as activation_offload per stage; one undo step takes it all back.
    void planWithOffloadWritesItPerStage() {
        tessera::ui::Session session;
        QVERIFY(session.load(QStringLiteral("llama3-70b-h100x64")));
        core::Value doc = session.document();
        core::setAt(doc, "exec.device_memory", core::Value::string("40 GiB"));
        session.setScenario(doc, tessera::ui::Change::Edit, "edit exec.device_memory");
        session.evaluateNow();
        const core::Value before = session.document();
        const QString summary = session.plan(true);
        QVERIFY2(summary.startsWith("Planned"), qPrintable(summary));
        session.evaluateNow();
        QVERIFY(session.evaluation()->estimate.fits);
        const auto& offload = session.scenario()->exec.activation_offload;
        QVERIFY(offload && std::holds_alternative<core::StageCounts::Flat>(offload->value));
        const auto& counts = std::get<core::StageCounts::Flat>(offload->value);
        QCOMPARE(counts.size(), std::size_t(4));
        QVERIFY(counts.front() > 0);
        // The evaluation marks exactly those layers offloaded, each stage's first.
        const auto& stages = session.evaluation()->layers.stages;
        for (std::size_t s = 0; s < stages.size(); ++s)
            for (std::size_t i = 0; i < stages[s].size(); ++i)
                QCOMPARE(stages[s][i].offloaded, std::int64_t(i) < counts[s]);
        session.undoStack()->undo();
        QCOMPARE(core::toYaml(session.document()), core::toYaml(before));
    }

    // A field the cost model does not price is greyed, and its tooltip says why.
    void unpricedFieldsAreGreyedWithTheirReason() {
        MainWindow window({}, nullptr, false);
        tessera::ui::SpecForm* exec = window.editor()->execForm();
        QWidget* row = exec->editor(QStringLiteral("param_casts"));
        QVERIFY(row);
        QVERIFY2(row->toolTip().startsWith(QStringLiteral("Not priced: ")), qPrintable(row->toolTip()));
        QVERIFY(row->toolTip().contains(QStringLiteral("compute-dtype copies")));
        QVERIFY(!exec->editor(QStringLiteral("tp"))->toolTip().contains(QStringLiteral("Not priced")));
        QVERIFY(!exec->editor(QStringLiteral("seq_split"))->toolTip().contains(QStringLiteral("Not priced")));  // seqpipe prices it
        auto* box = qobject_cast<QComboBox*>(row);
        QVERIFY(box);
        box->setCurrentText(QStringLiteral("true"));
        window.session().evaluateNow();
        QVERIFY(window.session().evaluationIsCurrent());
        QVERIFY(row->toolTip().startsWith(QStringLiteral("Not priced: ")));  // still, once evaluated
        QVERIFY(qobject_cast<QPlainTextEdit*>(window.view(QStringLiteral("estimate")))->toPlainText().contains(
            QStringLiteral("Stated but not priced")));
    }

    // A field priced in general but not beside what else is stated (a capacity factor
    // beside dropless experts) is greyed while that holds, and says why.
    void aFieldUnpricedBesideAnotherIsGreyedWhileItHolds() {
        MainWindow window({}, nullptr, false);
        tessera::core::Value doc = window.session().document();
        tessera::core::setAt(doc, "model", *tessera::core::loadPreset(tessera::core::PresetKind::Model, "mixtral-8x7b"));
        window.session().setScenario(doc, tessera::ui::Change::Import, QStringLiteral("a MoE model"));
        tessera::ui::SpecForm* exec = window.editor()->execForm();
        QWidget* row = exec->editor(QStringLiteral("capacity_factor"));
        QVERIFY(!row->toolTip().contains(QStringLiteral("Not priced")));
        typeInto(exec, "capacity_factor", QStringLiteral("1.5"));
        window.session().evaluateNow();
        QVERIFY2(window.session().evaluationIsCurrent(), window.session().problems().empty() ? "" : window.session().problems().front().text().c_str());
        QVERIFY2(row->toolTip().startsWith(QStringLiteral("Not priced here: grouped_gemm is true")), qPrintable(row->toolTip()));
        QVERIFY(qobject_cast<QPlainTextEdit*>(window.view(QStringLiteral("estimate")))->toPlainText().contains(
            QStringLiteral("exec.capacity_factor")));
        doc = window.session().document();
        tessera::core::setAt(doc, "exec.grouped_gemm", tessera::core::Value::boolean(false));
        window.session().setScenario(doc, tessera::ui::Change::Edit, QStringLiteral("per-expert GEMMs"));
        window.session().evaluateNow();
        QVERIFY2(!row->toolTip().contains(QStringLiteral("Not priced")), qPrintable(row->toolTip()));
    }

    // A search of another model is stale, and says so, until it runs again.
    void aSearchOfAnotherScenarioIsStale() {
        MainWindow window({}, nullptr, false);
        window.setNeverAsk(true);
        QSignalSpy done(&window, &MainWindow::searchFinished);
        window.startSearch();
        QVERIFY(done.wait(60000));
        QVERIFY(!window.session().searchIsStale());
        typeInto(window.editor()->modelForm(), "num_hidden_layers", QStringLiteral("40"));
        QVERIFY(window.session().searchIsStale());
        QVERIFY(!tessera::ui::reviewOf(window.session()).search->result.top.empty());
        QVERIFY(tessera::ui::reviewOf(window.session()).searchStale);
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
