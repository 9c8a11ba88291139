#pragma once
// What `tessera estimate` prints: a per-stage table a reviewer can read, and the
// JSON a script reads (issue #3's keys; more keys may be added, these keep their
// names).
#include <string>
#include <vector>

#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::core {

std::string estimateText(const ResolvedScenario& r, const Estimate& e);
std::string estimateJson(const ResolvedScenario& r, const Estimate& e);

// The lines a title block and the text start with: "Llama-3 70B on 64 × H100 SXM"
// and the strategy in one line ("dp 2 · tp 8 · pp 4 · mbs 1 × 64 micro-batches ...").
std::string headline(const ResolvedScenario& r);
std::string strategyLine(const ResolvedScenario& r);
// The key figures, one sentence a line: peak and fit, step and throughput, where the
// step goes, the parameters.
std::vector<std::string> keyFigures(const Estimate& e);

}  // namespace tessera::core
