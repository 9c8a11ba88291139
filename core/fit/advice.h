#pragma once
// Why a strategy does not fit, and what would (issue 17). adviseFit() names the memory
// term that dominates the peak stage, then prices one- and two-knob moves around the
// stated strategy (fit/moves.h), each made whole by fit/rederive.h, through resolve()
// and estimate() as `tessera estimate` prices them: a move resolve() refuses is not
// offered. For a strategy over the device it offers the smallest moves that fit
// (fewest knobs first, then fastest, then the closest misses); for one that fits, the
// moves that still fit and are faster, fastest first.
//
// Each suggestion carries the exec section to apply: the stated one with its changes,
// to write with SpecWriter as a search pick writes execFor(). Pure, on any thread.
#include <cstddef>
#include <string>
#include <vector>

#include "fit/rederive.h"
#include "model/evaluation.h"

namespace tessera::core {

// The largest memory term of the peak stage (a device's two stages under dualpipe).
struct DominantTerm {
    int stage = 0;
    bool device = false;    // dualpipe: the row is a device running two stages
    std::string key, name;  // kMemoryTerms: "optimizer_states", "Optimizer states"
    Bytes bytes = 0;        // the term
    Bytes total = 0;        // the stage's total (reserve included)
    Bytes limit = 0;        // the device's memory, or exec.device_memory
    double share = 0;       // bytes / total
    std::int64_t over = 0;  // total - limit: above 0 over the device, else the headroom negated
    std::string sentence;   // "stage 0 holds 109.2 GiB of 80 GiB: optimizer states 41.3 GiB (38 %) dominate"
};

struct Suggestion {
    std::vector<std::string> knobs;  // one or two knob labels, "recompute: full"
    std::vector<Change> changes;     // every exec key it changes, the knobs' first, then what they bind
    ExecSpec exec;                   // the stated exec section with the changes
    Bytes peakMemory = 0;
    double stepSeconds = 0, tokensPerSecond = 0;
    bool fits = false;
    std::string sentence;  // "recompute: full + tp 1 → 2: 71.3 GiB, fits; step 12.41 s (+7.0 %)"
};

struct FitAdvice {
    bool fits = false;
    Bytes peakMemory = 0;
    double stepSeconds = 0, tokensPerSecond = 0;
    DominantTerm dominant;
    // Not fitting: the fitting moves (fewest knobs, then fastest), then the moves that come
    // closest. Fitting: the faster moves that still fit, fastest first.
    std::vector<Suggestion> suggestions;
    std::size_t priced = 0, refused = 0;  // moves priced, and of those refused by resolve()
    std::string summary;                  // one sentence over the suggestions
};

struct FitOptions {
    std::size_t limit = 8;  // suggestions kept
    bool pairs = true;      // two-knob moves too
};

// Throws SpecError when `stated` does not resolve.
FitAdvice adviseFit(const Scenario& stated, const FitOptions& options = {});
// The same on a strategy already evaluated (`resolved`, `estimate` of `stated`).
FitAdvice adviseFit(const Scenario& stated, const ResolvedScenario& resolved, const Estimate& estimate,
                    const FitOptions& options = {});

DominantTerm dominantTerm(const Estimate& estimate);

}  // namespace tessera::core
