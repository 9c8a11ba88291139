#pragma once
// What `tessera search` prints: the space, what was evaluated, feasible and refused
// (by reason), the top strategies and the Pareto front, as text or JSON. Each
// strategy of the JSON is an exec section (search/strategy.h): laid over the
// scenario's exec, `estimate` prices it to the figures beside it.
#include <string>

#include "search/search.h"

namespace tessera::core {

std::string searchText(const SearchSetup& setup, const SearchResult& result, std::size_t top);
std::string searchJson(const SearchSetup& setup, const SearchResult& result, std::size_t top);

}  // namespace tessera::core
