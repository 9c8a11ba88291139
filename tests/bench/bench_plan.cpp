// Throughput of the planner (core/plan): one 128-layer, 16-stage strategy (the
// issue's ≤ 1 ms on one core), DeepSeek-V3's pp 16 (61 body layers, 3 kinds; under zb-h1
// and interleaved with and without the slower choices that hide a reduction), and a
// planned search (pp_partition: auto, recompute: per_layer) on one thread. Reports
// plans per second and what each plan solved; never fails on speed.
#include <QtTest>
#include <chrono>

#include "io/scenarioio.h"
#include "plan/bound.h"
#include "plan/planexec.h"
#include "plan/planner.h"
#include "resolve/resolve.h"
#include "search/search.h"

using namespace tessera::core;

namespace {

const char* k128 =
    "model: {preset: llama3-405b, num_hidden_layers: 128}\ncluster: {device: h100-sxm, devices: 1024}\n"
    "exec: {tp: 8, pp: 16, sequence_parallel: true, seq_length: 8192, micro_batch_size: 1, global_batch_size: 512,\n"
    "  optimizer_parallel: true}\n";

ResolvedScenario resolvedYaml(const std::string& yaml) {
    return resolve(parseScenario(yaml, "bench.yaml", Format::Yaml, ""));
}

// `hide`: PlanRequest::hideReductions (on for every caller, a search too; off shows what it costs).
void report(const char* what, const ResolvedScenario& r, bool hide = true) {
    const CostInput in = costInput(r);
    PlanRequest request = planRequest(r);
    request.hideReductions = hide;
    int n = 0;
    Plan plan;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (n < 300 && elapsed < 2) {  // 300 plans, or two seconds of them
        plan = planStrategy(in, request);
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++n;
    }
    const double seconds = elapsed / n;
    qInfo("%s%s: %.3f ms a plan (%.0f plans/s); %llu stage problems, %llu labels; fits %d, step %.3f s", what,
          hide ? "" : ", fastest choice per stage", seconds * 1e3, 1 / seconds, (unsigned long long)plan.stageProblems,
          (unsigned long long)plan.labels, plan.fits, plan.stepSeconds);
}

// DeepSeek-V3's preset layout under another schedule, the partition planned.
ResolvedScenario deepSeekUnder(const char* schedule, std::int64_t vpp, std::int64_t mbn) {
    Scenario s = presetScenario("deepseek-v3-h800x2048-1f1b");
    if (vpp == 2) {  // a stated start the planner replaces: two layers a chunk, one on the last two stages' second
        StageCounts::Nested chunks(2, StageCounts::Flat(16, 2));
        chunks[1][14] = chunks[1][15] = 1;
        s.exec.pp_partition->value = chunks;
    }
    s.exec.pp_schedule = schedule, s.exec.vpp = vpp, s.exec.micro_batch_num = mbn;
    s.exec.global_batch_size = mbn * *s.exec.dp;
    return resolve(s);
}

}  // namespace

class BenchPlan : public QObject {
    Q_OBJECT
private slots:
    void plan128Layers16Stages() {
        const ResolvedScenario r = resolvedYaml(k128);
        const CostInput in = costInput(r);
        const PlanRequest request = planRequest(r);
        QBENCHMARK { planStrategy(in, request); }
    }
    void throughput() {
        report("128 layers, 16 stages (Llama-3 405B widths, 1,024 H100)", resolvedYaml(k128));
        report("DeepSeek-V3, pp 16 on 2,048 H800 (the preset)", resolve(presetScenario("deepseek-v3-h800x2048-1f1b")));
        report("Llama-3 70B, pp 4 on 64 H100 (the preset)", resolve(presetScenario("llama3-70b-h100x64")));
        // Where a slower choice can hide a stage's gradient reduction: with and without trying them.
        for (bool hide : {true, false}) {
            report("DeepSeek-V3, pp 16, zb-h1", deepSeekUnder("zb-h1", 1, 120), hide);
            report("DeepSeek-V3, pp 16, interleaved vpp 2", deepSeekUnder("interleaved", 2, 128), hide);
        }
    }
    // The lower bound a planned search reads before it plans a candidate (plan/bound.h),
    // and the check of a peak and a step together it asks per stair of the front.
    void lowerBound() {
        const ResolvedScenario r = resolve(presetScenario("deepseek-v3-h800x2048-1f1b"));
        const CostInput in = costInput(r);
        const PlanRequest request = planRequest(r);
        const int n = 2000;
        PlanBound b;
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) b = planLowerBound(in, request);
        const double bound = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / n;
        int possible = 0;
        start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) possible += b.fitsUnder(b.peakMemory + Bytes(i) * MiB, b.stepSeconds * 1.2);
        const double check = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / n;
        qInfo("DeepSeek-V3, pp 16 (the preset): %.2f us a bound, %.3f us a fitsUnder (%d of %d possible)", bound * 1e6,
              check * 1e6, possible, n);
        QVERIFY(b.stepSeconds > 0);
    }
    // A planned search: every candidate gets its own partition and per-layer recompute.
    void plannedSearch() {
        Scenario s = presetScenario("deepseek-v3-h800x2048-1f1b");
        s.exec.pp_partition.reset(), s.exec.optimizer_shard.reset();
        SearchSpec search;
        search.space = {{"tp", std::vector<SearchValue>{std::int64_t(1), std::int64_t(2)}},
                        {"pp", std::vector<SearchValue>{std::int64_t(8), std::int64_t(16)}},
                        {"ep", std::nullopt}, {"cp", std::vector<SearchValue>{std::int64_t(1), std::int64_t(2)}},
                        {"optimizer_parallel", std::nullopt}, {"recompute", std::vector<SearchValue>{std::string("per_layer")}},
                        {"pp_partition", std::nullopt}};
        search.constraints.global_batch_size = 15360;
        s.search = search;
        const SearchSetup setup = searchSetup(s);
        const SearchResult result = runSearch(setup);
        qInfo("DeepSeek-V3 planned search (tp 1|2, pp 8|16, cp 1|2, ep auto, ZeRO-1 on|off, per_layer, pp_partition auto): "
              "%llu candidates, %llu planned, %llu fit, %.2f s on one thread (%.0f plans/s); best %s at %.2f s",
              (unsigned long long)result.spaceSize, (unsigned long long)result.evaluated, (unsigned long long)result.feasible,
              result.elapsedSeconds, double(result.evaluated) / result.elapsedSeconds,
              result.top.empty() ? "none" : result.top.front().label().c_str(),
              result.top.empty() ? 0.0 : result.top.front().stepSeconds);
        QVERIFY(result.evaluated > 0);
    }
    // The figure: DeepSeek-V3 on 2,048 H800 with every axis auto, the partition
    // and every layer's recompute planned, on one thread (candidates that cannot enter
    // the top or the front are bounded out before they are planned: plan/bound.h).
    void fullPlannedSearch() {
        Scenario s = presetScenario("deepseek-v3-h800x2048-1f1b");
        s.exec.pp_partition.reset(), s.exec.optimizer_shard.reset();
        SearchSpec search;
        for (const char* key : {"dp", "micro_batch_num", "tp", "pp", "cp", "vpp", "ep", "micro_batch_size", "sequence_parallel",
                                "optimizer_parallel", "grad_shard", "grad_shard_as_params", "pp_schedule", "pp_partition"})
            search.space.push_back({key, std::nullopt});
        search.space.push_back({"recompute", std::vector<SearchValue>{std::string("per_layer")}});
        s.search = search;
        const SearchSetup setup = searchSetup(s);
        const SearchResult result = runSearch(setup);
        const std::string bounded = "planned at best slower and heavier than the candidates kept (a lower bound, not planned)";
        qInfo("DeepSeek-V3 / 2,048 H800, every axis auto, pp_partition auto, recompute per_layer: %llu candidates, "
              "%llu planned, %llu bounded out, %llu fit; %.2f s on one thread; best %s at %.2f s, %.1f GiB",
              (unsigned long long)result.spaceSize, (unsigned long long)result.evaluated,
              (unsigned long long)(result.refused.count(bounded) ? result.refused.at(bounded) : 0),
              (unsigned long long)result.feasible, result.elapsedSeconds,
              result.top.empty() ? "none" : result.top.front().label().c_str(),
              result.top.empty() ? 0.0 : result.top.front().stepSeconds,
              result.top.empty() ? 0.0 : double(result.top.front().peakMemory) / double(GiB));
        QVERIFY(result.feasible > 0);
    }
};

QTEST_GUILESS_MAIN(BenchPlan)
#include "bench_plan.moc"
