#pragma once
// What `tessera search` prints: the space, what was evaluated, feasible and refused
// (by reason), the top strategies and the Pareto front, as text or JSON; and a
// candidate as the exec section it stands for.
#include <string>

#include "io/document.h"
#include "search/search.h"

namespace tessera::core {

// The exec keys a candidate sets (every dimension the search can vary).
Value candidateExec(const Candidate& c);
// The scenario with the candidate's strategy in its exec section.
Scenario scenarioWithCandidate(const Scenario& scenario, const Candidate& c);

std::string searchText(const SearchSetup& setup, const SearchResult& result, std::size_t top);
std::string searchJson(const SearchSetup& setup, const SearchResult& result, std::size_t top);

}  // namespace tessera::core
