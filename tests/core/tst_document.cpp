// The document layer: scalar typing, positions, the guard rails against hostile
// input, and emitting text that reads back to the same tree.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "doc/document.h"
#include "doc/emit.h"
#include "units/units.h"

using namespace tessera::core;
Q_DECLARE_METATYPE(tessera::core::Value::Kind)

namespace {

bool sameTree(const Value& a, const Value& b) {
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case Value::Kind::Null: return true;
    case Value::Kind::Bool: return a.asBool() == b.asBool();
    case Value::Kind::Int: return a.asInt() == b.asInt();
    case Value::Kind::Float: return a.asDouble() == b.asDouble() || (std::isnan(a.asDouble()) && std::isnan(b.asDouble()));
    case Value::Kind::String: return a.asString() == b.asString();
    case Value::Kind::List:
        if (a.items().size() != b.items().size()) return false;
        for (std::size_t i = 0; i < a.items().size(); ++i)
            if (!sameTree(a.items()[i], b.items()[i])) return false;
        return true;
    case Value::Kind::Map:
        if (a.entries().size() != b.entries().size()) return false;
        for (std::size_t i = 0; i < a.entries().size(); ++i)
            if (a.entries()[i].key != b.entries()[i].key || !sameTree(a.entries()[i].value, b.entries()[i].value)) return false;
        return true;
    }
    return false;
}

QString loadError(const std::string& text, Format format) {
    try {
        parseDocument(text, "t", format);
    } catch (const LoadError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestDocument : public QObject {
    Q_OBJECT
private slots:
    void scalarTyping_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Value::Kind>("kind");
        QTest::addColumn<QString>("described");
        QTest::newRow("integer") << "v: 8" << Value::Kind::Int << "8";
        QTest::newRow("negative") << "v: -12" << Value::Kind::Int << "-12";
        QTest::newRow("hex") << "v: 0x10" << Value::Kind::Int << "16";
        QTest::newRow("octal") << "v: 0o17" << Value::Kind::Int << "15";
        QTest::newRow("quoted number is text") << "v: \"8\"" << Value::Kind::String << "\"8\"";
        QTest::newRow("float") << "v: 1.5e3" << Value::Kind::Float << "1500";
        QTest::newRow("true") << "v: true" << Value::Kind::Bool << "true";
        QTest::newRow("yes is text (YAML 1.2)") << "v: yes" << Value::Kind::String << "\"yes\"";
        QTest::newRow("tilde") << "v: ~" << Value::Kind::Null << "null";
        QTest::newRow("empty") << "v:" << Value::Kind::Null << "null";
        QTest::newRow("nan") << "v: .nan" << Value::Kind::Float << ".nan";
        QTest::newRow("inf") << "v: -.inf" << Value::Kind::Float << "-.inf";
        QTest::newRow("largest int64") << "v: 9223372036854775807" << Value::Kind::Int << "9223372036854775807";
        QTest::newRow("smallest int64") << "v: -9223372036854775808" << Value::Kind::Int << "-9223372036854775808";
        QTest::newRow("text") << "v: llama3-70b" << Value::Kind::String << "\"llama3-70b\"";
    }
    void scalarTyping() {
        QFETCH(QString, text);
        QFETCH(Value::Kind, kind);
        QFETCH(QString, described);
        const Value doc = parseDocument(text.toStdString(), "t", Format::Yaml);
        QCOMPARE(doc.find("v")->kind(), kind);
        QCOMPARE(QString::fromStdString(doc.find("v")->describe()), described);
    }

    void jsonTyping() {
        const Value doc = parseDocument(R"({"i": 8, "u": 9223372036854775807, "f": 0.5, "s": "8", "b": false, "n": null})",
                                        "t.json", Format::Json);
        QCOMPARE(doc.find("i")->kind(), Value::Kind::Int);
        QCOMPARE(doc.find("u")->asInt(), std::int64_t{9223372036854775807});
        QCOMPARE(doc.find("f")->kind(), Value::Kind::Float);
        QCOMPARE(doc.find("s")->kind(), Value::Kind::String);
        QCOMPARE(doc.find("b")->kind(), Value::Kind::Bool);
        QVERIFY(doc.find("n")->isNull());
    }

    void yamlPositions() {
        const Value doc = parseDocument("model: x\nexec:\n  tp: 8\n  recompute:\n    - {first: 0}\n", "f.yaml", Format::Yaml);
        const Value& exec = *doc.find("exec");
        QCOMPARE(exec.find("tp")->mark().text(), std::string("f.yaml:3:7"));
        QCOMPARE(exec.findEntry("tp")->keyMark.text(), std::string("f.yaml:3:3"));
        QCOMPARE(exec.find("recompute")->items()[0].find("first")->mark().text(), std::string("f.yaml:5:15"));
    }

    void jsonPositions() {
        const std::string text = "{\n  \"a\": [1, 22],\n  \"b\": \"x\\\"y\",\n  \"c\": {\"d\": true}\n}";
        const Value doc = parseDocument(text, "f.json", Format::Json);
        QCOMPARE(doc.find("a")->mark().text(), std::string("f.json:2:8"));
        QCOMPARE(doc.find("a")->items()[1].mark().text(), std::string("f.json:2:12"));
        QCOMPARE(doc.findEntry("b")->keyMark.text(), std::string("f.json:3:3"));
        QCOMPARE(doc.find("b")->mark().text(), std::string("f.json:3:8"));
        QCOMPARE(doc.find("b")->asString(), std::string("x\"y"));
        QCOMPARE(doc.find("c")->find("d")->mark().text(), std::string("f.json:4:14"));
    }

    void refusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("yaml syntax") << "a: [1, 2\nb: 3" << false << "t:";
        QTest::newRow("yaml 2^70") << "a: 1180591620717411303424" << false << "t:1:4: a: integer 1180591620717411303424 is out of range";
        QTest::newRow("yaml -2^64") << "a: -18446744073709551616" << false << "is out of range";
        QTest::newRow("yaml float overflow") << "a: 1e400" << false << "number 1e400 is out of range";
        QTest::newRow("json 2^70") << "{\"a\": 1180591620717411303424}" << true << "t:1:7: a: integer 1180591620717411303424 is out of range";
        QTest::newRow("json 2^64") << "{\"a\": 18446744073709551616}" << true << "is out of range";
        QTest::newRow("json 2^63") << "{\"a\": 9223372036854775808}" << true << "is out of range";
        QTest::newRow("json syntax") << "{\"a\": tru}" << true << "JSON syntax";
        QTest::newRow("json NaN") << "{\"a\": NaN}" << true << "JSON syntax";
        QTest::newRow("json trailing comma") << "{\"a\": 1,}" << true << "JSON syntax";
        QTest::newRow("yaml duplicate key") << "a: 1\nb: 2\na: 3" << false << "t:3:1: duplicate key 'a' (first at line 1)";
        QTest::newRow("json duplicate key") << "{\"a\": 1, \"a\": 2}" << true << "duplicate key 'a'";
        QTest::newRow("two documents") << "a: 1\n---\nb: 2" << false << "holds 2 YAML documents";
        QTest::newRow("complex key") << "? [a, b]\n: 1" << false << "a key must be plain text";
        QTest::newRow("unknown tag") << "a: !python/object x" << false << "unsupported tag";
    }
    void refusals() {
        QFETCH(QString, text);
        QFETCH(bool, json);
        QFETCH(QString, message);
        const QString error = loadError(text.toStdString(), json ? Format::Json : Format::Yaml);
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // 10,000-deep nesting in every form: one clear error, no stack overflow.
    void deepNesting_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("json");
        const int n = 10000;
        QTest::newRow("yaml flow") << QString(n, '[') + "1" + QString(n, ']') << false;
        QString block;
        for (int i = 0; i < n; ++i) block += "- ";
        QTest::newRow("yaml block") << block + "1" << false;
        QString maps;
        for (int i = 0; i < n; ++i) maps += "{a: ";
        QTest::newRow("yaml flow maps") << maps + "1" + QString(n, '}') << false;
        QTest::newRow("json arrays") << QString(n, '[') + "1" + QString(n, ']') << true;
        QString objects;
        for (int i = 0; i < n; ++i) objects += "{\"a\":";
        QTest::newRow("json objects") << objects + "1" + QString(n, '}') << true;
    }
    void deepNesting() {
        QFETCH(QString, text);
        QFETCH(bool, json);
        const QString error = loadError(text.toStdString(), json ? Format::Json : Format::Yaml);
        QVERIFY2(error.contains("nesting"), qPrintable(error));
    }

    void nestingAtTheLimitLoads() {
        const std::string text = std::string(kMaxDepth, '[') + "1" + std::string(kMaxDepth, ']');
        QCOMPARE(parseDocument(text, "t", Format::Yaml).kind(), Value::Kind::List);
        QCOMPARE(parseDocument(text, "t", Format::Json).kind(), Value::Kind::List);
    }

    // The "billion laughs": aliases that would expand to 10^9 values.
    void aliasBomb() {
        std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
        char prev = 'a';
        for (char c = 'b'; c <= 'i'; ++c, ++prev) {
            text += std::string(1, c) + ": &" + c + " [";
            for (int i = 0; i < 10; ++i) text += std::string(i ? ", *" : "*") + prev;
            text += "]\n";
        }
        const QString error = loadError(text, Format::Yaml);
        QVERIFY2(error.contains("more than 200000 values"), qPrintable(error));
    }

    void hugeFileIsRefusedBeforeReading() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("huge.yaml").toStdString();
        {
            std::ofstream out(path);
            const std::string line = "# padding padding padding padding padding padding padding padding\n";
            for (std::size_t written = 0; written < 50u * 1000 * 1000; written += line.size()) out << line;
        }
        try {
            loadDocument(path);
            QFAIL("a 50 MB file loaded");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains("the limit is 4,194,304 bytes"), e.what());
        }
    }

    void missingFile() {
        try {
            loadDocument("/nonexistent/scenario.yaml");
            QFAIL("loaded a missing file");
        } catch (const FileError& e) {  // a file that cannot be opened is not the input's fault
            QVERIFY(QString(e.what()).contains("cannot open"));
        }
    }

    void emptyDocumentIsNull() { QVERIFY(parseDocument("# nothing\n", "t", Format::Yaml).isNull()); }

    // Text that would read back as another type is quoted; numbers keep their type.
    void emitRoundTrip() {
        Value root = Value::map();
        for (const char* s : {"8", "true", "null", "~", "a: b", "#x", " lead", "-dash", "1.5", "0x1F", "yes", "", "é ü",
                              "line\nbreak", "tab\tin", "quote\"d", "back\\slash", "[x]", "plain text"})
            root.set(std::string("k") + std::to_string(root.entries().size()), Value::string(s));
        root.set("int", Value::integer(-3));
        root.set("float", Value::number(2.0));
        root.set("small", Value::number(0.1));
        root.set("exponent", Value::number(3e-4));
        root.set("bool", Value::boolean(false));
        Value nested = Value::list();
        Value row = Value::list();
        row.push(Value::integer(1));
        row.push(Value::integer(2));
        nested.push(row);
        nested.push(Value::list());
        root.set("nested", nested);
        Value maps = Value::list();
        Value item = Value::map();
        item.set("first", Value::integer(0));
        item.set("ops", Value::map());
        maps.push(item);
        root.set("maps", maps);
        const std::string yaml = toYaml(root);
        QVERIFY2(yaml.find("exponent: 3.0e-04") != std::string::npos, yaml.c_str());  // YAML 1.1 readers need the dot
        const Value back = parseDocument(yaml, "t", Format::Yaml);
        QVERIFY2(sameTree(root, back), yaml.c_str());
        const Value fromJson = parseDocument(toJson(root).dump(), "t.json", Format::Json);
        QVERIFY(sameTree(root, fromJson));
    }

    void memoryText_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("GiB") << "80 GiB" << qint64(80) * GiB;
        QTest::newRow("GB is binary") << "64GB" << qint64(64) * GiB;
        QTest::newRow("fraction") << "1.5 GiB" << qint64(3) * GiB / 2;
        QTest::newRow("MiB") << "81559 MiB" << qint64(81559) * MiB;
        QTest::newRow("bytes") << "4096" << qint64(4096);
        QTest::newRow("bad") << "lots" << qint64(-1);
        QTest::newRow("negative") << "-1 GiB" << qint64(-1);
        QTest::newRow("fractional byte") << "0.5 B" << qint64(-1);
        QTest::newRow("overflow") << "9000000000 TiB" << qint64(-1);
    }
    void memoryText() {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        const std::optional<Bytes> parsed = parseMemory(text.toStdString());
        QCOMPARE(parsed.value_or(-1), bytes);
        if (parsed) QCOMPARE(parseMemory(tessera::core::memoryText(*parsed)), parsed);
    }
};

QTEST_APPLESS_MAIN(TestDocument)
#include "tst_document.moc"
