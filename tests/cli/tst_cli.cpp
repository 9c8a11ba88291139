// The tessera binary end to end: commands, output, exit codes.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int code = -1;
    QString out, err;
};

Run tessera(const QStringList& args, const QString& workDir = {}) {
    QProcess p;
    if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
    p.start(QStringLiteral(TESSERA_BINARY), args);
    p.waitForFinished(60000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

const QString kData = QStringLiteral(TESSERA_TEST_DATA);

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void helpDocumentsExitCodes() {
        const Run r = tessera({"--help"});
        QCOMPARE(r.code, 0);
        for (const char* s : {"validate", "show", "presets", "import-hf", "Exit codes", "64"}) QVERIFY2(r.out.contains(s), s);
    }

    void unknownCommandIsAUsageError() {
        QCOMPARE(tessera({"show"}).code, 64);
        QCOMPARE(tessera({"show", "a", "b"}).code, 64);
        QCOMPARE(tessera({"import-hf", "x.json", "-o"}).code, 64);
    }

    void validateGoodFiles() {
        const Run r = tessera({"validate", "llama3-70b-h100x64", kData + "/valid/llama3-8b-custom-device.yaml"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(r.out.count(": ok"), 2);
    }

    void validateBadFileOneErrorPerLine() {
        const Run r = tessera({"validate", kData + "/cli/three-mistakes.yaml", "llama3-70b-h100x64"});
        QCOMPARE(r.code, 2);
        const QStringList lines = r.err.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        for (const QString& line : lines) QVERIFY2(line.contains(QRegularExpression(R"(three-mistakes\.yaml:\d+:\d+: \w+\.\w+: )")), qPrintable(line));
        QVERIFY(r.out.contains("llama3-70b-h100x64: ok"));  // later files are still checked
    }

    void showText() {
        const Run r = tessera({"show", "llama3-70b-h100x64"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("# family llama"));
        QVERIFY(r.out.contains("# derived: "));
        QVERIFY(r.out.contains("# default"));
        QVERIFY(r.out.contains("total: 70553706496  # 70,553,706,496"));
    }

    void showJson() {
        const Run r = tessera({"show", "--json", "deepseek-v3-h800x2048"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["parameters"]["total"].toDouble(), 682636487424.0);
        QCOMPARE(o["parameters"]["without_mtp"].toDouble(), 671026419200.0);
        QVERIFY(o["parameters"]["by_kind"].toObject().contains("routed_experts"));
        QCOMPARE(o["scenario"]["exec"]["ep"].toInt(), 64);
        QCOMPARE(o["filled"]["exec.grad_accumulation"].toString(), QString("derived: gradients accumulate over micro-batches"));
        QCOMPARE(o["partition"].toArray().first().toArray().size(), 16);
    }

    void presetsListsEveryKind() {
        const Run r = tessera({"presets"});
        QCOMPARE(r.code, 0);
        for (const char* id : {"Models:", "Devices:", "Scenarios:", "llama3-405b", "ascend-910c", "mi300x", "deepseek-v3-h800x2048"})
            QVERIFY2(r.out.contains(id), id);
    }

    void importHfPrintsAndWrites() {
        Run r = tessera({"import-hf", kData + "/hf/mixtral-8x7b.json"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("arch: mixtral"));
        QVERIFY(r.out.contains("num_experts: 8"));
        QVERIFY(r.out.contains("46,702,792,704 parameters"));

        QTemporaryDir dir;
        const QString out = dir.filePath("model.yaml");
        r = tessera({"import-hf", kData + "/hf/llama3-8b.json", "-o", out});
        QCOMPARE(r.code, 0);
        QVERIFY(QFile::exists(out));
        // Nothing the user wrote is overwritten without asking.
        r = tessera({"import-hf", kData + "/hf/mixtral-8x7b.json", "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("exists; pass --force"));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("arch: llama"));
        file.close();
        QCOMPARE(tessera({"import-hf", kData + "/hf/mixtral-8x7b.json", "-o", out, "--force"}).code, 0);

        // The written model section is usable by a scenario.
        QFile scenario(dir.filePath("run.yaml"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        scenario.write("model: {file: model.yaml}\nexec: {ep: 8, seq_length: 4096, global_batch_size: 16}\n"
                       "cluster: {device: h100-sxm, devices: 8}\n");
        scenario.close();
        r = tessera({"validate", "run.yaml"}, dir.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void importHfRefusesBadConfig() {
        const Run r = tessera({"import-hf", kData + "/invalid/json-syntax.json"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("JSON syntax"));
        QCOMPARE(tessera({"import-hf", "/nonexistent/config.json"}).code, 1);  // unreadable, not refused
        QCOMPARE(tessera({"validate", "/nonexistent/scenario.yaml"}).code, 1);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
