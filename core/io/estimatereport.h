#pragma once
// What `tessera estimate` prints: a per-stage table a reviewer can read, and the
// JSON a script reads (issue #3's keys; more keys may be added, these keep their
// names).
#include <string>

#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::core {

std::string estimateText(const ResolvedScenario& r, const Estimate& e);
std::string estimateJson(const ResolvedScenario& r, const Estimate& e);

// "9.84 s", "612 ms": three significant figures, ms under one second.
std::string formatSeconds(double seconds);

}  // namespace tessera::core
