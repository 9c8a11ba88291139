#pragma once
// One spelling of a searched strategy. A Candidate is what the search varies, as
// numbers; everything that needs the strategy as a person states it - the `strategy`
// object of `search --json`, the exec section a pick in the GUI writes, the
// train.yaml written for the best - goes through these two functions, so a strategy
// reads the same wherever it appears.
//
// The search itself prices a candidate through Validity::fill, straight into a
// CostInput (no allocation, about a million a second), and refuses it by the
// integer rules of validity.h. Nothing in the types ties those to resolve() and
// costInput(); tests/core/tst_searchagrees.cpp does: over every candidate of three
// spaces, the search refuses a candidate exactly when resolve() refuses
// scenarioFor() of it, and where both price it they agree on every stage's bytes and
// on the step time to 1e-9.
#include "search/search.h"
#include "spec/scenario.h"

namespace tessera::core {

// The exec keys a candidate decides, and only those: the degrees, the batch
// (global_batch_size too, so the section reads on its own), sequence parallelism, the
// sharding switches, the recompute as one range over every layer, the schedule.
ExecSpec strategyExec(const Candidate& c);
// `stated` with the candidate's keys laid over it. The per-stage recompute counts of
// the seed (full_recompute, selective_recompute) give way to the candidate's
// `recompute`, which replaces them (resolve() refuses both at once); the search only
// accepts such counts when they mean one option for every layer (searchSetup).
ExecSpec execFor(const ExecSpec& stated, const Candidate& c);
// The scenario with execFor() as its exec section; model, cluster and search stay.
Scenario scenarioFor(const Scenario& stated, const Candidate& c);

}  // namespace tessera::core
