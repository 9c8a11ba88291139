#pragma once
// Axis ticks a reader can count: 1, 2 or 5 times a power of ten.
#include <cmath>

namespace tessera::ui {

// The smallest 1/2/5 x 10^k at least `raw`.
inline double niceStep(double raw) {
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double f : {1.0, 2.0, 5.0})
        if (f * decade >= raw) return f * decade;
    return 10 * decade;
}

}  // namespace tessera::ui
