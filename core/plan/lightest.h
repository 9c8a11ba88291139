#pragma once
// When no partition fits (internal to core/plan): the one whose worst stage misses the
// budget least, every stage at its lightest options, so that the plan can say per stage
// by how much the lightest plan misses.
#include <cstdint>
#include <functional>
#include <vector>

#include "plan/rounds.h"

namespace tessera::core::plan {

// What stage s needs at the least when it holds the n layers after running total i and
// residues h of `rounds` (StageChoice::lightest).
using LightestStage = std::function<Bytes(std::int64_t s, const Rounds& rounds, std::int64_t i, std::size_t h, std::int64_t n)>;

// Layers per stage of the partition, over every walk, whose heaviest stage is lightest.
std::vector<std::int64_t> lightestTotals(const std::vector<Rounds>& walks, std::int64_t p, std::int64_t v, std::int64_t placed,
                                         const LightestStage& lightest);

}  // namespace tessera::core::plan
