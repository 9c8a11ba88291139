// Nothing lost: unsaved edits reach a recovery file, a killed process's file is
// offered back and restores the edit, a clean close or a save leaves nothing to
// recover, and a failed save (read-only folder, full disk) says so and keeps the data.
//
// The crash is real: the test starts itself as a child process (--child-edit) that
// opens a scenario, edits a field, waits for its autosave and is then SIGKILLed.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

#include "forms/scenarioeditor.h"
#include "forms/specform.h"
#include "io/scenarioio.h"
#include "mainwindow/mainwindow.h"

using tessera::ui::MainWindow;
using tessera::ui::RecoveryFile;

namespace {

void setUpPaths() {
    QStandardPaths::setTestModeEnabled(true);  // the tests' folders, not the user's
    QCoreApplication::setOrganizationName("TesseraTests");
    QCoreApplication::setApplicationName("tst_autosave");
}

void typeInto(MainWindow& window, const char* key, const QString& text) {
    auto* line = qobject_cast<QLineEdit*>(window.editor()->execForm()->editor(key));
    line->selectAll();
    QTest::keyClicks(line, text);
}

// The child: edit, autosave, say so, then wait to be killed.
int childEdit(const QString& scenario) {
    MainWindow window(scenario, nullptr, false);
    window.setNeverAsk(true);
    window.setAutosaveInterval(50);
    window.show();
    typeInto(window, "micro_batch_num", "32");  // with the batch kept consistent: a valid scenario
    typeInto(window, "global_batch_size", "64");
    if (!QTest::qWaitFor([&] { return QFile::exists(window.recoveryPath()); }, 10000)) return 3;
    std::printf("autosaved %s\n", qPrintable(window.recoveryPath()));
    std::fflush(stdout);
    return qApp->exec();  // until SIGKILL
}

QString writeScenario(const QTemporaryDir& dir) {
    const QString path = dir.filePath("run.yaml");
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(QByteArray::fromStdString(tessera::core::scenarioYaml(tessera::core::presetScenario("llama3-70b-h100x64"))));
    return path;
}

}  // namespace

class TestAutosave : public QObject {
    Q_OBJECT
private slots:
    void init() { QDir(RecoveryFile::defaultFolder()).removeRecursively(); }
    void cleanupTestCase() { QDir(RecoveryFile::defaultFolder()).removeRecursively(); }

    void killedProcessIsRecovered() {
        QTemporaryDir dir;
        const QString scenario = writeScenario(dir);
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(), {"--child-edit", scenario});
        QVERIFY(child.waitForStarted());
        QVERIFY2(child.waitForReadyRead(30000), qPrintable(child.readAllStandardError()));
        QVERIFY(child.readAllStandardOutput().startsWith("autosaved"));
        // While it lives, its file is not another window's to take.
        QCOMPARE(RecoveryFile::orphans().size(), 0);
        child.kill();  // SIGKILL: no destructor, no clean close
        QVERIFY(child.waitForFinished());

        const QList<tessera::ui::Recovery> orphans = RecoveryFile::orphans();
        QCOMPARE(orphans.size(), 1);
        QCOMPARE(orphans.first().original, QFileInfo(scenario).absoluteFilePath());
        QVERIFY(orphans.first().saved.secsTo(QDateTime::currentDateTimeUtc()) < 120);

        MainWindow window(scenario, nullptr, false);
        window.setNeverAsk(true);
        QVERIFY(!window.isDirty());
        QVERIFY(window.restoreRecovery(orphans.first()));
        QVERIFY(window.isDirty());  // restored, not yet saved
        QCOMPARE(qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("micro_batch_num"))->text(), QString("32"));
        QVERIFY(window.windowTitle().startsWith("run.yaml"));
        QCOMPARE(RecoveryFile::orphans().size(), 0);      // the window holds it now
        QVERIFY(QFile::exists(window.recoveryPath()));     // in its own recovery file
        // The file on disk is untouched until the user saves.
        QCOMPARE(*tessera::core::loadScenario(scenario.toStdString()).exec.micro_batch_num, std::int64_t{64});
        QVERIFY(window.save());
        QCOMPARE(*tessera::core::loadScenario(scenario.toStdString()).exec.micro_batch_num, std::int64_t{32});
        QVERIFY(!QFile::exists(window.recoveryPath()));
    }

    void cleanEndsLeaveNothing() {
        QTemporaryDir dir;
        const QString scenario = writeScenario(dir);
        QString written;
        {
            MainWindow window(scenario, nullptr, false);
            window.setNeverAsk(true);
            window.setAutosaveInterval(10);
            window.show();
            typeInto(window, "micro_batch_num", "24");
            QTRY_VERIFY(QFile::exists(window.recoveryPath()));
            written = window.recoveryPath();
            QVERIFY(window.close());  // never asks: the changes are dropped by choice
        }
        QVERIFY(!QFile::exists(written));
        QCOMPARE(QDir(RecoveryFile::defaultFolder()).entryList(QDir::Files).size(), 0);
    }

    // A save that fails says why, keeps the edits in the window and on disk as they
    // were, and leaves the recovery file in place.
    void failedSavesKeepTheData_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("read-only folder") << "readonly";
        QTest::newRow("full disk") << "full";
    }
    void failedSavesKeepTheData() {
        QFETCH(QString, how);
        QTemporaryDir dir;
        const QString scenario = writeScenario(dir);
        const QByteArray before = [&] { QFile f(scenario); f.open(QIODevice::ReadOnly); return f.readAll(); }();
        MainWindow window(scenario, nullptr, false);
        window.setNeverAsk(true);
        window.setAutosaveInterval(10);
        window.show();
        typeInto(window, "micro_batch_num", "40");
        QTRY_VERIFY(QFile::exists(window.recoveryPath()));
        bool saved = true;
        if (how == "readonly") {
            // Root ignores permission bits, so there the folder is /proc, which nobody can write.
            QString target = "/proc/tessera-run.yaml";
            if (geteuid() != 0) {
                QDir(dir.path()).mkdir("locked");
                QFile::setPermissions(dir.filePath("locked"), QFile::ReadOwner | QFile::ExeOwner);
                target = dir.filePath("locked/run.yaml");
            }
            saved = window.saveTo(target);
        } else {
            // A file-size limit makes every write past 64 bytes fail as a full disk does.
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit old{};
            getrlimit(RLIMIT_FSIZE, &old);
            rlimit small = old;
            small.rlim_cur = 64;
            setrlimit(RLIMIT_FSIZE, &small);
            saved = window.saveTo(scenario);
            setrlimit(RLIMIT_FSIZE, &old);
        }
        QVERIFY(!saved);
        QVERIFY2(window.statusBar()->currentMessage().contains("still here"), qPrintable(window.statusBar()->currentMessage()));
        if (how == "full") QVERIFY2(window.statusBar()->currentMessage().contains("is it full?"), qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(window.isDirty());
        QCOMPARE(qobject_cast<QLineEdit*>(window.editor()->execForm()->editor("micro_batch_num"))->text(), QString("40"));
        QVERIFY(QFile::exists(window.recoveryPath()));
        QFile after(scenario);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);  // the old file is whole
        QCOMPARE(QDir(dir.path()).entryList({"*.yaml*"}, QDir::Files), QStringList{"run.yaml"});  // no temp left
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    setUpPaths();
    if (argc == 3 && QByteArray(argv[1]) == "--child-edit") return childEdit(QString::fromLocal8Bit(argv[2]));
    TestAutosave test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_autosave.moc"
