#pragma once
// Two proposals side by side (`tessera diff A B`, File ▸ Compare with…): every field
// of the resolved scenarios that differs, with where each side's value came from
// (stated, default, derived, family), and every figure that moves - the peak and
// each stage's memory terms, the step and where it goes, tokens/s, MFU, GPU-hours per
// trillion tokens and the days for the token budget. Equal figures are left out and
// counted, so a reader sees at once how much moved.
#include <optional>
#include <string>
#include <vector>

#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::core {

struct DiffSide {
    std::string name;  // the file or preset it came from
    const ResolvedScenario* resolved = nullptr;
    const Estimate* estimate = nullptr;
};

struct FieldDifference {
    std::string path;  // "exec.tp"
    std::string a, b;  // the values as text, "absent" for one side only
    std::string aSource, bSource;  // "stated", or how it was filled ("derived: devices / (tp·pp·cp)")
};

// A figure as a number both sides have (absent on one side: nullopt), in its unit.
struct FigureDifference {
    std::string key;   // "step_time_s", "stage 1 activations"
    std::string unit;  // "s", "GiB", "tokens/s", "%", "days", "GPU-h"
    std::optional<double> a, b;
};

struct ScenarioDiff {
    std::vector<FieldDifference> fields;
    std::vector<FigureDifference> figures;  // the whole step's, then memory per stage
    int figuresUnchanged = 0;
    std::optional<bool> aFits, bFits;
};

ScenarioDiff diffScenarios(const DiffSide& a, const DiffSide& b);
std::string diffText(const DiffSide& a, const DiffSide& b, const ScenarioDiff& d);
std::string diffJson(const DiffSide& a, const DiffSide& b, const ScenarioDiff& d);

}  // namespace tessera::core
