#pragma once
// How much of a device's peak a matmul reaches. Large GEMMs run near a ceiling;
// small ones are limited by launch, tail and memory effects. Tessera models the
// achieved fraction as
//     eff(x) = effMax · x / (x + xHalf),   x = the GEMM's work in GFLOP,
// a saturating curve with two parameters per device family, fitted on open
// end-to-end measurements (reference/published.md §4.1 for A100, §4.2 for H100:
// see tests/core/tst_time.cpp for the rows and the fit's residuals). Devices with
// no measurement of their own take the Hopper fit (a stated assumption: their
// achieved share of peak is Hopper's).
#include <string>

namespace tessera::core {

struct EfficiencyCurve {
    double effMax = 0;
    double halfGflop = 0;
    const char* source = "";
};

EfficiencyCurve efficiencyCurve(const std::string& deviceName);

inline double matmulEfficiency(double effMax, double halfGflop, double flops) {
    const double x = flops * 1e-9;
    return effMax * x / (x + halfGflop);
}

}  // namespace tessera::core
