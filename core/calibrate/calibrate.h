#pragma once
// Calibration on a team's own measured runs (tessera calibrate): the device and
// cluster efficiencies the cost model otherwise takes from its built-in fits (the
// matmul curve, the HBM and link shares, the communication-overlap shares that stay
// fitted) chosen by bounded least squares so that the model's step times meet the
// measured ones. The residual of a run is log(priced step / measured step), so a run
// counts by its relative error whatever its size.
//
// Before fitting, the runs must be able to determine what is asked: a parameter no
// run's step moves with, or one that moves the steps only as the others already
// asked for do together, is refused by name, as is a request for more parameters
// than the runs less one (the leave-one-out check must be able to fit without each
// run). The fit is a projected Levenberg-Marquardt in coordinates scaled to each
// parameter's range, from the built-in values.
#include <string>
#include <string_view>
#include <vector>

#include "io/calibrationio.h"
#include "model/costinput.h"

namespace tessera::core {

struct CalibratedRun {
    std::string label;
    double measuredStep = 0;       // seconds (from tokens/s where the run states that)
    double before = 0, after = 0;  // priced step, seconds: built in, fitted
    double leftOut = 0;            // priced by a fit on the other runs
};

struct Calibration {
    CalibrationSpec spec;  // what the file holds
    std::vector<std::string> fitted;                  // the parameters chosen, in request order
    std::vector<double> builtIn, value;               // each one's built-in figure and its fit
    std::vector<CalibratedRun> runs;
    double meanBefore = 0, meanAfter = 0, leaveOneOut = 0;  // mean |relative error| of the steps
};

// Fits `fit` (keys of calibrationParameters(), model/costinput.h; empty: all of them) on `runs`.
// Throws SpecError with the reason where the runs cannot determine the request.
Calibration calibrate(const RunsFile& runs, const std::vector<std::string>& fit);

}  // namespace tessera::core
