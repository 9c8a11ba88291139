// One bad file per refusal rule (tests/data/invalid). Each file says, in its
// header, the rule it breaks, the message expected and where:
//   # rule: exec.tp must divide the attention heads
//   # expect: exec.tp: must divide num_attention_heads (64), got 3
//   # at: 7:7
// (.json files carry these lines in FILE.json.expect beside them). The file must be
// refused - by the loader or by resolve - with that message at that position.
#include <QDir>
#include <QtTest>

#include "io/scenarioio.h"
#include "resolve/resolve.h"

using namespace tessera::core;

class TestInvalid : public QObject {
    Q_OBJECT
private slots:
    void refused_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("expects");
        QTest::addColumn<QString>("at");
        const QDir dir(QStringLiteral(TESSERA_TEST_DATA "/invalid"));
        const QStringList files = dir.entryList({"*.yaml", "*.json"}, QDir::Files, QDir::Name);
        QVERIFY2(files.size() >= 80, "the refusal files are missing");
        for (const QString& name : files) {
            const QString path = dir.filePath(name);
            QFile header(name.endsWith(".json") ? path + ".expect" : path);
            QVERIFY2(header.open(QIODevice::ReadOnly), qPrintable(header.fileName()));
            QStringList expects;
            QString at;
            bool hasRule = false;
            for (const QByteArray& raw : header.readAll().split('\n')) {
                const QString line = QString::fromUtf8(raw);
                if (line.startsWith("# expect: ")) expects << line.mid(10);
                else if (line.startsWith("# at: ")) at = line.mid(6).trimmed();
                else if (line.startsWith("# rule: ")) hasRule = true;
            }
            QVERIFY2(hasRule && !expects.isEmpty(), qPrintable(name + ": no # rule: / # expect: header"));
            QTest::newRow(qPrintable(name)) << path << expects << at;
        }
    }
    void refused() {
        QFETCH(QString, path);
        QFETCH(QStringList, expects);
        QFETCH(QString, at);
        std::vector<Diagnostic> diagnostics;
        try {
            resolve(loadScenario(path.toStdString()));
        } catch (const SpecError& e) {
            diagnostics = e.diagnostics();
        }
        QVERIFY2(!diagnostics.empty(), "the file was accepted");
        QString all;
        for (const Diagnostic& d : diagnostics) all += QString::fromStdString(d.text()) + "\n";
        for (int i = 0; i < expects.size(); ++i) {
            const auto hit = std::find_if(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
                return QString::fromStdString(d.text()).contains(expects[i]);
            });
            QVERIFY2(hit != diagnostics.end(), qPrintable("expected \"" + expects[i] + "\" in:\n" + all));
            if (i == 0 && !at.isEmpty())
                QCOMPARE(QString("%1:%2").arg(hit->mark.line).arg(hit->mark.column), at);
        }
        // One mistake, one message (plus any the file's header declares).
        QVERIFY2(diagnostics.size() <= std::size_t(expects.size()), qPrintable("more problems than expected:\n" + all));
    }
};

QTEST_APPLESS_MAIN(TestInvalid)
#include "tst_invalid.moc"
