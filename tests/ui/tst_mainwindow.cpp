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
        // The window draws something: not a blank image. Set TESSERA_SCREENSHOT_DIR to keep it.
        const QImage image = window.grab().toImage();
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() >= 3, "the window grabbed blank");
        if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(image.save(QString::fromLocal8Bit(dir) + "/mainwindow.png"));
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
