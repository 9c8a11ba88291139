#pragma once
// A plan as the exec section states it, so `estimate` reads back exactly what the
// planner priced: the partition as pp_partition (per stage, or per chunk and stage),
// every layer's option as recompute ranges (consecutive layers alike as one range),
// and the forms a plan replaces (offset, the seed's per-stage recompute counts and
// selective_comm_recompute) cleared: a strategy's own recompute, when the plan kept
// it, is written as ranges too, since per-stage counts would name other layers on a
// new partition.
#include "plan/planner.h"
#include "resolve/resolve.h"

namespace tessera::core {

// What to plan for a resolved scenario: SLCT keeps what its stated selective recompute
// keeps (the first selective range, its ops or the rule), else what its rule keeps.
PlanRequest planRequest(const ResolvedScenario& r, bool partition = true, bool recompute = true, bool offload = false);

// The plan's recompute ranges, in model order.
std::vector<RecomputeRange> planRanges(const Plan& plan);

// `stated` with the plan written in.
ExecSpec planExec(const ExecSpec& stated, const Plan& plan);

}  // namespace tessera::core
