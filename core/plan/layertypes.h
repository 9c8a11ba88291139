#pragma once
// What the planner chooses among (internal to core/plan): its recompute classes (NONE
// first, then the seed's options, or the strategy's own when its recompute is kept),
// the layer types (layers of one kind that may take the same options, with the options
// no layer is better off with withdrawn), and, once a stage's choice is made, which of
// its layers takes which option.
#include <cstdint>
#include <string>
#include <vector>

#include "plan/planner.h"
#include "plan/stagecost.h"

namespace tessera::core::plan {

struct PlanClasses {
    std::vector<RecomputeClass> classes;    // the planner's strategy's classes, NONE first
    std::vector<std::string> names;         // NONE, SLCT, ... or STATED
    std::vector<std::uint8_t> statedClass;  // a stated class's index among them (request.recompute false)
};
PlanClasses planClasses(const Strategy& stated, const PlanRequest& request);

struct PlanTypes {
    std::vector<LayerType> types;
    std::vector<std::uint8_t> typeOf;  // per layer in model order (MTP after the body)
    std::vector<double> baseTime;      // per kind: a layer's time at NONE, forward and backward
};
// The layer types of `context`'s model under `classes` (context holds every (kind, class)
// cost, kind-major); a layer keeps its stated class when the request keeps the recompute.
// `everyOption`: keep the options another beats too (ties still merged), for the slower
// choices that hide a reduction (StageSolver::enableFronts), which may need any of them.
PlanTypes planTypes(detail::StageContext& context, const Strategy& stated, const PlanRequest& request,
                    const PlanClasses& classes, bool everyOption = false);

// The classes of the layers [start[c], end[c]) of every chunk c of a stage, from its
// choice: per (chunk, type) the options with more recompute on the earlier layers, as
// the seed assigns them (`chosen`: its layers per (chunk, type, option), StageSolver::counts);
// offloaded layers (chunk 0's first) run NONE. A choice that does not fit puts every
// layer at its type's lightest option.
void assignStage(const StageChoice& choice, const std::int32_t* chosen, const detail::StageRanges& ranges, std::int64_t chunks,
                 std::int64_t extraLast, const PlanTypes& types, std::vector<std::uint8_t>& layerClass);

}  // namespace tessera::core::plan
