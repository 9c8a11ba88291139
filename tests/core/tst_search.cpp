// The strategy search: properties of its answers (the best fits, the front is not
// dominated and is sorted, thread count changes nothing), its refusals named and
// counted, cancellation, progress, and what it says when nothing fits.
#include <QtTest>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "costhelpers.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "plan/planner.h"
#include "search/validity.h"
#include "search/search.h"
#include "search/strategy.h"

using namespace tessera::core;

namespace {

const char* kLlama =
    "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\nexec: {seq_length: 8192}\n"
    "search:\n  space: {tp: auto, pp: auto, vpp: auto, cp: auto, micro_batch_size: auto, sequence_parallel: auto,\n"
    "          optimizer_parallel: auto, grad_shard: auto, grad_shard_as_params: auto, recompute: auto, pp_schedule: auto}\n"
    "  constraints: {memory_limit_gb: 72, global_batch_size: 128}\n  keep: 30\n";

SearchSetup setupOf(const std::string& yaml) { return searchSetup(parseScenario(yaml, "t.yaml", Format::Yaml, "")); }

bool same(const Candidate& a, const Candidate& b) {
    return a.index == b.index && a.peakMemory == b.peakMemory && a.stepSeconds == b.stepSeconds;
}

}  // namespace

class TestSearch : public QObject {
    Q_OBJECT
private slots:
    void bestFitsAndIsBest() {
        const SearchSetup setup = setupOf(kLlama);
        const SearchResult r = runSearch(setup);
        QVERIFY(r.feasible > 0);
        QCOMPARE(r.visited, r.spaceSize);
        QCOMPARE(r.top.size(), std::size_t(30));
        for (const Candidate& c : r.top) QVERIFY(c.peakMemory <= setup.space.memoryLimit);
        for (std::size_t i = 1; i < r.top.size(); ++i) QVERIFY(r.top[i - 1].stepSeconds <= r.top[i].stepSeconds);
        // The best, priced again through the full estimate, gives the same figures.
        Estimate e;
        evaluate(candidateInput(setup, r.top.front()), &e);
        QCOMPARE(e.peakMemory, r.top.front().peakMemory);
        QCOMPARE(e.stepSeconds, r.top.front().stepSeconds);
        // Every refusal is counted: visited = refused + evaluated-and-fitting.
        std::uint64_t refused = 0;
        for (const auto& [why, n] : r.refused) refused += n;
        QCOMPARE(refused + r.feasible, r.visited);
        QVERIFY(r.refused.contains("tp·pp·cp does not divide the devices"));
        QVERIFY(std::any_of(r.refused.begin(), r.refused.end(), [](auto& x) { return x.first.starts_with("needs "); }));
    }

    // Listed degrees up to 2^24 each: tp·pp·cp passes int64 and must be refused, not
    // wrapped (2^72 wraps to 0, and the modulo by it would trap).
    void hugeDegreesAreRefusedNotWrapped() {
        const SearchResult r = runSearch(setupOf(
            "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\nexec: {seq_length: 8192}\n"
            "search:\n  space: {tp: [16777216], pp: [16777216], cp: [16777216, 1], micro_batch_size: [16777216]}\n"
            "  constraints: {global_batch_size: 128}\n"));
        QCOMPARE(r.feasible, std::uint64_t{0});
        QCOMPARE(r.refused.at("tp·pp·cp does not divide the devices"), std::uint64_t{2});
    }

    // tp_comm_overlap stated in exec: candidates without sequence parallelism at tp > 1
    // are refused by name (the GUI and train.yaml could not run them), the rest priced.
    void tpCommOverlapNeedsSequenceParallel() {
        const SearchResult r = runSearch(setupOf(
            "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\n"
            "exec: {seq_length: 8192, tp_comm_overlap: true}\n"
            "search:\n  space: {tp: [1, 8], pp: [8], sequence_parallel: auto}\n"
            "  constraints: {global_batch_size: 128}\n"));
        QCOMPARE(r.refused.at("tp_comm_overlap needs sequence parallelism"), std::uint64_t{1});
        QCOMPARE(r.refused.at("sequence parallelism needs tp > 1"), std::uint64_t{1});
        QVERIFY(std::all_of(r.top.begin(), r.top.end(), [](const Candidate& c) { return c.tp == 1 || c.sp; }));
        QVERIFY(!r.top.empty());
    }

    void paretoFrontIsSortedAndUndominated() {
        const SearchResult r = runSearch(setupOf(kLlama));
        QVERIFY(r.pareto.size() >= 3);
        for (std::size_t i = 1; i < r.pareto.size(); ++i) {
            QVERIFY(r.pareto[i - 1].peakMemory <= r.pareto[i].peakMemory);
            QVERIFY(r.pareto[i - 1].stepSeconds > r.pareto[i].stepSeconds);  // more memory buys time, or it is dominated
        }
        // No kept candidate dominates a point of the front.
        for (const Candidate& f : r.pareto)
            for (const Candidate& c : r.top)
                QVERIFY(!(c.peakMemory <= f.peakMemory && c.stepSeconds < f.stepSeconds) &&
                        !(c.peakMemory < f.peakMemory && c.stepSeconds <= f.stepSeconds));
        // The fastest strategy is on the front.
        QVERIFY(std::any_of(r.pareto.begin(), r.pareto.end(), [&](auto& f) { return same(f, r.top.front()); }));
    }

    void threadCountDoesNotChangeTheAnswer() {
        const SearchSetup setup = setupOf(kLlama);
        SearchOptions one, three;
        one.threads = 1, three.threads = 3;
        const SearchResult a = runSearch(setup, one), b = runSearch(setup, three);
        QCOMPARE(a.feasible, b.feasible);
        QCOMPARE(a.refused, b.refused);
        QCOMPARE(a.top.size(), b.top.size());
        for (std::size_t i = 0; i < a.top.size(); ++i) QVERIFY(same(a.top[i], b.top[i]));
        QCOMPARE(a.pareto.size(), b.pareto.size());
        for (std::size_t i = 0; i < a.pareto.size(); ++i) QVERIFY(same(a.pareto[i], b.pareto[i]));
    }

    void memoryObjective() {
        std::string yaml = kLlama;
        yaml += "  objective: memory\n";
        const SearchResult r = runSearch(setupOf(yaml));
        for (std::size_t i = 1; i < r.top.size(); ++i) QVERIFY(r.top[i - 1].peakMemory <= r.top[i].peakMemory);
        QCOMPARE(r.top.front().peakMemory, r.pareto.front().peakMemory);
    }

    void progressAndCancel() {
        // A large space: DeepSeek-V3 on 2,048 devices, every dimension auto.
        const SearchSetup setup = setupOf(
            "model: deepseek-v3\ncluster: {device: h800, devices: 2048}\nexec: {seq_length: 4096}\n"
            "search:\n  space: {tp: auto, pp: auto, vpp: auto, cp: auto, ep: auto, micro_batch_size: auto, sequence_parallel: auto,\n"
            "          optimizer_parallel: auto, grad_shard: auto, grad_shard_as_params: auto, recompute: auto, pp_schedule: auto}\n"
            "  constraints: {global_batch_size: 15360}\n");
        std::atomic<bool> cancel{false};
        int reports = 0;
        double lastFraction = 0;
        SearchOptions options;
        options.threads = 2;
        options.cancel = &cancel;
        const auto start = std::chrono::steady_clock::now();
        std::chrono::steady_clock::time_point cancelledAt;
        options.progress = [&](const SearchProgress& p) {
            ++reports;
            QVERIFY(p.fraction >= lastFraction);
            lastFraction = p.fraction;
            if (reports == 3) cancel = true, cancelledAt = std::chrono::steady_clock::now();
        };
        const SearchResult r = runSearch(setup, options);
        const auto end = std::chrono::steady_clock::now();
        QVERIFY(reports >= 3);
        QVERIFY(r.cancelled);
        QVERIFY(r.visited < r.spaceSize);
        // Stops promptly (reported, not asserted on time: CI machines vary).
        qInfo("stopped %.1f ms after the cancel; the search ran %.1f ms",
              std::chrono::duration<double, std::milli>(end - cancelledAt).count(),
              std::chrono::duration<double, std::milli>(end - start).count());
    }

    void nothingFitsSaysWhy() {
        const SearchSetup setup = setupOf(
            "model: llama3-405b\ncluster: {device: a100-40gb, devices: 8}\nexec: {seq_length: 8192}\n"
            "search:\n  space: {tp: [1, 2, 4, 8], recompute: [none, selective]}\n  constraints: {global_batch_size: 8}\n");
        const SearchResult r = runSearch(setup);
        QCOMPARE(r.feasible, std::uint64_t(0));
        QVERIFY(r.top.empty() && r.pareto.empty());
        QVERIFY(r.lightestRefused.has_value());
        QVERIFY(!r.advice.empty());
        QVERIFY(r.advice.front().starts_with("the lightest candidate ("));
        QVERIFY(std::any_of(r.advice.begin(), r.advice.end(), [](auto& a) { return a.find("full recompute") != std::string::npos; }));
        QVERIFY(std::any_of(r.advice.begin(), r.advice.end(), [](auto& a) { return a.find("largest tp") != std::string::npos; }));
    }

    void unsearchedAxisIsRefused() {
        try {
            setupOf("model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\nexec: {seq_length: 4096, global_batch_size: 8}\n"
                    "search: {space: {expert_shard: [1, 2]}}\n");
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY(QString(e.what()).contains("search.space.expert_shard: is not searched yet"));
        }
    }

    // The expert TP degree is searched in one spelling (resolve/expertgrid.h): both axes,
    // an axis beside the other spelling stated, or expert_tp on a dense model are refused
    // by name before the search starts.
    void expertTpSpellingsAreRefused_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("exec");
        QTest::addColumn<QString>("space");
        QTest::addColumn<QString>("message");
        QTest::newRow("both axes") << "mixtral-8x7b" << "" << "etp: [1, 2], expert_tp: [1, 2]"
                                   << "search.space.expert_tp: etp and expert_tp are two spellings of the expert TP degree";
        QTest::newRow("etp axis, expert_tp stated") << "mixtral-8x7b" << ", expert_tp: 1" << "etp: [1, 2]"
                                                    << "search.space.etp: exec states expert_tp, the other spelling";
        QTest::newRow("expert_tp axis, etp stated") << "mixtral-8x7b" << ", etp: 0" << "expert_tp: auto"
                                                    << "search.space.expert_tp: exec states etp, the other spelling";
        QTest::newRow("expert_tp axis, dense model") << "llama3-8b" << "" << "expert_tp: [1, 2]"
                                                     << "search.space.expert_tp: applies to mixture-of-experts models only";
    }
    void expertTpSpellingsAreRefused() {
        QFETCH(QString, model);
        QFETCH(QString, exec);
        QFETCH(QString, space);
        QFETCH(QString, message);
        try {
            setupOf("model: " + model.toStdString() + "\ncluster: {device: h100-sxm, devices: 16}\n"
                    "exec: {seq_length: 4096, global_batch_size: 64" + exec.toStdString() + "}\n"
                    "search: {space: {tp: auto, " + space.toStdString() + "}}\n");
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // Searched in Megatron's spelling, a candidate with experts whole beside tp > 1 is
    // written as expert_tp and prices as its scenario does.
    void expertTpIsSearched() {
        const SearchSetup setup = setupOf(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
            "exec: {seq_length: 4096, global_batch_size: 64, sequence_parallel: true, optimizer_parallel: true}\n"
            "search: {space: {tp: [2, 4], ep: [4, 8], expert_tp: auto}, keep: 200}\n");
        QVERIFY(setup.space.megatronExpertTp);
        const SearchResult r = runSearch(setup);
        const auto whole = std::find_if(r.top.begin(), r.top.end(), [](const Candidate& c) { return c.expertTpUsed() == 1; });
        QVERIFY(whole != r.top.end());
        QVERIFY(whole->tp > 1);
        QVERIFY2(whole->label().find(" expert_tp1") != std::string::npos, whole->label().c_str());
        const ExecSpec e = strategyExec(*whole);
        QCOMPARE(*e.expert_tp, std::int64_t{1});
        QVERIFY(!e.etp);
    }

    // optimizer_shard: auto tries the whole group and one shard per NVLink domain, each
    // candidate's own width: 8 ranks at tp 1, 4 at tp 2 on 8-GPU nodes; at tp 8 a node
    // holds one rank of the group, so only the whole group is tried. On 64 H100 with
    // full recompute the node's shard is faster (its gradients cross the network an
    // eighth as much) and heavier (eight times the optimizer states).
    void optimizerShardAutoTriesOnePerNode() {
        const SearchSetup setup = setupOf(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 64}\n"
            "exec: {seq_length: 8192, micro_batch_size: 1, global_batch_size: 128, optimizer_parallel: true,\n"
            "       recompute: [{first: 0, option: full}]}\n"
            "search: {space: {tp: [1, 2, 8], pp: [1], optimizer_shard: auto}}\n");
        QCOMPARE(setup.space.optimizerShard, (std::vector<std::int64_t>{0, kShardPerNode}));
        const SearchResult r = runSearch(setup);
        QCOMPARE(r.visited, std::uint64_t(6));
        QCOMPARE(r.feasible, std::uint64_t(5));
        QCOMPARE(r.refused.size(), std::size_t(1));
        QVERIFY(r.refused.begin()->first.starts_with("optimizer_shard auto's shard per NVLink domain"));
        std::map<std::int64_t, std::set<std::int64_t>> shards;  // tp -> the shards tried
        for (const Candidate& c : r.top) shards[c.tp].insert(c.optimizerShard);
        QCOMPARE(shards[1], (std::set<std::int64_t>{0, 8}));
        QCOMPARE(shards[2], (std::set<std::int64_t>{0, 4}));
        QCOMPARE(shards[8], (std::set<std::int64_t>{0}));
        const Candidate& best = r.top.front();
        QCOMPARE(best.tp, std::int64_t{1});
        QCOMPARE(best.optimizerShard, std::int64_t{8});
        QCOMPARE(QString::fromStdString(best.sharding()), QString("zero1/8"));
        QVERIFY2(best.label().ends_with(" zero1/8"), best.label().c_str());
        // Written out as the size it is, and priced as that scenario prices it.
        const ExecSpec e = strategyExec(best);
        QCOMPARE(*e.optimizer_shard, std::int64_t{8});
        Estimate stated;
        evaluate(candidateInput(setup, best), &stated);
        QCOMPARE(stated.stepSeconds, best.stepSeconds);
        const auto whole = std::find_if(r.top.begin(), r.top.end(), [](const Candidate& c) { return c.tp == 1 && c.optimizerShard == 0; });
        QVERIFY(whole != r.top.end());
        QVERIFY(whole->peakMemory < best.peakMemory);
        QVERIFY(whole->stepSeconds > best.stepSeconds);
        QVERIFY(!strategyExec(*whole).optimizer_shard);
    }

    // The example scenarios' searches: the best fits, and is at least as fast as the
    // hand-written strategy of the same file, which lies in the searched space.
    void exampleScenarios_data() {
        QTest::addColumn<QString>("id");
        QTest::newRow("llama3-70b-h100x64") << "llama3-70b-h100x64";
        QTest::newRow("mixtral-8x7b-h100x32") << "mixtral-8x7b-h100x32";
    }
    void exampleScenarios() {
        QFETCH(QString, id);
        const Scenario scenario = presetScenario(id.toStdString());
        QVERIFY(scenario.search.has_value());
        const SearchSetup setup = searchSetup(scenario);
        const SearchResult r = runSearch(setup);
        QVERIFY(!r.top.empty());
        QVERIFY(r.top.front().peakMemory <= setup.space.memoryLimit);
        const Summary stated = evaluate(costInput(resolve(scenario)));
        QVERIFY(stated.fits);
        QVERIFY2(r.top.front().stepSeconds <= stated.stepSeconds,
                 qPrintable(QString("best %1 s, stated %2 s").arg(r.top.front().stepSeconds).arg(stated.stepSeconds)));
    }

    // Keys the search does not name take the exec section's value.
    // A search plans its interleaved and zb-h1 candidates, whose slower recompute choices
    // can hide an overlapped reduction, as Plan does: exactly (tst_plan's brute force). The
    // best, planned alone, come out the same; without the slower choices some would not.
    void searchPlansAsPlanDoes() {
        const std::string yaml =
            "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\n"
            "exec: {seq_length: 8192, overlapped_grad_reduce: true}\n"
            "search:\n  space: {tp: [4, 8], pp: [2, 4, 8], vpp: [1, 2, 4], micro_batch_size: [1, 2], recompute: per_layer,\n"
            "          pp_schedule: [interleaved, zb-h1], pp_partition: auto}\n"
            "  constraints: {memory_limit_gb: 72, global_batch_size: 128}\n  keep: 10\n";
        const SearchSetup setup = setupOf(yaml);
        const SearchResult r = runSearch(setup);
        QCOMPARE(r.top.size(), std::size_t(10));
        int slowerPay = 0;
        for (const Candidate& c : r.top) {
            QVERIFY(c.plan);
            CostInput in = setup.input;
            Validity(setup).fill(c, in);
            PlanRequest request = *candidatePlanRequest(setup.space, c, in);
            const Plan alone = planStrategy(in, request, setup.space.memoryLimit);
            QCOMPARE(alone.stepSeconds, c.stepSeconds);
            QCOMPARE(alone.peakMemory, c.peakMemory);
            request.hideReductions = false;
            const Plan fastest = planStrategy(in, request, setup.space.memoryLimit);
            QVERIFY(fastest.stepSeconds >= c.stepSeconds * (1 - 1e-12));
            slowerPay += fastest.stepSeconds > c.stepSeconds * (1 + 1e-12);
        }
        qInfo("%d of the 10 best plan faster with the slower choices than with each stage's fastest", slowerPay);
        QVERIFY(slowerPay > 0);  // else the search could skip them and this would not show it
    }

    void unlistedKeysTakeTheExecValue() {
        const SearchSetup setup = setupOf("model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                                          "exec: {tp: 4, seq_length: 4096, global_batch_size: 32}\nsearch: {space: {pp: auto}}\n");
        QCOMPARE(setup.space.tp, std::vector<std::int64_t>{4});
        const SearchResult r = runSearch(setup);
        for (const Candidate& c : r.top) QCOMPARE(c.tp, std::int64_t{4});
        QCOMPARE(setup.space.varied, std::vector<std::string>{"pp"});
    }
};

QTEST_APPLESS_MAIN(TestSearch)
#include "tst_search.moc"
