// The forms in the user's language (issue 17): rows read "Tensor parallel · tp" in the
// groups an engineer looks for them in; an unstated row shows what it resolved to and
// where that came from; rows that cannot apply to the model are hidden unless stated;
// the field reference (F1) is built from the same tables; View ▸ tabs on Ctrl+1..6.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTabWidget>
#include <QUndoStack>
#include <QWheelEvent>
#include <QtTest>

#include "forms/fieldreference.h"
#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "mainwindow/mainwindow.h"

using tessera::ui::MainWindow;
using tessera::ui::SpecForm;

namespace {

QLabel* labelOf(SpecForm* form, const QString& key) {
    for (QLabel* l : form->findChildren<QLabel*>())
        if (l->text().contains(QStringLiteral("· %1<").arg(key))) return l;
    return nullptr;
}

void clear(SpecForm* form, const char* key) {
    auto* line = qobject_cast<QLineEdit*>(form->editor(QString::fromLatin1(key)));
    line->selectAll();
    QTest::keyClick(line, Qt::Key_Delete);
}

}  // namespace

class TestForms : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TesseraTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_forms"));
    }

    void rowsReadInWordsInTheirGroups_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("words");
        QTest::addColumn<QString>("group");
        QTest::newRow("tp") << "tp" << "Tensor parallel" << "Parallelism";
        QTest::newRow("micro_batch_num") << "micro_batch_num" << "Micro-batches per step" << "Batch";
        QTest::newRow("recompute") << "recompute" << "Recompute ranges" << "Recompute & offload";
        QTest::newRow("grad_shard") << "grad_shard" << "Shard gradients (ZeRO-2)" << "Sharding";
        QTest::newRow("compute_dtype") << "compute_dtype" << "Compute data type" << "Precision";
        QTest::newRow("pp_schedule") << "pp_schedule" << "Schedule" << "Pipeline schedule";
        QTest::newRow("tp_comm_overlap") << "tp_comm_overlap" << "Overlap TP with GEMMs" << "Overlap";
        QTest::newRow("memory_reserve") << "memory_reserve" << "Memory reserve" << "Advanced";
    }
    void rowsReadInWordsInTheirGroups() {
        QFETCH(QString, key);
        QFETCH(QString, words);
        QFETCH(QString, group);
        MainWindow w({}, nullptr, false);
        SpecForm* exec = w.editor()->execForm();
        QCOMPARE(exec->groupOf(key), group);
        QLabel* label = labelOf(exec, key);
        QVERIFY2(label, qPrintable(key));
        QVERIFY2(label->text().startsWith(words.toHtmlEscaped() + " "), qPrintable(label->text()));
        QVERIFY(!exec->editor(key)->toolTip().isEmpty());
    }

    // The default scenario states dp; emptied, its placeholder says what it resolves to and why.
    void unstatedRowsShowTheirResolvedValueAndOrigin() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        SpecForm* exec = w.editor()->execForm();
        const QString dp = exec->text(QStringLiteral("dp"));
        clear(exec, "dp");
        w.session().evaluateNow();
        QVERIFY(w.session().evaluationIsCurrent());
        QVERIFY2(exec->placeholder(QStringLiteral("dp")).startsWith(dp + QStringLiteral(" · derived: ")),
                 qPrintable(exec->placeholder(QStringLiteral("dp"))));
        // A defaulted switch names its default; a choice row shows it as its empty item.
        QVERIFY2(exec->placeholder(QStringLiteral("shard_activations")).endsWith(QStringLiteral(" · default")) ||
                     exec->placeholder(QStringLiteral("shard_activations")).contains(QStringLiteral(" · default")),
                 qPrintable(exec->placeholder(QStringLiteral("shard_activations"))));
        // While the document does not resolve, no placeholder pretends to know.
        auto* tp = qobject_cast<QLineEdit*>(exec->editor(QStringLiteral("tp")));
        tp->selectAll();
        QTest::keyClicks(tp, QStringLiteral("3"));
        w.session().evaluateNow();
        QCOMPARE(exec->placeholder(QStringLiteral("dp")), QStringLiteral("not resolved"));
    }

    // Expert rows beside a dense model, MLA rows beside GQA: hidden until the model has them.
    void rowsThatCannotApplyAreHidden() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        SpecForm *exec = w.editor()->execForm(), *model = w.editor()->modelForm();
        QVERIFY(!exec->isRowShown(QStringLiteral("ep")));
        QVERIFY(!model->isRowShown(QStringLiteral("moe_intermediate_size")));
        QVERIFY(!model->isRowShown(QStringLiteral("q_lora_rank")));
        QVERIFY(model->isRowShown(QStringLiteral("num_key_value_heads")));
        QVERIFY(exec->isRowShown(QStringLiteral("tp")));
        auto* presets = w.findChild<QComboBox*>(QStringLiteral("modelPreset"));
        emit presets->activated(presets->findData(QStringLiteral("deepseek-v3")));
        QVERIFY(w.session().evaluation());
        QVERIFY(exec->isRowShown(QStringLiteral("ep")));
        QVERIFY(model->isRowShown(QStringLiteral("moe_intermediate_size")));
        QVERIFY(model->isRowShown(QStringLiteral("q_lora_rank")));
        QVERIFY(!model->isRowShown(QStringLiteral("num_key_value_heads")) || !model->text(QStringLiteral("num_key_value_heads")).isEmpty());
        w.session().undoStack()->undo();
        QVERIFY(!exec->isRowShown(QStringLiteral("ep")));
    }

    // Ctrl+Z in a field is the window's undo (one step per edit), not the line's own.
    void ctrlZInAFieldIsTheWindowsUndo() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto* mbs = qobject_cast<QLineEdit*>(w.editor()->execForm()->editor(QStringLiteral("seq_length")));
        const QString before = mbs->text();
        mbs->setFocus();
        mbs->selectAll();
        QTest::keyClicks(mbs, QStringLiteral("4096"));
        QCOMPARE(w.session().undoStack()->count(), 1);
        QTest::keyClick(mbs, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.session().undoStack()->index(), 0);  // the window's step was undone
        QCOMPARE(mbs->text(), before);
        const QKeyCombination redo = QKeySequence(QKeySequence::Redo)[0];
        QTest::keyClick(mbs, redo.key(), redo.keyboardModifiers());
        QCOMPARE(w.session().undoStack()->index(), 1);
        QCOMPARE(mbs->text(), QStringLiteral("4096"));
    }

    // Scrolling the form with the wheel over a choice it passes does not state a value:
    // an unfocused box hands the wheel to the form; a focused one takes it.
    void wheelOverAnUnfocusedChoiceScrollsTheForm() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto* box = qobject_cast<QComboBox*>(w.editor()->execForm()->editor(QStringLiteral("optimizer_offload_overlap")));
        QVERIFY(box);
        const QString before = box->currentText();
        auto wheel = [&] {
            const QPointF at = QPointF(box->rect().center());
            QWheelEvent down(at, box->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QCoreApplication::sendEvent(box, &down);
        };
        w.editor()->execForm()->setFocus();
        QVERIFY(!box->hasFocus());
        wheel();
        QCOMPARE(box->currentText(), before);
        QCOMPARE(w.session().undoStack()->count(), 0);
        box->setFocus();
        QTRY_VERIFY(box->hasFocus());
        wheel();
        QVERIFY(box->currentText() != before);  // focused, the wheel picks the next choice
        QCOMPARE(w.session().undoStack()->count(), 1);
    }

    // Every shown row keeps its field at full height, clear of the rows around it: with
    // rows hidden between them (a dense model's expert rows), QFormLayout laid "Gradient
    // clipping", the row after it and "Overlap parameter gather" at height 0, their fields
    // gone from the window (seen under Xvfb), until hidden rows left the form.
    void shownRowsKeepTheirFields() {
        MainWindow w({}, nullptr, false);
        w.setNeverAsk(true);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        SpecForm* form = w.editor()->execForm();
        int shown = 0;
        std::vector<std::pair<QRect, QString>> boxes;
        for (QWidget* e : form->findChildren<QWidget*>()) {
            if (!e->objectName().startsWith(QStringLiteral("exec.")) || e->objectName().contains(QStringLiteral(".group.")) ||
                !form->isRowShown(e->objectName().mid(5)))
                continue;
            ++shown;
            QVERIFY2(e->height() >= e->minimumSizeHint().height(),
                     qPrintable(QString("%1 is %2 px high").arg(e->objectName()).arg(e->height())));
            const QRect at(e->mapTo(form, QPoint(0, 0)), e->size());
            for (const auto& [other, name] : boxes)
                QVERIFY2(!at.intersects(other), qPrintable(e->objectName() + " overlaps " + name));
            boxes.emplace_back(at, e->objectName());
        }
        QVERIFY(shown > 30);
        QVERIFY(form->isRowShown(QStringLiteral("grad_clip")) && form->isRowShown(QStringLiteral("optimizer_post_validation")));
    }

    void pinsMarkTheLabel() {
        MainWindow w({}, nullptr, false);
        SpecForm* exec = w.editor()->execForm();
        exec->setPinned(QStringLiteral("dp"), true);
        QVERIFY(exec->isPinned(QStringLiteral("dp")));
        QVERIFY(labelOf(exec, QStringLiteral("dp"))->text().contains(QStringLiteral("📌")));
        exec->setPinned(QStringLiteral("dp"), false);
        QVERIFY(!labelOf(exec, QStringLiteral("dp"))->text().contains(QStringLiteral("📌")));
    }

    void fieldReferenceAndViewShortcuts() {
        const QString html = tessera::ui::fieldReferenceHtml();
        for (const char* s : {"Tensor parallel", "exec.tp", "model.kv_lora_rank", "cluster.devices", "Parallelism"})
            QVERIFY2(html.contains(QString::fromUtf8(s)), s);
        MainWindow w({}, nullptr, false);
        QStringList menus;
        for (QAction* a : w.menuBar()->actions()) menus << a->text().remove(QLatin1Char('&'));
        QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Search", "Help"}));
        auto* tabs = w.findChild<QTabWidget*>();
        QMenu* view = w.menuBar()->actions().at(2)->menu();
        QCOMPARE(view->actions().size(), tabs->count());
        for (int i = 0; i < tabs->count(); ++i) {
            QCOMPARE(view->actions().at(i)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
            view->actions().at(i)->trigger();
            QCOMPARE(tabs->currentIndex(), i);
        }
        QMenu* help = w.menuBar()->actions().at(4)->menu();
        QCOMPARE(help->actions().first()->shortcut(), QKeySequence(QKeySequence::HelpContents));
    }
};

QTEST_MAIN(TestForms)
#include "tst_forms.moc"
