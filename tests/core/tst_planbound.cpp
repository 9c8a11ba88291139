// The lower bound a planned search skips candidates by (plan/bound.h) and the
// ceiling it hands the planner: the bound is never above what the planner then
// finds, nor does it rule out the plan's own peak and step together (fitsUnder),
// for every candidate of planned spaces on a MoE and a dense model; a
// bounded search returns exactly the top and the front of one that plans every
// candidate; a plan asked for under its own optimum says so instead; and caps by peak
// leave the plan the fastest.
#include <QtTest>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/layercost.h"
#include "plan/bound.h"
#include "plan/planexec.h"
#include "resolve/resolve.h"
#include "search/validity.h"

using namespace tessera::core;

namespace {

// A built-in scenario with a search section of its own.
Scenario presetSearching(const std::string& id, const std::string& searchYaml, const QStringList& sets = {}) {
    Value doc = scenarioDocument(id, nullptr);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    Scenario s = scenarioFromValue(doc, id, "");
    s.exec.pp_partition.reset(), s.exec.offset.reset(), s.exec.optimizer_shard.reset();
    Diagnostics d;
    s.search = readSearch(*parseDocument(searchYaml, "search.yaml", Format::Yaml).find("search"), d);
    d.raiseIfAny();
    return s;
}

// DeepSeek-V3 (61 + 1 layers, three kinds) over pipelines that do not divide it, and
// Llama-3 70B with uniform recompute kept and the partition planned, at two limits.
Scenario space(int which) {
    switch (which) {
    case 0:
        return presetSearching("deepseek-v3-h800x2048-1f1b",
                               "search:\n  space: {tp: [1, 2], pp: [4, 8, 16], cp: [1, 2], ep: auto, micro_batch_size: [1, 2],\n"
                               "          sequence_parallel: auto, optimizer_parallel: auto, grad_shard_as_params: auto, recompute: per_layer,\n"
                               "          pp_partition: auto}\n  constraints: {global_batch_size: 15360}\n");
    case 1:
        return presetSearching("llama3-70b-h100x64",
                               "search:\n  space: {tp: [2, 4, 8], pp: [2, 3, 4, 5, 8], dp: auto, micro_batch_size: [1, 2], micro_batch_num: auto,\n"
                               "          sequence_parallel: auto, optimizer_parallel: auto, recompute: [none, selective, full],\n"
                               "          pp_partition: auto}\n"
                               "  constraints: {memory_limit_gb: 60}\n");
    case 3: {  // the benchmark's: every axis auto, dp what the devices leave
        Scenario s = presetSearching("deepseek-v3-h800x2048-1f1b",
                               "search:\n  space: {dp: auto, micro_batch_num: auto, tp: auto, pp: auto, cp: auto, vpp: auto, ep: auto, micro_batch_size: auto,\n"
                               "          sequence_parallel: auto, optimizer_parallel: auto, grad_shard: auto,\n"
                               "          grad_shard_as_params: auto, pp_schedule: auto, recompute: per_layer, pp_partition: auto}\n");
        return s;
    }
    case 4:
    case 5:  // FSDP holding its gathered weights whole (4) or per layer (5), and a second gradient shard
        return presetSearching("llama3-70b-h100x64",
                               "search:\n  space: {tp: [1, 2, 4, 8], pp: [2, 3, 4, 5, 8], dp: auto, micro_batch_size: [1, 2, 4], micro_batch_num: auto,\n"
                               "          pp_schedule: [1f1b, zb-h1], recompute: per_layer, pp_partition: auto}\n",
                               {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true",
                                "exec.deferred_grad_accumulation=true", which == 4 ? "exec.reshard_params=false" : "exec.reshard_params=true"});
    default:
        return presetSearching("llama3-70b-h100x64",
                               "search:\n  space: {tp: [2, 4, 8], pp: [2, 4, 8], dp: auto, micro_batch_size: [1, 2], micro_batch_num: auto,\n"
                               "          optimizer_parallel: auto, pp_schedule: [1f1b, gpipe], recompute: per_layer,\n"
                               "          pp_partition: auto}\n"
                               "  constraints: {memory_limit_gb: 45}\n");
    }
}

bool same(const std::vector<Candidate>& a, const std::vector<Candidate>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].index != b[i].index || a[i].stepSeconds != b[i].stepSeconds || a[i].peakMemory != b[i].peakMemory)
            return false;
    return true;
}

}  // namespace

class TestPlanBound : public QObject {
    Q_OBJECT
private slots:
    void boundNeverAbovePlan_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("stride");  // every stride-th valid candidate
        QTest::newRow("deepseek-v3 per_layer, pp 4/8/16") << 0 << 1;
        QTest::newRow("llama3-70b uniform recompute, pp 2-8") << 1 << 1;
        QTest::newRow("llama3-70b per_layer, 1f1b and gpipe") << 2 << 1;
        QTest::newRow("deepseek-v3 every axis auto, 1 in 61") << 3 << 61;
        QTest::newRow("llama3-70b FSDP, gathered weights kept, deferred accumulation") << 4 << 1;
        QTest::newRow("llama3-70b FSDP resharded, deferred accumulation") << 5 << 1;
    }
    void boundNeverAbovePlan() {
        QFETCH(int, which);
        QFETCH(int, stride);
        int valid = 0;
        const SearchSetup setup = searchSetup(space(which));
        const Validity validity(setup);
        const std::vector<std::size_t> radix = setup.space.radix();
        CostInput in = setup.input;
        std::size_t digits[kAxes];
        int planned = 0, ruledOut = 0, stale = 0;
        LayerCostMemo memo;
        double tightest = 0;
        for (std::uint64_t index = 0; index < setup.space.size(); ++index) {
            std::uint64_t rest = index;
            for (std::size_t a = kAxes; a-- > 0;) digits[a] = rest % radix[a], rest /= radix[a];
            Candidate c;
            c.index = index;
            if (validity.check(digits, c) != Refusal::None || valid++ % stride) continue;
            validity.fill(c, in);
            const std::optional<PlanRequest> request = candidatePlanRequest(setup.space, c, in);
            QVERIFY(request.has_value());
            const PlanBound b = planLowerBound(in, *request);
            const std::optional<Summary> s = priceCandidate(setup, validity, c, in);
            if (!s) continue;
            ++planned;
            // The search's way: the bound and the plan share the candidate's layer costs.
            // Same bound, same plan; a memo left from the candidate before would not be.
            PlanRequest shared = *request;
            shared.layerCosts = &memo;
            stale += planStrategy(in, shared, setup.space.memoryLimit).walkedStep != c.plan->walkedStep;
            memo.clear();
            const PlanBound bm = planLowerBound(in, shared);
            QCOMPARE(bm.stepSeconds, b.stepSeconds);
            QCOMPARE(bm.peakMemory, b.peakMemory);
            const Plan pm = planStrategy(in, shared, setup.space.memoryLimit);
            QVERIFY2(pm.partition == c.plan->partition && pm.layerClass == c.plan->layerClass, qPrintable(QString(c.label().c_str())));
            QCOMPARE(pm.walkedStep, c.plan->walkedStep);
            QCOMPARE(pm.stepSeconds, c.plan->stepSeconds);
            QVERIFY2(b.stepSeconds <= s->stepSeconds,
                     qPrintable(QString("%1: step bound %2 over %3").arg(c.label().c_str()).arg(b.stepSeconds).arg(s->stepSeconds)));
            QVERIFY2(b.peakMemory <= s->peakMemory,
                     qPrintable(QString("%1: peak bound %2 over %3").arg(c.label().c_str()).arg(b.peakMemory).arg(s->peakMemory)));
            tightest = std::max(tightest, b.stepSeconds / s->stepSeconds);
            // The two together: the plan itself is both as light and as fast as it is.
            QVERIFY2(b.fitsUnder(s->peakMemory, s->stepSeconds),
                     qPrintable(QString("%1: fitsUnder rules out its own plan (%2 GiB, %3 s)")
                                    .arg(c.label().c_str()).arg(double(s->peakMemory) / double(GiB)).arg(s->stepSeconds)));
            // And a plan nine-tenths as heavy as this one and no slower: ruled out how often.
            ruledOut += !b.fitsUnder(Bytes(0.9 * double(s->peakMemory)), s->stepSeconds);
        }
        qInfo("%d candidates planned; the tightest step bound is %.4f of its plan; %d of them shown to have no plan "
              "nine-tenths as heavy and as fast", planned, tightest, ruledOut);
        QVERIFY(planned > 20);
        QVERIFY(tightest > 0.5);  // a bound of zero would pass the checks above and skip nothing
        QVERIFY(ruledOut > 0);    // nor would a fitsUnder that is always true
        qInfo("%d of them planned otherwise from the layer costs of the candidate before", stale);
        QVERIFY(stale > 0);  // the shared costs are read
    }

    void boundedSearchGivesTheSameAnswer_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("deepseek-v3 per_layer, pp 4/8/16") << 0;
        QTest::newRow("llama3-70b uniform recompute, pp 2-8") << 1;
        QTest::newRow("llama3-70b per_layer, 1f1b and gpipe") << 2;
    }
    void boundedSearchGivesTheSameAnswer() {
        QFETCH(int, which);
        SearchSetup setup = searchSetup(space(which));
        setup.space.keep = 5;  // a short top, so that the bound has work from early on
        SearchOptions all;
        all.bound = false;
        const SearchResult every = runSearch(setup, all);
        for (int threads : {1, 2}) {
            SearchOptions bounded;
            bounded.threads = threads;
            const SearchResult r = runSearch(setup, bounded);
            QVERIFY(same(r.top, every.top));
            QVERIFY(same(r.pareto, every.pareto));
            const std::string skipped = refusalText(Refusal::Bounded);
            const std::uint64_t n = r.refused.count(skipped) ? r.refused.at(skipped) : 0;
            qInfo("%d thread(s): %llu of %llu candidates planned, %llu bounded out", threads, (unsigned long long)r.evaluated,
                  (unsigned long long)every.evaluated, (unsigned long long)n);
            QVERIFY(n > 0);
            QCOMPARE(r.evaluated + n, every.evaluated);
            QVERIFY(!every.refused.count(skipped));
        }
    }

    // Asked for a plan under its own optimum, the planner says none is; at the optimum it
    // returns the plan it returns unasked.
    void ceilingBelowTheOptimum() {
        const ResolvedScenario r = resolve(presetScenario("deepseek-v3-h800x2048-1f1b"));
        const CostInput in = costInput(r);
        PlanRequest request = planRequest(r);
        const Plan free = planStrategy(in, request);
        QVERIFY(free.fits);
        request.ceiling = free.stepSeconds * (1 - 1e-6);
        const Plan below = planStrategy(in, request);
        QVERIFY(below.bounded);
        QVERIFY(!below.planned);
        request.ceiling = free.stepSeconds * (1 + 1e-9);
        const Plan at = planStrategy(in, request);
        QVERIFY(at.planned && !at.bounded);
        QCOMPARE(at.partition, free.partition);
        QCOMPARE(at.layerClass, free.layerClass);
        QCOMPARE(at.stepSeconds, free.stepSeconds);
    }

    // A search's caps by peak (PlanRequest::peakCaps) with the fastest plan capped and the
    // lighter ones not: the walk under the caps finds a lighter, slower plan, and the plan
    // returned is still the fastest (the walk again without them); capped everywhere, none.
    void capsKeepTheFastest() {
        const ResolvedScenario r = resolve(presetScenario("deepseek-v3-h800x2048-1f1b"));
        const CostInput in = costInput(r);
        PlanRequest request = planRequest(r);
        const Plan free = planStrategy(in, request);
        QVERIFY(free.fits);
        request.peakCaps = {{free.peakMemory - free.peakMemory / 1000, free.stepSeconds * (1 - 1e-9)}};
        const Plan capped = planStrategy(in, request);
        QVERIFY(capped.planned && !capped.bounded);
        QCOMPARE(capped.partition, free.partition);
        QCOMPARE(capped.layerClass, free.layerClass);
        QCOMPARE(capped.stepSeconds, free.stepSeconds);
        request.peakCaps = {{0, free.stepSeconds * (1 - 1e-9)}};
        const Plan none = planStrategy(in, request);
        QVERIFY(none.bounded && !none.planned);
    }
};

QTEST_GUILESS_MAIN(TestPlanBound)
#include "tst_planbound.moc"
