// The tessera binary end to end: commands, output, exit codes.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/resource.h>

namespace {

struct Run {
    int code = -1;
    QString out, err;
};

Run tessera(const QStringList& args, const QString& workDir = {}, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
           int timeoutMs = 60000) {
    QProcess p;
    if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(TESSERA_BINARY), args);
    if (!p.waitForFinished(timeoutMs)) p.kill(), p.waitForFinished();
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

    // A mistyped command is a usage error with the nearest command, never the window:
    // with an off-screen platform the window would open and the run time out.
    void mistypedCommandNamesTheNearest() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        Run r = tessera({"estimat", "run.yaml"}, {}, env, 15000);
        QCOMPARE(r.code, 64);
        QVERIFY2(r.err.contains("unknown command 'estimat' (did you mean estimate?)"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        r = tessera({"serach", "llama3-70b-h100x64"}, {}, env, 15000);
        QCOMPARE(r.code, 64);
        QVERIFY2(r.err.contains("did you mean search?"), qPrintable(r.err));
        r = tessera({"llama3-70b-h100x46"}, {}, env, 15000);  // a scenario preset's name, mistyped
        QCOMPARE(r.code, 64);
        QVERIFY2(r.err.contains("did you mean the scenario preset llama3-70b-h100x64?"), qPrintable(r.err));
        r = tessera({"frobnicate"}, {}, env, 15000);
        QCOMPARE(r.code, 64);
        QVERIFY2(r.err.contains("not a command, a file or a scenario preset"), qPrintable(r.err));
    }

    // Without a display the window says so and exits 1 (Qt's xcb plugin would abort);
    // a report draws off screen on its own.
    void withoutADisplay() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(name);
        Run r = tessera({}, {}, env, 15000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no display"), qPrintable(r.err));
        QCOMPARE(tessera({"llama3-8b-a100x8"}, {}, env, 15000).code, 1);
        // A display that is named but has no server behind it: said, exit 1, no abort.
        QProcessEnvironment unreachable = env;
        unreachable.insert("DISPLAY", ":237");
        r = tessera({"llama3-8b-a100x8"}, {}, unreachable, 15000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no usable display (DISPLAY=:237)"), qPrintable(r.err));
        QTemporaryDir dir;
        r = tessera({"report", "llama3-8b-a100x8", "-o", dir.filePath("r.pdf")}, {}, env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(dir.filePath("r.pdf")).size() > 10000);
    }

    // Two proposals side by side: every field that differs, with where it came from,
    // and every figure that moves; --set changes B only.
    void diffTwoScenarios() {
        Run r = tessera({"diff", "llama3-70b-h100x64", "llama3-70b-h100x64", "--set", "exec.tp=4", "--set", "exec.dp=4", "--set", "exec.micro_batch_num=32"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QRegularExpression(R"(exec\.tp\s+8\s+4\s+stated / stated)")), qPrintable(r.out));
        for (const char* s : {"exec.dp", "step time", "tokens/s", "MFU", "days to train", "stage 0 parameters",
                              "stage 0 master copy", "memory per device, by stage"})
            QVERIFY2(r.out.contains(s), s);
        QVERIFY2(!r.out.contains("main_parameters"), qPrintable(r.out));  // the table's words, not the JSON key
        r = tessera({"diff", "--json", "llama3-70b-h100x64", "llama3-70b-h100x64", "--set", "exec.tp=4", "--set", "exec.dp=4", "--set", "exec.micro_batch_num=32"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QJsonObject tp;
        for (const QJsonValue f : o["fields"].toArray())
            if (f["path"] == "exec.tp") tp = f.toObject();
        QCOMPARE(tp["a"].toString(), QString("8"));
        QCOMPARE(tp["b"].toString(), QString("4"));
        QJsonObject step;
        for (const QJsonValue f : o["figures"].toArray())
            if (f["figure"] == "step time") step = f.toObject();
        QVERIFY(step["a"].toDouble() > 0 && step["b"].toDouble() > 0);
        QCOMPARE(step["change"].toDouble(), step["b"].toDouble() - step["a"].toDouble());
        // Each side's figure is the one `estimate` prints for it.
        const Run b = tessera({"estimate", "--json", "llama3-70b-h100x64", "--set", "exec.tp=4", "--set", "exec.dp=4", "--set", "exec.micro_batch_num=32"});
        QCOMPARE(step["b"].toDouble(), QJsonDocument::fromJson(b.out.toUtf8()).object()["step_time_s"].toDouble());
        r = tessera({"diff", "llama3-70b-h100x64", "llama3-70b-h100x64"});
        QVERIFY(r.out.contains("No field differs") && r.out.contains("No figure moves"));
        QCOMPARE(tessera({"diff", "llama3-70b-h100x64"}).code, 64);
        QCOMPARE(tessera({"diff", "llama3-70b-h100x64", kData + "/cli/three-mistakes.yaml"}).code, 2);
    }

    // A token budget prices the run's length: steps of the global batch, days at the
    // priced step time, and GPU-hours per trillion tokens.
    void timeToTrain() {
        const Run r = tessera({"estimate", "--json", "llama3-70b-h100x64"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["train_tokens"].toDouble(), 15e12);
        QCOMPARE(o["train_steps"].toDouble(), 14305115.0);  // ceil(15e12 / (128 · 8192))
        const double step = o["step_time_s"].toDouble(), tps = o["tokens_per_second"].toDouble();
        QVERIFY(qAbs(o["train_days"].toDouble() - 14305115.0 * step / 86400) < 1e-6);
        QVERIFY(qAbs(o["gpu_hours_per_trillion_tokens"].toDouble() - 64e12 / tps / 3600) < 1e-6);
        const Run text = tessera({"estimate", "llama3-70b-h100x64"});
        QVERIFY2(text.out.contains(QRegularExpression(R"(Time to train: 15T tokens in 14,305,115 steps, [\d.]+ days on 64 devices)")),
                 qPrintable(text.out));
        // Without a budget: no days, and it says what to state.
        const Run none = tessera({"estimate", "--json", "gpt3-175b-a100x1024"});
        QVERIFY(QJsonDocument::fromJson(none.out.toUtf8()).object()["train_days"].isNull());
        QVERIFY(tessera({"estimate", "gpt3-175b-a100x1024"}).out.contains("state exec.train_tokens"));
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

    void estimateEveryExample_data() {
        QTest::addColumn<QString>("scenario");
        for (const char* id : {"llama3-70b-h100x64", "gpt3-175b-a100x1024", "deepseek-v3-h800x2048", "mixtral-8x7b-h100x32",
                               "llama3-8b-a100x8", "deepseek-v3-h800x2048-1f1b"})
            QTest::newRow(id) << id;
    }
    void estimateEveryExample() {
        QFETCH(QString, scenario);
        const Run text = tessera({"estimate", scenario});
        QCOMPARE(text.code, 0);
        for (const char* s : {"Memory per device, GiB", "stage layers in-flight", "Peak", "Step", "MFU", "Where the step goes"})
            QVERIFY2(text.out.contains(s), s);
        const Run json = tessera({"estimate", scenario, "--json"});
        QCOMPARE(json.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        for (const char* key : {"parameters", "stages", "peak_memory_bytes", "device_memory_bytes", "fits", "step_time_s",
                                "bubble_fraction", "mfu", "tokens_per_second", "time_breakdown_s", "fit_suggestions"})
            QVERIFY2(o.contains(key), key);
        QVERIFY(o["parameters"].toObject().contains("per_device_max"));
        for (const char* key : {"compute", "recompute", "communication_exposed", "bubble", "optimizer"})
            QVERIFY2(o["time_breakdown_s"].toObject().contains(key), key);
        const QJsonObject stage = o["stages"].toArray().first().toObject();
        for (const char* key : {"stage", "layers", "in_flight_micro_batches", "memory", "time"}) QVERIFY2(stage.contains(key), key);
        for (const char* key : {"parameters", "gradients", "optimizer_states", "main_parameters", "activations", "buffers",
                                "working", "total"})
            QVERIFY2(stage["memory"].toObject().contains(key), key);
        for (const char* key : {"forward_s", "backward_s", "recompute_s", "communication_s"})
            QVERIFY2(stage["time"].toObject().contains(key), key);
        qint64 peak = 0;
        for (const QJsonValue& st : o["stages"].toArray()) peak = std::max(peak, qint64(st["memory"]["total"].toDouble()));
        QCOMPARE(qint64(o["peak_memory_bytes"].toDouble()), peak);
        QCOMPARE(o["fits"].toBool(), peak <= qint64(o["device_memory_bytes"].toDouble()));
    }

    // Why the DeepSeek-V3 1F1B preset does not fit, and what would: its first suggestion
    // fits, and its changes, stated with --set, price as it says.
    void estimateSaysWhatWouldFit() {
        const Run text = tessera({"estimate", "deepseek-v3-h800x2048-1f1b"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("Why it does not fit"));
        QVERIFY(text.out.contains("activations") && text.out.contains("dominate"));
        QVERIFY(text.out.indexOf("Why it does not fit") > text.out.indexOf("Memory per device"));
        const Run json = tessera({"estimate", "deepseek-v3-h800x2048-1f1b", "--json"});
        QCOMPARE(json.code, 0);
        const QJsonObject fit = QJsonDocument::fromJson(json.out.toUtf8())["fit_suggestions"].toObject();
        QVERIFY(!fit["fits"].toBool());
        QCOMPARE(fit["dominant"]["term"].toString(), QString("activations"));
        QVERIFY(fit["dominant"]["over_bytes"].toDouble() > 0);
        const QJsonArray suggestions = fit["suggestions"].toArray();
        QVERIFY(!suggestions.isEmpty());
        const QJsonObject first = suggestions.first().toObject();
        QVERIFY(first["fits"].toBool());
        QVERIFY(!first["knobs"].toArray().isEmpty() && !first["changes"].toArray().isEmpty());
        QStringList args{"estimate", "deepseek-v3-h800x2048-1f1b", "--json"};
        for (const QJsonValue& c : first["changes"].toArray()) {
            if (c["implicit"].toBool()) continue;
            const QJsonValue after = c["after"];
            QVERIFY2(!after.isNull(), "a change that removes a key cannot be stated with --set");
            const QString value = after.isString() ? after.toString()
                                  : after.isArray() ? QString::fromUtf8(QJsonDocument(after.toArray()).toJson(QJsonDocument::Compact))
                                  : after.isBool()  ? QString(after.toBool() ? "true" : "false")
                                                    : QString::number(after.toDouble(), 'g', 17);
            args << "--set" << c["key"].toString() + "=" + value;
        }
        const Run applied = tessera(args);
        QVERIFY2(applied.code == 0, qPrintable(applied.err));
        const QJsonObject o = QJsonDocument::fromJson(applied.out.toUtf8()).object();
        QCOMPARE(o["peak_memory_bytes"].toDouble(), first["peak_bytes"].toDouble());
        QCOMPARE(o["step_time_s"].toDouble(), first["step_seconds"].toDouble());
        QVERIFY(o["fits"].toBool());
    }

    // A strategy that fits gets its headroom and the nearest faster ones instead.
    void estimateOfAFittingStrategy() {
        const Run text = tessera({"estimate", "llama3-70b-h100x64"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("Headroom"));
        QVERIFY(!text.out.contains("Why it does not fit"));
    }

    // A stated field the cost model does not price is marked where it shows.
    void unpricedFieldsAreMarked() {
        const Run show = tessera({"show", "llama3-8b-a100x8", "--set", "exec.param_casts=true"});
        QCOMPARE(show.code, 0);
        QVERIFY2(show.out.contains("param_casts: true  # not priced: "), qPrintable(show.out));
        const Run text = tessera({"estimate", "llama3-8b-a100x8", "--set", "exec.param_casts=true"});
        QVERIFY(text.out.contains("Stated but not priced") && text.out.contains("exec.param_casts: true - "));
        const Run json = tessera({"estimate", "llama3-8b-a100x8", "--json", "--set", "exec.param_casts=true"});
        const QJsonArray unpriced = QJsonDocument::fromJson(json.out.toUtf8())["not_priced"].toArray();
        QCOMPARE(unpriced.size(), 1);
        QCOMPARE(unpriced.first()["key"].toString(), QString("exec.param_casts"));
        QVERIFY(QJsonDocument::fromJson(tessera({"estimate", "llama3-8b-a100x8", "--json"}).out.toUtf8())["not_priced"].toArray().isEmpty());
    }

    void estimateOverrides() {
        const Run base = tessera({"estimate", "llama3-70b-h100x64", "--json"});
        const Run tp4 = tessera({"estimate", "llama3-70b-h100x64", "--set", "exec.tp=4", "--set", "exec.dp=4", "--set", "exec.micro_batch_num=32",
                                 "--set=exec.optimizer_shard=4", "--set", "exec.micro_batch_num=32", "--json"});
        QVERIFY2(tp4.code == 0, qPrintable(tp4.err));
        const double baseParams = QJsonDocument::fromJson(base.out.toUtf8())["parameters"]["per_device_max"].toDouble();
        const double tp4Params = QJsonDocument::fromJson(tp4.out.toUtf8())["parameters"]["per_device_max"].toDouble();
        QVERIFY(tp4Params > 1.9 * baseParams);  // half the tensor parallelism, twice the weights
        // An override is validated like the file, and says where it came from.
        const Run bad = tessera({"estimate", "llama3-70b-h100x64", "--set", "exec.tp=3"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--set exec.tp=3:1:1: exec.tp: must divide num_attention_heads (64), got 3"), qPrintable(bad.err));
        QCOMPARE(tessera({"estimate", "llama3-70b-h100x64", "--set", "tp=4"}).code, 2);
        const Run model = tessera({"estimate", "llama3-70b-h100x64", "--set", "model.num_hidden_layers=40", "--json"});
        QCOMPARE(model.code, 0);
        QCOMPARE(QJsonDocument::fromJson(model.out.toUtf8())["stages"][0]["layers"].toInt(), 10);
    }

    void searchWritesATrainYamlThatReadsBack() {
        QTemporaryDir dir;
        QFile scenario(dir.filePath("run.yaml"));
        QVERIFY(scenario.open(QIODevice::WriteOnly));
        scenario.write("model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\nexec: {seq_length: 8192}\n"
                       "search:\n  space: {tp: auto, pp: auto, micro_batch_size: [1, 2], sequence_parallel: auto,\n"
                       "          optimizer_parallel: auto, grad_shard_as_params: [true], recompute: [none, full],\n"
                       "          pp_schedule: [1f1b]}\n"
                       "  constraints: {memory_limit_gb: 72, global_batch_size: 128}\n  keep: 5\n");
        scenario.close();
        const Run json = tessera({"search", "run.yaml", "--json", "--threads", "2", "-o", "train.yaml", "--pick", "2"}, dir.path());
        QVERIFY2(json.code == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        for (const char* key : {"space_size", "evaluated", "feasible", "refused", "best", "top", "pareto", "elapsed_s",
                                "candidates_per_second"})
            QVERIFY2(o.contains(key), key);
        const QJsonObject best = o["best"].toObject();
        for (const char* key : {"strategy", "peak_memory_bytes", "step_time_s"}) QVERIFY2(best.contains(key), key);
        for (const char* key : {"dp", "tp", "pp", "micro_batch_size", "micro_batch_num", "sequence_parallel", "recompute"})
            QVERIFY2(best["strategy"].toObject().contains(key), key);
        QCOMPARE(o["top"].toArray().size(), 5);
        // The written train.yaml (the second best) reads back to the same strategy.
        const QJsonObject picked = o["top"].toArray()[1].toObject()["strategy"].toObject();
        const Run back = tessera({"import-train", "train.yaml", "--device", "h100-sxm", "--devices", "64", "-o", "back.yaml"}, dir.path());
        QVERIFY2(back.code == 0, qPrintable(back.err));
        const Run shown = tessera({"show", "back.yaml", "--json"}, dir.path());
        QVERIFY2(shown.code == 0, qPrintable(shown.err));
        const QJsonObject exec = QJsonDocument::fromJson(shown.out.toUtf8())["scenario"]["exec"].toObject();
        for (const char* key : {"dp", "tp", "pp", "micro_batch_size", "micro_batch_num"})
            QCOMPARE(exec[key].toInt(), picked[key].toInt());
        QCOMPARE(exec["sequence_parallel"].toBool(), picked["sequence_parallel"].toBool());
        QCOMPARE(exec["grad_shard_as_params"].toBool(), picked["grad_shard_as_params"].toBool());
        // Nothing the user wrote is overwritten without asking.
        QCOMPARE(tessera({"search", "run.yaml", "-o", "train.yaml"}, dir.path()).code, 1);
        // A strategy the trainer cannot run (ZeRO-1 without FSDP) is refused by name, not
        // written as the FSDP run it would read back as.
        const Run zero1 = tessera({"search", "llama3-70b-h100x64", "-o", dir.filePath("zero1.yaml")});
        QCOMPARE(zero1.code, 2);
        QVERIFY2(zero1.err.contains("exec.optimizer_parallel: HyperParallel's AutoModels trainer shards optimizer states only with FSDP"),
                 qPrintable(zero1.err));
        QVERIFY(!QFile::exists(dir.filePath("zero1.yaml")));
    }

    // tessera plan: the plan of DeepSeek-V3's pp 16 fits 80 GiB; -o writes a scenario
    // that estimate prices at the plan's step; --ppb writes the seed's layer descriptions;
    // a budget nothing fits exits 2 and says by how much.
    void planWritesWhatEstimateReads() {
        QTemporaryDir dir;
        const Run json = tessera({"plan", "deepseek-v3-h800x2048-1f1b", "--json", "-o", "planned.yaml", "--ppb", "layers.json"}, dir.path());
        QVERIFY2(json.code == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QVERIFY(o["fits"].toBool());
        QCOMPARE(o["stages"].toArray().size(), 16);
        QVERIFY(o["exec"].toObject().contains("pp_partition"));
        const Run estimated = tessera({"estimate", "planned.yaml", "--json"}, dir.path());
        QVERIFY2(estimated.code == 0, qPrintable(estimated.err));
        const double step = QJsonDocument::fromJson(estimated.out.toUtf8())["step_time_s"].toDouble();
        QVERIFY2(std::abs(step - o["step_seconds"].toDouble()) <= 1e-9 * step,
                 qPrintable(QString("estimate %1 s, plan %2 s").arg(step).arg(o["step_seconds"].toDouble())));
        QFile layers(dir.filePath("layers.json"));
        QVERIFY(layers.open(QIODevice::ReadOnly));
        const QJsonArray described = QJsonDocument::fromJson(layers.readAll())["layers_description"].toArray();
        QCOMPARE(described.size(), 5);  // head, three bodies, tail
        const Run text = tessera({"plan", "llama3-70b-h100x64", "--set", "exec.device_memory=12GiB"});
        QCOMPARE(text.code, 2);
        QVERIFY2(text.out.contains("Nothing fits") && text.out.contains("Misses"), qPrintable(text.out));
        QCOMPARE(tessera({"plan", "llama3-70b-h100x64", "--keep-partition", "--keep-recompute"}).code, 64);
    }

    // Each strategy of `search --json` is an exec section: laid over the scenario's
    // exec (here key by key with --set), `estimate` prices it to the figures beside it.
    void searchStrategiesReEstimate_data() {
        QTest::addColumn<QString>("scenario");
        QTest::newRow("llama3-70b-h100x64") << "llama3-70b-h100x64";
        QTest::newRow("mixtral-8x7b-h100x32") << "mixtral-8x7b-h100x32";
    }
    void searchStrategiesReEstimate() {
        QFETCH(QString, scenario);
        const Run search = tessera({"search", scenario, "--json", "--top", "4"});
        QVERIFY2(search.code == 0, qPrintable(search.err));
        const QJsonObject o = QJsonDocument::fromJson(search.out.toUtf8()).object();
        QJsonArray strategies = o["top"].toArray();
        for (const QJsonValue& point : o["pareto"].toArray()) strategies.append(point);
        QVERIFY(strategies.size() >= 5);
        for (const QJsonValue& entry : strategies) {
            const QJsonObject s = entry.toObject();
            QStringList args{"estimate", scenario, "--json"};
            const QJsonObject exec = s["strategy"].toObject();
            for (auto it = exec.begin(); it != exec.end(); ++it) {
                const QJsonValue v = it.value();
                const QString text = v.isArray() ? QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact))
                                     : v.isBool() ? (v.toBool() ? "true" : "false")
                                     : v.isString() ? v.toString() : QString::number(v.toInteger());
                args << "--set" << QString("exec.%1=%2").arg(it.key(), text);
            }
            const Run estimate = tessera(args);
            QVERIFY2(estimate.code == 0, qPrintable(s["label"].toString() + ": " + estimate.err));
            const QJsonObject e = QJsonDocument::fromJson(estimate.out.toUtf8()).object();
            QCOMPARE(e["peak_memory_bytes"].toInteger(), s["peak_memory_bytes"].toInteger());
            const double step = e["step_time_s"].toDouble(), searched = s["step_time_s"].toDouble();
            QVERIFY2(std::abs(step - searched) <= 1e-9 * searched, qPrintable(QString("%1: %2 s against %3 s")
                                                                               .arg(s["label"].toString()).arg(step).arg(searched)));
        }
    }

    // A scenario with no search section searches the default space (every axis of it
    // auto), not only its stated strategy; `--help` says so.
    void searchWithoutASectionSearchesTheDefaultSpace() {
        const Run bare = tessera({"search", "llama3-8b-a100x8", "--json"});
        QVERIFY2(bare.code == 0, qPrintable(bare.err));
        QStringList spelled{"search", "llama3-8b-a100x8", "--json"};
        for (const char* axis : {"dp", "tp", "pp", "vpp", "cp", "ep", "micro_batch_size", "micro_batch_num", "optimizer_parallel",
                                 "grad_shard", "grad_shard_as_params", "sequence_parallel", "recompute", "pp_schedule"})
            spelled << "--set" << QString("search.space.%1=auto").arg(axis);
        const Run full = tessera(spelled);
        QVERIFY2(full.code == 0, qPrintable(full.err));
        const QJsonObject a = QJsonDocument::fromJson(bare.out.toUtf8()).object(), b = QJsonDocument::fromJson(full.out.toUtf8()).object();
        QVERIFY(a["space_size"].toInteger() > 1000);
        QCOMPARE(a["space_size"].toInteger(), b["space_size"].toInteger());
        QCOMPARE(a["feasible"].toInteger(), b["feasible"].toInteger());
        QCOMPARE(a["best"].toObject()["label"].toString(), b["best"].toObject()["label"].toString());
        QVERIFY(tessera({"--help"}).out.contains("default space"));
    }

    // The seed's own file, unedited, finds strategies; with 8 GiB a device, none fits,
    // and the search says why rather than returning nothing.
    void searchTheSeedsFile() {
        const QString file = kData + "/seed/upstream/dense_llm_search.yaml";
        Run r = tessera({"validate", file});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("ok: a search over 384 candidates"), qPrintable(r.out));
        r = tessera({"search", file});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("Best strategies:"));
        r = tessera({"show", file});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("selective_rule: hyperparallel  # imported: the seed's selective recompute"), qPrintable(r.out));
        r = tessera({"search", file, "--set", "constraint.memory_limit_gb=8"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.contains("No strategy fits."));
        QVERIFY(r.out.contains("micro_batch_num is not one of the listed candidates"));
    }

    void presetsListsEveryKind() {
        const Run r = tessera({"presets"});
        QCOMPARE(r.code, 0);
        for (const char* id : {"Models:", "Devices:", "Scenarios:", "llama3-405b", "ascend-910c", "mi300x", "deepseek-v3-h800x2048"})
            QVERIFY2(r.out.contains(id), id);
    }

    // A trainer's file by content, its unpriced keys on stderr; a scenario back out as the trainer's file.
    void importAndExportTrainers() {
        Run r = tessera({"import", kData + "/trainers/torchtitan-llama3-8b.toml", "--device", "a100-80gb", "--devices", "64"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.startsWith("# Imported from"));
        QVERIFY(r.out.contains("torchtitan job configuration (TOML)"));
        QVERIFY2(r.err.contains("[optimizer] lr: not priced"), qPrintable(r.err));
        QCOMPARE(tessera({"import", kData + "/trainers/torchtitan-llama3-8b.toml", "--device", "a100-80gb"}).code, 2);
        r = tessera({"export", "llama3-70b-h100x64", "--to", "megatron"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("--tensor-model-parallel-size 8 \\"));
        r = tessera({"export", "llama3-70b-h100x64", "--to", "torchtitan"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.contains("not expressed: exec.optimizer_parallel"));
        QCOMPARE(tessera({"export", "llama3-70b-h100x64", "--to", "nemo"}).code, 64);
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

    // A write the disk cuts short (here a file-size limit, as a full disk does) is an
    // error, and the file it would have replaced stays whole.
    void fullDiskKeepsTheOldFile() {
        QTemporaryDir dir;
        const QString out = dir.filePath("model.yaml");
        QFile old(out);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("# mine\n");
        old.close();
        QProcess p;
        p.setChildProcessModifier([] {
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit small{256, 256};
            setrlimit(RLIMIT_FSIZE, &small);
        });
        p.start(QStringLiteral(TESSERA_BINARY), {"import-hf", kData + "/hf/deepseek-v3.json", "-o", out, "--force"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(p.readAllStandardError().contains("cannot write"));
        QVERIFY(old.open(QIODevice::ReadOnly));
        QCOMPARE(old.readAll(), QByteArray("# mine\n"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"model.yaml"});
    }

    void importHfRefusesBadConfig() {
        const Run r = tessera({"import-hf", kData + "/invalid/json-syntax.json"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("JSON syntax"));
        QCOMPARE(tessera({"import-hf", "/nonexistent/config.json"}).code, 1);  // unreadable, not refused
        QCOMPARE(tessera({"validate", "/nonexistent/scenario.yaml"}).code, 1);
    }

    // A field a config.json leaves out and its family does not give is refused at the
    // section it belongs to (the config's top), not without a place.
    void importHfPlacesAMissingField() {
        QTemporaryDir dir;
        QFile config(dir.filePath("config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("{\n  \"model_type\": \"qwen2\",\n  \"hidden_size\": 1024,\n  \"num_hidden_layers\": 4,\n"
                     "  \"num_attention_heads\": 8,\n  \"intermediate_size\": 2048,\n  \"vocab_size\": 1000\n}\n");
        config.close();
        const Run r = tessera({"import-hf", config.fileName()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(config.fileName() + ":1:1: model.tie_word_embeddings: required"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
