#include "model/efficiency.h"

#include <algorithm>
#include <cctype>

namespace tessera::core {

EfficiencyCurve efficiencyCurve(const std::string& deviceName) {
    std::string name = deviceName;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    // Fitted by tests/tools/fit_efficiency (grid search, least worst-case error) on
    // published.md §4.1: Narayanan et al. 2021 weak scaling, Selene A100 80 GB, ten rows,
    // worst residual 7.0 %.
    static constexpr EfficiencyCurve kAmpere{0.655, 0.25, "fit on Narayanan et al. 2021 weak scaling (A100)"};
    // Fitted the same way on published.md §4.2: Megatron-LM README (2024) H100 weak
    // scaling, nine rows, worst residual 11.4 % (see tests/core/tst_time.cpp).
    static constexpr EfficiencyCurve kHopper{0.765, 9.0, "fit on the Megatron-LM H100 weak-scaling table"};
    if (name.find("A100") != std::string::npos) return kAmpere;
    return kHopper;
}

}  // namespace tessera::core
