#include "model/efficiency.h"

#include <algorithm>
#include <cctype>

namespace tessera::core {

EfficiencyCurve efficiencyCurve(const std::string& deviceName) {
    std::string name = deviceName;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    // Fitted by tests/tools/fit_efficiency (grid search, least worst-case error) on
    // published.md §4.1: Narayanan et al. 2021 weak scaling, Selene A100 80 GB, ten rows,
    // worst residual 6.2 %. The fit puts the knee at 0: the table's smallest GEMM is
    // ~ 30 GFLOP, too large to show the small-matmul falloff (a knee of 2 GFLOP costs
    // only 0.5 points), so on A100 the curve is flat where the table can see.
    static constexpr EfficiencyCurve kAmpere{0.640, 0.0, "fit on Narayanan et al. 2021 weak scaling (A100)"};
    // Fitted the same way on published.md §4.2, Megatron-LM README (2024) H100 weak
    // scaling, but on its compute-bound rows only: those whose steps run 8 or more
    // micro-batches per pipeline (70B to 462B; tests/tools/fit_efficiency h100-sxm 1.75 8),
    // worst residual 5.4 %. The curve is a compute efficiency; the table's rows up to
    // 32B run 4 micro-batches a step, so a quarter of their priced step is the
    // data-parallel reduce-scatter and gather exposed behind one micro-batch, and a fit
    // over them put the model's pessimism about that exposure into the ceiling (0.645
    // over all nine rows, the 16B row binding at -9.2 %), which left the runs of many
    // micro-batches fast: the large §4.2 rows by up to 9 %, measured.md's DGX Cloud rows
    // by +0.4 to +15.7 % (tests/core/tst_measured.cpp). The knee stays
    // where the whole table put it after gradient clipping was priced (1.75 GFLOP): the
    // compute-bound rows' GEMMs are all too large to see it.
    // Checked again once each gradient bucket paid its own latency (stop 43), over every
    // compute-bound BF16 H100 row of both tables (these five and measured.md's eight DGX
    // Cloud BF16 runs), ceilings 0.605 to 0.625 in steps of 0.005: 0.615 still has the
    // least worst error (6.5 %, the DGX Cloud 70B on 2,048 GPUs; 7.5 % at 0.605, 8.1 % at
    // 0.625). The five rows alone now prefer 0.625 (worst 4.8 %) and the DGX Cloud runs
    // alone 0.592 (tessera calibrate, tst_calibrate): NeMo's runs sit 3-4 % below
    // Megatron-LM's README on the same device, and the built-in curve takes the middle.
    // A knee from kernel timings alone (OpenXLA's sm_90 matmul table,
    // xla/service/gpu/model/matmul_interpolator_data.h, puts about 6 us of fixed time on
    // each GEMM: 4.7 GFLOP at the kernel's 0.80 ceiling, 3.6 at this one), with the
    // ceiling refitted beside it (0.630), moves the mean over measured.md's rows from 6.1
    // to 6.7 %, so the fit's knee stays.
    static constexpr EfficiencyCurve kHopper{0.615, 1.75, "fit on the compute-bound rows of the Megatron-LM H100 weak-scaling table"};
    if (name.find("A100") != std::string::npos) return kAmpere;
    return kHopper;
}

}  // namespace tessera::core
