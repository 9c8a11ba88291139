#pragma once
// What tessera calibrate prints: each run's measured step against the model's, with
// the built-in efficiencies, with the fit, and with a fit on the other runs (leave one
// out); then each parameter's built-in figure and its fit.
#include <string>

#include "calibrate/calibrate.h"

namespace tessera::core {

std::string calibrationText(const Calibration& calibration);

}  // namespace tessera::core
