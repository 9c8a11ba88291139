#pragma once
// What `tessera estimate` prints: a per-stage table a reviewer can read, and the
// JSON a script reads (issue #3's keys; more keys may be added, these keep their
// names).
#include <string>
#include <vector>

#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::core {

struct FitAdvice;  // fit/advice.h

// With `fit`, the text says after the memory table why it does not fit and what would
// (or the nearest faster strategies), and the JSON has it as `fit_suggestions`.
std::string estimateText(const ResolvedScenario& r, const Estimate& e, const FitAdvice* fit = nullptr);
// "Stage 0 holds the vision tower, in the figures above: ..." for a stage that holds one;
// empty otherwise (the text output, the Memory view and the review say the same).
std::string visionShareText(const StageEstimate& stage);
std::string estimateJson(const ResolvedScenario& r, const Estimate& e, const FitAdvice* fit = nullptr);

// The lines a title block and the text start with: "Llama-3 70B on 64 × H100 SXM"
// and the strategy in one line ("dp 2 · tp 8 · pp 4 · mbs 1 × 64 micro-batches ...").
std::string headline(const ResolvedScenario& r);
std::string strategyLine(const ResolvedScenario& r);
// The key figures, one sentence a line: peak and fit, step and throughput, where the
// step goes, the parameters.
std::vector<std::string> keyFigures(const Estimate& e);
// "Time to train: 15T tokens in 3,576,279 steps, 41.7 days on 1,024 devices · 1,234
// GPU-hours per trillion tokens", or the GPU-hours alone without a token budget.
std::string timeToTrain(const Estimate& e);

}  // namespace tessera::core
