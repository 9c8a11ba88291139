#include "model/efficiency.h"

#include <algorithm>
#include <cctype>

namespace tessera::core {

EfficiencyCurve efficiencyCurve(const std::string& deviceName) {
    std::string name = deviceName;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    // Fitted on published.md §4.1 (Narayanan et al. 2021, Selene A100 80 GB).
    static constexpr EfficiencyCurve kAmpere{0.80, 0.35, "fit on Narayanan et al. 2021 weak scaling (A100)"};
    // Fitted on published.md §4.2 (Megatron-LM README 2024 weak scaling, H100).
    static constexpr EfficiencyCurve kHopper{0.80, 0.35, "fit on the Megatron-LM H100 weak-scaling table"};
    if (name.find("A100") != std::string::npos) return kAmpere;
    return kHopper;
}

}  // namespace tessera::core
