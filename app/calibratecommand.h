#pragma once
// tessera calibrate RUNS.yaml -o CALIBRATION.yaml [--fit key,key,...] [--force]
#include <string>
#include <vector>

namespace tessera::app {

int cmdCalibrate(const std::vector<std::string>& args);

}  // namespace tessera::app
