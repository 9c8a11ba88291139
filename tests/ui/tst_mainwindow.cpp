// The placeholder main window opens on the default scenario (offscreen).
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "mainwindow/mainwindow.h"

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void opensTheDefaultScenario() {
        tessera::ui::MainWindow window({});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString text = window.findChild<QPlainTextEdit*>()->toPlainText();
        QVERIFY(text.contains("Llama-3 70B"));
        QVERIFY(text.contains("NVIDIA H100"));
        QVERIFY(window.windowTitle().contains("llama3-70b-h100x64"));
    }

    void showsEveryProblemOfABadFile() {
        tessera::ui::MainWindow window(QStringLiteral(TESSERA_TEST_DATA "/cli/three-mistakes.yaml"));
        const QString text = window.findChild<QPlainTextEdit*>()->toPlainText();
        QVERIFY(text.contains("cannot be used"));
        QVERIFY(text.contains("model.num_hiden_layers"));
        QVERIFY(text.contains("exec.pp_schedule"));
        QVERIFY(window.statusBar()->currentMessage().contains("3"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
