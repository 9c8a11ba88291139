// The fit advice (core/fit): every suggestion, applied as a GUI applies it (its exec
// section written over the document's, or its changes one by one), prices to exactly
// the figures it claims; a strategy over the device gets at least one move that fits,
// one that fits gets only faster moves that still fit; the mechanical fixes make a
// refused scenario resolve; rederive makes one degree's edit a valid strategy.
#include <QtTest>

#include <algorithm>

#include "fit/advice.h"
#include "fit/fixes.h"
#include "fit/moves.h"
#include "fit/rederive.h"
#include "io/overrides.h"
#include "io/scenarioio.h"
#include "io/specwriter.h"
#include "model/evaluation.h"

using namespace tessera::core;

namespace {

Value documentOf(const std::string& id, const QStringList& sets) {
    Value doc = scenarioDocument(id, nullptr);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return doc;
}

Scenario read(const Value& doc) { return scenarioFromValue(doc, "row.yaml", ""); }

std::vector<Diagnostic> problemsOf(const Scenario& s) {
    try {
        resolve(s);
    } catch (const SpecError& e) {
        return e.diagnostics();
    }
    return {};
}

QString changesText(const Suggestion& s) {
    QStringList out;
    for (const Change& c : s.changes) out << QString::fromStdString(c.text());
    return out.join(", ");
}

}  // namespace

class TestFit : public QObject {
    Q_OBJECT
private slots:
    void suggestionsPriceAsEstimate_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<bool>("fits");
        QTest::newRow("deepseek-v3 1f1b (over)") << "deepseek-v3-h800x2048-1f1b" << QStringList{} << false;
        QTest::newRow("deepseek-v3 dualpipe") << "deepseek-v3-h800x2048" << QStringList{} << true;
        QTest::newRow("default scenario") << "llama3-70b-h100x64" << QStringList{} << true;
        QTest::newRow("llama3-70b in 40 GiB") << "llama3-70b-h100x64" << QStringList{"exec.device_memory=40GiB"} << false;
        QTest::newRow("llama3-8b no recompute in 48 GiB")
            << "llama3-8b-a100x8" << QStringList{"exec.device_memory=48GiB", "exec.recompute=[{first: 0, option: none}]"}
            << false;
        QTest::newRow("mixtral") << "mixtral-8x7b-h100x32" << QStringList{} << true;
        QTest::newRow("llama3-8b ZeRO-1 over 8 nodes")
            << "llama3-8b-a100x8" << QStringList{"cluster.devices=64", "exec.dp=32", "exec.micro_batch_num=4", "exec.optimizer_shard=8"} << true;
        QTest::newRow("llama3-70b fp8 in 46 GiB")
            << "llama3-70b-h100x64" << QStringList{"exec.compute_dtype=fp8", "exec.device_memory=46GiB"} << false;
    }

    // An FP8 run over its memory is offered its weights as FP8 parameters, which drops
    // their BF16 copy, as a move of its own; one already storing them is not offered it.
    void fp8ParamsOffered() {
        {
            const Scenario stated = read(documentOf("llama3-70b-h100x64", {"exec.compute_dtype=fp8", "exec.device_memory=46GiB"}));
            const Evaluation now = evaluateScenario(stated);
            QVERIFY(!now.estimate.fits);
            const FitAdvice advice = adviseFit(stated, now.resolved, now.estimate);
            const auto alone = std::find_if(advice.suggestions.begin(), advice.suggestions.end(), [](const Suggestion& s) {
                return s.changes.size() == 1 && s.changes.front().text().find("fp8_params") != std::string::npos;
            });
            QVERIFY2(alone != advice.suggestions.end(), advice.summary.c_str());
            QVERIFY(alone->fits);
        }
        const Scenario already = read(documentOf("llama3-70b-h100x64", {"exec.compute_dtype=fp8", "exec.fp8_params=true"}));
        const Evaluation now = evaluateScenario(already);
        for (const Suggestion& s : adviseFit(already, now.resolved, now.estimate).suggestions)
            for (const Change& c : s.changes) QVERIFY(c.text().find("fp8_params") == std::string::npos);
    }
    // Under FP8 userbuffers the forward reduce-scatters in FP8 is a knob of its own: offered
    // when it is off, not when it is on or there is no userbuffers overlap to give it to.
    void fp8ReduceScatterOffered() {
        auto offered = [&](const QStringList& sets) {
            const Scenario stated = read(documentOf("llama3-70b-h100x64", sets));
            const Evaluation now = evaluateScenario(stated);
            const std::vector<Knob> knobs = knobsAround(stated, now.resolved);
            return std::any_of(knobs.begin(), knobs.end(),
                               [](const Knob& k) { return k.label.find("fp8_reduce_scatter") != std::string::npos; });
        };
        const QStringList ub{"exec.compute_dtype=fp8", "exec.sequence_parallel=true", "exec.tp_comm_overlap=true"};
        QVERIFY(offered(ub));
        QVERIFY(!offered(ub + QStringList{"exec.fp8_reduce_scatter=true"}));
        QVERIFY(!offered({"exec.compute_dtype=fp8"}));
        QVERIFY(!offered({"exec.sequence_parallel=true", "exec.tp_comm_overlap=true"}));
    }
    // Under a distributed optimizer whose group spans nodes, one shard per node (HSDP) is a
    // knob, at the width a node holds of the group (4 at tp 2 on 8-GPU nodes); from a
    // narrower stated shard, back to the whole group. Neither without a distributed
    // optimizer, nor where a node holds one rank of the group (tp 8).
    void optimizerShardSpanOffered() {
        auto knobs = [&](const QStringList& sets) {
            const Scenario stated = read(documentOf("llama3-8b-a100x8", QStringList{"cluster.devices=64", "exec.dp=32", "exec.micro_batch_num=4"} + sets));
            const Evaluation now = evaluateScenario(stated);
            QStringList out;
            for (const Knob& k : knobsAround(stated, now.resolved))
                if (k.group == "optimizer shard") out << QString::fromStdString(k.label);
            return out;
        };
        QCOMPARE(knobs({"exec.optimizer_shard=32"}), QStringList{"one optimizer shard per node (optimizer_shard 32 → 4)"});
        QCOMPARE(knobs({"exec.optimizer_shard=8"}),
                 (QStringList{"one optimizer shard per node (optimizer_shard 8 → 4)",
                              "one optimizer shard over the whole group (optimizer_shard 8 → 32)"}));
        QCOMPARE(knobs({"exec.optimizer_shard=4"}),
                 QStringList{"one optimizer shard over the whole group (optimizer_shard 4 → 32)"});
        QCOMPARE(knobs({"exec.optimizer_parallel=false", "exec.optimizer_shard=null"}), QStringList{});
        QCOMPARE(knobs({"exec.optimizer_shard=8", "exec.tp=8", "exec.dp=8", "exec.micro_batch_num=16"}), QStringList{});
    }
    void suggestionsPriceAsEstimate() {
        QFETCH(QString, id);
        QFETCH(QStringList, sets);
        QFETCH(bool, fits);
        const Value doc = documentOf(id.toStdString(), sets);
        const Scenario stated = read(doc);
        const Evaluation now = evaluateScenario(stated);
        QCOMPARE(now.estimate.fits, fits);
        const FitAdvice advice = adviseFit(stated, now.resolved, now.estimate);
        QCOMPARE(advice.fits, fits);
        QVERIFY(!advice.dominant.sentence.empty());
        QCOMPARE(advice.dominant.total, now.estimate.peakMemory);
        QVERIFY(advice.suggestions.size() <= 8);
        qInfo("%s", advice.dominant.sentence.c_str());
        qInfo("%s", advice.summary.c_str());
        if (!fits) {
            QVERIFY2(!advice.suggestions.empty() && advice.suggestions.front().fits, advice.summary.c_str());
        }
        for (const Suggestion& s : advice.suggestions) {
            qInfo("  %s\n      %s", s.sentence.c_str(), qPrintable(changesText(s)));
            // The exec section written over the document's, as a GUI writes a pick.
            Value written = doc;
            setAt(written, "exec", SpecWriter::write(s.exec));
            const Evaluation applied = evaluateScenario(read(written));
            QCOMPARE(applied.estimate.peakMemory, s.peakMemory);
            QCOMPARE(applied.estimate.stepSeconds, s.stepSeconds);
            QCOMPARE(applied.estimate.tokensPerSecond, s.tokensPerSecond);
            QCOMPARE(applied.estimate.fits, s.fits);
            QCOMPARE(s.fits, s.peakMemory <= now.estimate.deviceMemory);
            // The changes alone, key by key, state the same exec section.
            Value edited = doc;
            applyChanges(edited, s.changes);
            QVERIFY2(read(edited).exec == s.exec, qPrintable(changesText(s)));
            QVERIFY(!s.changes.empty() && !s.changes.front().derived);
            if (fits) {
                QVERIFY(s.fits);
                QVERIFY(s.stepSeconds < now.estimate.stepSeconds);
            }
        }
        // Fitting moves first, fewest knobs first among them.
        for (std::size_t i = 1; i < advice.suggestions.size(); ++i) {
            const Suggestion &a = advice.suggestions[i - 1], &b = advice.suggestions[i];
            QVERIFY(a.fits >= b.fits);
            if (fits) QVERIFY(a.stepSeconds <= b.stepSeconds);
            else if (a.fits && b.fits) QVERIFY(a.knobs.size() <= b.knobs.size());
        }
    }

    void dominantTermOfTheDeepSeekPreset() {
        const FitAdvice advice = adviseFit(presetScenario("deepseek-v3-h800x2048-1f1b"));
        QVERIFY(advice.dominant.over > 0);
        QVERIFY(advice.dominant.share > 0 && advice.dominant.share < 1);
        QCOMPARE(advice.dominant.limit, advice.dominant.total - Bytes(advice.dominant.over));
        QVERIFY(advice.dominant.sentence.find("of 80.0 GiB") != std::string::npos ||
                advice.dominant.sentence.find("of 80 GiB") != std::string::npos);
        QVERIFY(advice.dominant.sentence.find("dominate") != std::string::npos);
    }

    // dp·tp·pp·cp ≠ devices: the fix sets dp, and the micro-batches follow.
    void fixTheDegreesProduct() {
        Value doc = documentOf("llama3-70b-h100x64", {"exec.tp=4"});
        const std::vector<Diagnostic> problems = problemsOf(read(doc));
        QVERIFY(!problems.empty());
        const std::vector<Fix> fixes = proposeFixes(doc, problems);
        const auto dp = std::find_if(fixes.begin(), fixes.end(), [](const Fix& f) { return f.path == "exec.dp"; });
        QVERIFY(dp != fixes.end());
        qInfo("%s", dp->sentence.c_str());
        QCOMPARE(dp->value->asInt(), std::int64_t(4));
        applyFix(doc, *dp);
        const ResolvedScenario r = resolve(read(doc));
        QCOMPARE(*r.scenario.exec.dp, std::int64_t(4));
        QCOMPARE(*r.scenario.exec.global_batch_size, std::int64_t(128));
    }

    // A tp that does not divide the heads: the nearest divisors, each with dp following.
    void fixATpThatSplitsHeads() {
        Value doc = documentOf("llama3-70b-h100x64", {"exec.tp=3"});
        const std::vector<Fix> fixes = proposeFixes(doc, problemsOf(read(doc)));
        std::vector<std::int64_t> tps;
        for (const Fix& f : fixes)
            if (f.path == "exec.tp") tps.push_back(f.value->asInt());
        QCOMPARE(tps, (std::vector<std::int64_t>{2, 4}));
        for (const Fix& f : fixes) {
            if (f.path != "exec.tp") continue;
            Value fixed = doc;
            applyFix(fixed, f);
            QVERIFY2(problemsOf(read(fixed)).empty(), f.sentence.c_str());
        }
    }

    // Three batch sizes that disagree: the micro-batches re-derived.
    void fixTheBatch() {
        Value doc = documentOf("llama3-70b-h100x64", {"exec.micro_batch_num=60"});
        const std::vector<Fix> fixes = proposeFixes(doc, problemsOf(read(doc)));
        QCOMPARE(fixes.size(), std::size_t(1));
        QCOMPARE(fixes.front().path, std::string("exec.micro_batch_num"));
        applyFix(doc, fixes.front());
        QVERIFY(problemsOf(read(doc)).empty());
    }

    void fixesOnlyWhereDetermined() {
        const Value doc = documentOf("llama3-70b-h100x64", {});
        QVERIFY(proposeFixes(doc, {Diagnostic{{}, "exec.dp", "made up"}}).empty());  // nothing wrong with dp
        QVERIFY(proposeFixes(Value::string("not a scenario"), {Diagnostic{{}, "exec.dp", "x"}}).empty());
    }

    // A field takes any whole number: products past 2^63-1 derive nothing, they do not wrap.
    void hostileDegrees() {
        const Value doc = documentOf("llama3-70b-h100x64", {"exec.tp=4611686018427387904", "exec.micro_batch_num=4611686018427387904"});
        const Scenario stated = read(doc);
        for (const Fix& f : proposeFixes(doc, problemsOf(stated))) QVERIFY(f.path != "exec.dp");
        const std::vector<Change> changes = rederive(stated, "pp", Value::integer(std::int64_t(1) << 62));
        QVERIFY(!changes.empty());
        QCOMPARE(changes.front().key, std::string("exec.pp"));
    }

    // tp 8 → 4 in the GUI: dp doubles, the micro-batches halve, the shard follows the group.
    void rederiveOneDegree() {
        const Value doc = documentOf("llama3-70b-h100x64", {});
        const Scenario stated = read(doc);
        const std::vector<Change> changes = rederive(stated, "exec.tp", Value::integer(4));
        QVERIFY(!changes.empty());
        QCOMPARE(changes.front().key, std::string("exec.tp"));
        QVERIFY(!changes.front().derived);
        auto changed = [&](const std::vector<Change>& list, const std::string& key) {
            return std::find_if(list.begin(), list.end(), [&](const Change& c) { return c.key == key; }) != list.end();
        };
        QVERIFY(changed(changes, "exec.dp"));
        QVERIFY(changed(changes, "exec.micro_batch_num"));
        Value edited = doc;
        applyChanges(edited, changes);
        const ResolvedScenario r = resolve(read(edited));
        QCOMPARE(*r.scenario.exec.tp, std::int64_t(4));
        QCOMPARE(*r.scenario.exec.dp, std::int64_t(4));
        QCOMPARE(*r.scenario.exec.micro_batch_num, std::int64_t(32));
        QCOMPARE(*r.scenario.exec.global_batch_size, std::int64_t(128));
        QCOMPARE(*r.scenario.exec.optimizer_shard, std::int64_t(4));

        // Pinned fields stay as they are, even where that leaves a rule broken.
        const std::vector<Change> pinned = rederive(stated, "tp", Value::integer(4), {"exec.micro_batch_num", "optimizer_shard"});
        QVERIFY(changed(pinned, "exec.dp"));
        QVERIFY(!changed(pinned, "exec.micro_batch_num"));
        QVERIFY(!changed(pinned, "exec.optimizer_shard"));
    }

    // A pp edit re-places a stated partition, and the chunks follow the schedule.
    void rederiveKeepsTheStrategyWhole_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        const char* const rows[][4] = {
            {"deepseek pp 16 → 8", "deepseek-v3-h800x2048-1f1b", "pp", "8"},
            {"deepseek zb-h1", "deepseek-v3-h800x2048-1f1b", "pp_schedule", "zb-h1"},
            {"deepseek ep 32", "deepseek-v3-h800x2048-1f1b", "ep", "32"},
            {"deepseek mbs 2", "deepseek-v3-h800x2048-1f1b", "micro_batch_size", "2"},
            {"llama cp 2", "llama3-70b-h100x64", "cp", "2"},
            {"llama vpp 2", "llama3-70b-h100x64", "vpp", "2"},
            {"llama tp 1", "llama3-70b-h100x64", "tp", "1"},
            {"llama no sharding", "llama3-70b-h100x64", "optimizer_parallel", "false"},
            {"llama zbv", "llama3-70b-h100x64", "pp_schedule", "zbv"},
            {"llama seqpipe", "llama3-70b-h100x64", "pp_schedule", "seqpipe"},
            {"llama seqsmartvpp", "llama3-70b-h100x64", "pp_schedule", "seqsmartvpp"},
        };
        for (const auto& row : rows) QTest::newRow(row[0]) << QString(row[1]) << QString(row[2]) << QString(row[3]);
    }
    void rederiveKeepsTheStrategyWhole() {
        QFETCH(QString, id);
        QFETCH(QString, key);
        QFETCH(QString, value);
        const Value doc = documentOf(id.toStdString(), {});
        const Value v = typePlainScalar(value.toStdString(), {});
        Value edited = doc;
        applyChanges(edited, rederive(read(doc), key.toStdString(), v));
        const std::vector<Diagnostic> problems = problemsOf(read(edited));
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().text().c_str());
    }

    // Seq1F1B-I's parts must divide pp: a pp edit takes seq_split to the largest split
    // that still does (pp 4 -> 2 under seq_split 4: 2), and a vpp edit on seqpipe
    // interleaves it (seqsmartvpp), back to seqpipe at vpp 1.
    void rederiveSequenceParts() {
        const Value doc = documentOf("llama3-70b-h100x64", {"exec.pp_schedule=seqsmartvpp", "exec.vpp=2", "exec.seq_split=4"});
        QVERIFY(problemsOf(read(doc)).empty());
        Value edited = doc;
        applyChanges(edited, rederive(read(doc), "exec.pp", Value::integer(2)));
        QVERIFY(problemsOf(read(edited)).empty());
        QCOMPARE(*read(edited).exec.seq_split, std::int64_t(2));
        Value one = doc;
        applyChanges(one, rederive(read(doc), "exec.vpp", Value::integer(1)));
        QVERIFY(problemsOf(read(one)).empty());
        QCOMPARE(*read(one).exec.pp_schedule, std::string("seqpipe"));
        Value back = one;
        applyChanges(back, rederive(read(one), "exec.vpp", Value::integer(2)));
        QVERIFY(problemsOf(read(back)).empty());
        QCOMPARE(*read(back).exec.pp_schedule, std::string("seqsmartvpp"));
    }
};

QTEST_APPLESS_MAIN(TestFit)
#include "tst_fit.moc"
