#include "report/calibratereport.h"

#include <algorithm>

#include "units/units.h"

namespace tessera::core {

std::string calibrationText(const Calibration& c) {
    std::string out = "Calibration on " + std::to_string(c.runs.size()) + " runs of " + c.spec.device.value_or("?") + " (" +
                      c.spec.fitted_on.value_or("?") + ")\n\n";
    std::size_t width = 3;
    for (const CalibratedRun& r : c.runs) width = std::max(width, r.label.size());
    width = std::min<std::size_t>(width, 60);
    auto cell = [](double priced, double measured) {
        return formatText("%9.3f s %+6.1f %%", priced, (priced / measured - 1) * 100);
    };
    out += formatText("%-*s  %10s  %19s  %19s  %19s\n", int(width), "run", "measured", "built in", "fitted", "left out");
    for (const CalibratedRun& r : c.runs)
        out += formatText("%-*s  %8.3f s  ", int(width),
                      (r.label.size() > width ? "..." + r.label.substr(r.label.size() - width + 3) : r.label).c_str(),
                      r.measuredStep) +
               cell(r.before, r.measuredStep) + "  " + cell(r.after, r.measuredStep) + "  " + cell(r.leftOut, r.measuredStep) + "\n";
    out += formatText("%-*s  %10s  %17.1f %%  %17.1f %%  %17.1f %%\n", int(width), "mean |error|", "", c.meanBefore * 100,
                  c.meanAfter * 100, c.leaveOneOut * 100);
    out += "\n" + formatText("%-24s %10s %10s\n", "parameter", "built in", "fitted");
    for (std::size_t j = 0; j < c.fitted.size(); ++j)
        out += formatText("%-24s %10.4g %10.4g\n", c.fitted[j].c_str(), c.builtIn[j], c.value[j]);
    return out;
}

}  // namespace tessera::core
