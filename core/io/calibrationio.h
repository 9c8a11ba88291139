#pragma once
// Calibration files (spec/calibrationspec.h) in and out: read with every field's
// position and refusal as a scenario's are, written atomically by tessera calibrate.
#include <optional>
#include <string>
#include <vector>

#include "spec/calibrationspec.h"
#include "spec/diagnostics.h"
#include "spec/scenario.h"

namespace tessera::core {

// Reads `path`; problems go to `d` with the file's own positions (section "calibration").
// A file that cannot be read or parsed throws FileError / LoadError.
CalibrationSpec readCalibrationFile(const std::string& path, Diagnostics& d);
// The file's text: a header saying what it is, then the fields.
std::string calibrationYaml(const CalibrationSpec& calibration);

// What the figures rest on, in one phrase for every place that shows an estimate:
// "calibrated on 8 runs (leave-one-out 1.2 %)" or "uncalibrated".
std::string calibrationStatus(const std::optional<CalibrationSpec>& calibration);

// A runs file (tessera calibrate RUNS.yaml):
//   runs:
//     - {scenario: FILE, measured: {step_time_s: X}}
//     - {scenario: FILE, measured: {tokens_per_second: N}}
// scenario paths relative to the runs file; each run states one measured figure.
struct MeasuredRun {
    std::string label;  // the scenario path as the file states it
    Scenario scenario;
    std::optional<double> stepSeconds, tokensPerSecond;
};
struct RunsFile {
    std::string path;
    std::vector<MeasuredRun> runs;
};
// Every problem is refused with its position (the runs file's, or a scenario's own).
RunsFile readRunsFile(const std::string& path);

}  // namespace tessera::core
