#pragma once
// What `tessera search` prints: the space, what was evaluated, feasible and refused
// (by reason), the top strategies and the Pareto front, as text or JSON. Each
// strategy of the JSON is an exec section (search/strategy.h): laid over the
// scenario's exec, `estimate` prices it to the figures beside it.
#include <string>
#include <utility>
#include <vector>

#include "search/search.h"

namespace tessera::core {

std::string searchText(const SearchSetup& setup, const SearchResult& result, std::size_t top);
// Its first part: what was searched, how much was valid and fit, and every refusal by
// count; then, when nothing fits, what to widen. `narrow` (a side panel that wraps)
// writes each refusal as "count × reason" with a blank line between them instead of
// a right-aligned count column, which wrapping breaks apart.
std::string searchSummary(const SearchSetup& setup, const SearchResult& result, bool narrow = false);
// The refusals, most frequent first (ties by reason).
std::vector<std::pair<std::uint64_t, std::string>> refusalsByCount(const SearchResult& result);
std::string searchJson(const SearchSetup& setup, const SearchResult& result, std::size_t top);

}  // namespace tessera::core
