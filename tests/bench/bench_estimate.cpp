// Throughput of the per-candidate evaluation the search calls (memory + time,
// closed form, no event simulation, no allocation). Reports evaluations per second;
// never fails on speed.
#include <QtTest>
#include <chrono>

#include "../core/costhelpers.h"
#include "model/estimate.h"

using namespace tessera;

namespace {

// A dense 70B on 1,024 devices, and DeepSeek-V3 (MoE + MLA + MTP) on 2,048.
const char* kDense =
    "model: llama3-70b\ncluster: {device: h100-sxm, devices: 1024}\n"
    "exec: {tp: 8, pp: 8, dp: 16, sequence_parallel: true, seq_length: 8192, micro_batch_size: 1,\n"
    "  global_batch_size: 1024, optimizer_parallel: true, recompute: [{first: 0, option: selective}]}\n";
const char* kMoe =
    "model: deepseek-v3\ncluster: {device: h800, devices: 2048}\n"
    "exec: {tp: 1, pp: 16, dp: 128, ep: 64, seq_length: 4096, micro_batch_size: 1, global_batch_size: 15360,\n"
    "  pp_partition: [3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3], optimizer_parallel: true}\n";

double evaluationsPerSecond(core::CostInput in, bool uniform) {
    if (uniform) {  // as the search prices a candidate: one recompute class, even split
        in.strategy.layerClass.clear();
        in.strategy.partition.clear();
        in.strategy.mtpOnStages = true;
    }
    const int n = 200000;
    double sink = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        in.strategy.mbs = 1 + (i & 1);  // defeat any caching of identical inputs
        sink += core::evaluate(in).stepSeconds;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!(sink > 0)) qFatal("the evaluation returned no step time");
    return n / seconds;
}

}  // namespace

class BenchEstimate : public QObject {
    Q_OBJECT
private slots:
    void dense70bOn1024() {
        const core::CostInput in = testing::inputYaml(kDense);
        QBENCHMARK { core::evaluate(in); }
    }
    void deepseekV3On2048() {
        const core::CostInput in = testing::inputYaml(kMoe);
        QBENCHMARK { core::evaluate(in); }
    }
    void throughput() {
        const core::CostInput dense = testing::inputYaml(kDense), moe = testing::inputYaml(kMoe);
        qInfo("dense 70B on 1,024 devices: %.0f evaluations/s (stated recompute ranges)", evaluationsPerSecond(dense, false));
        qInfo("dense 70B on 1,024 devices: %.0f evaluations/s (search form: even split, one recompute class)",
              evaluationsPerSecond(dense, true));
        qInfo("DeepSeek-V3 on 2,048 devices: %.0f evaluations/s (stated partition)", evaluationsPerSecond(moe, false));
        qInfo("DeepSeek-V3 on 2,048 devices: %.0f evaluations/s (search form)", evaluationsPerSecond(moe, true));
    }
};

QTEST_APPLESS_MAIN(BenchEstimate)
#include "bench_estimate.moc"
