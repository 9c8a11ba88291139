#pragma once
// What `tessera plan` prints: the plan of a scenario's strategy (plan/planner.h) beside
// the strategy as stated - layers per stage and chunk, every layer's recompute as
// ranges, each stage's peak memory and time per micro-batch before and after, the
// step, and the exec keys that state the plan - or, when nothing fits, by how much
// the lightest plan misses on each stage.
#include <string>

#include "model/estimate.h"
#include "plan/planner.h"
#include "resolve/resolve.h"

namespace tessera::core {

struct PlanReport {
    const ResolvedScenario& stated;
    const Estimate& before;
    const Plan& plan;
    const ResolvedScenario* planned;  // the scenario with the plan written in (null when nothing fits)
    const Estimate* after;
};

std::string planText(const PlanReport& report);
std::string planJson(const PlanReport& report);

}  // namespace tessera::core
