#pragma once
// What `tessera show` prints: the resolved scenario with every filled field
// marked, and the parameter counts. Also the values the GUI shows.
#include <string>

#include "doc/document.h"
#include "model/parameters.h"
#include "resolve/resolve.h"

namespace tessera::core {

// The resolved scenario as a tree, the device written out in full.
Value resolvedValue(const ResolvedScenario& r);
Value parametersValue(const ParameterCount& count);

std::string showText(const ResolvedScenario& r);
std::string showJson(const ResolvedScenario& r);
// A search file that is not one run (the seed's search yaml states lists, not a
// strategy): the scenario it reads as, with what its import filled marked, and the
// first reason it is not one run.
std::string showSearchText(const Scenario& stated, const Diagnostic& notOneRun);
std::string showSearchJson(const Scenario& stated, const Diagnostic& notOneRun);

}  // namespace tessera::core
