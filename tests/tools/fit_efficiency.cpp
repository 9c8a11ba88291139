// Fits the matmul efficiency curve (core/model/efficiency.h) of one device family
// on the measured rows of reference/published.md §4 (tests/core/throughputrows.h):
// a grid search for the (effMax, halfGflop) that minimises the worst relative error
// of predicted TFLOP/s per GPU. Run: build/tests/tools/fit_efficiency a100-80gb [KNEE [MINMB]];
// a KNEE (GFLOP, -1 for free) holds the knee there and fits the ceiling alone, for a table
// whose GEMMs are all too large to see it; MINMB fits only the rows that run at least that
// many micro-batches a step (the H100 curve: h100-sxm 1.75 8).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../core/costhelpers.h"
#include "../core/throughputrows.h"
#include "model/estimate.h"

using namespace tessera;

int main(int argc, char** argv) {
    const char* device = argc > 1 ? argv[1] : "h100-sxm";
    const double heldKnee = argc > 2 ? std::atof(argv[2]) : -1;
    // MINMB: fit only the rows whose steps run at least that many micro-batches per pipeline.
    const int leastMicroBatches = argc > 3 ? std::atoi(argv[3]) : 0;
    std::vector<std::pair<testing::ThroughputRow, core::CostInput>> rows;
    for (const auto& row : testing::throughputRows())
        if (std::strcmp(row.device, device) == 0 && row.batch / (row.gpus / (row.tp * row.pp)) >= leastMicroBatches)
            rows.emplace_back(row, testing::inputYaml(testing::throughputScenario(row)));
    double bestMax = 1e9, bestE = 0, bestH = 0;
    for (double e = 0.30; e <= 1.0001; e += 0.005) {
        for (double half = heldKnee >= 0 ? heldKnee : 0.0; half <= (heldKnee >= 0 ? heldKnee : 40.0001); half += 0.25) {
            double worst = 0;
            for (auto& [row, in] : rows) {
                in.device.effMax = e, in.device.effHalfGflop = half;
                const core::Summary s = core::evaluate(in);
                const double tflops = testing::tableFlopsPerStep(row) / s.stepSeconds / row.gpus / 1e12;
                worst = std::max(worst, std::abs(tflops / row.measuredTflops - 1));
            }
            if (worst < bestMax) bestMax = worst, bestE = e, bestH = half;
        }
    }
    std::printf("%s: effMax %.3f halfGflop %.2f worst error %.1f %%\n", device, bestE, bestH, bestMax * 100);
    for (auto& [row, in] : rows) {
        in.device.effMax = bestE, in.device.effHalfGflop = bestH;
        const double tflops = testing::tableFlopsPerStep(row) / core::evaluate(in).stepSeconds / row.gpus / 1e12;
        std::printf("  %-26s measured %6.1f predicted %6.1f (%+.1f %%)\n", row.name, row.measuredTflops, tflops,
                    (tflops / row.measuredTflops - 1) * 100);
    }
    for (const auto& row : testing::heldOutRows()) {  // not fitted on: how the fit generalises
        if (std::strcmp(row.device, device) != 0) continue;
        core::CostInput in = testing::inputYaml(testing::throughputScenario(row));
        in.device.effMax = bestE, in.device.effHalfGflop = bestH;
        const double tflops = testing::tableFlopsPerStep(row) / core::evaluate(in).stepSeconds / row.gpus / 1e12;
        std::printf("  held out: %-38s measured %6.1f predicted %6.1f (%+.1f %%)\n", row.name, row.measuredTflops, tflops,
                    (tflops / row.measuredTflops - 1) * 100);
    }
}
