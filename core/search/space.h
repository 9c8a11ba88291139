#pragma once
// The strategy space a search walks: for each dimension the candidate values, from
// the scenario's search section (a list, or `auto`), or the exec section's value when
// the search does not name the dimension. `auto` takes every value the validity
// rules could admit, bounded as the seed's search bounds them (reference §6.2):
// degrees that divide the devices (and the heads, experts, layers they split),
// micro-batch sizes dividing the per-replica batch, both states of a switch, every
// schedule and recompute mode.
//
// dp and micro_batch_num are not enumerated: each candidate derives them
// (dp = devices / (tp·pp·cp), micro-batches = global batch / (mbs·dp)), and a listed
// dp or micro_batch_num becomes a filter.
#include <cstdint>
#include <string>
#include <vector>

#include "model/costinput.h"
#include "pipeline/partition.h"
#include "resolve/resolve.h"

namespace tessera::core {

// optimizer_shard: auto's second value: one shard per NVLink domain (search/validity.cpp).
inline constexpr std::int64_t kShardPerNode = -1;

enum class Objective : std::uint8_t { StepTime, Memory, TokensPerSecond };
// PerLayer: the planner chooses every layer's option (plan/planner.h).
enum class RecomputeMode : std::uint8_t { None, Selective, Full, PerLayer };

struct SearchSpace {
    std::vector<std::int64_t> tp, pp, vpp, cp, ep, mbs;
    // Expert tensor parallelism, in the seed's spelling (etp: <= 1, the dense tp) or, when
    // megatronExpertTp, Megatron's (expert_tp: the degree itself); resolve/expertgrid.h.
    std::vector<std::int64_t> etp;
    bool megatronExpertTp = false;
    // Ranks a shard spans; 0: the whole data-parallel group; kShardPerNode: the group's
    // ranks in one NVLink domain, each candidate's own (optimizer_shard: auto).
    std::vector<std::int64_t> optimizerShard;
    // HyperParallel's FSDP degree; it then decides the three sharding axes. 0: not searched.
    std::vector<std::int64_t> dpShard;
    std::vector<std::int64_t> dpFilter, mbnFilter;  // empty: any
    std::vector<bool> sp, optimizerSharded, gradSharded, fsdp;
    std::vector<RecomputeMode> recompute;
    std::vector<Schedule> schedule;
    std::vector<std::string> varied;  // exec keys the search varies, for output
    // A stated placement of layers (offset, pp_partition) as each pp and vpp of the
    // space takes it, [pp index · vpp.size() + vpp index] -> [chunk][stage]; an empty
    // entry where it places no layers for that shape. Empty: nothing stated, the even split.
    std::vector<std::vector<std::vector<std::int64_t>>> placements;
    // search.space.pp_partition: auto - the planner places the layers of every candidate
    // (vpp 1; with vpp > 1 the even split, the remainder on the last chunks).
    bool planPartition = false;

    std::int64_t devices = 1, globalBatch = 1;
    Bytes memoryLimit = 0;
    Objective objective = Objective::StepTime;
    std::size_t keep = 50;
    std::string selectiveRule = "megatron";

    // Axis sizes in enumeration order (innermost last) and their product.
    std::vector<std::size_t> radix() const;
    std::uint64_t size() const;
};

// The space of a scenario (its search section, or the default space when that names
// no axis: spec/searchspec.h), and the base the candidates fill in. Throws
// SpecError, also for a stated value the search would otherwise not carry.
struct SearchSetup {
    ResolvedScenario base;  // resolveRun(): model, cluster and run-wide exec fields
    CostInput input;        // runCostInput(base)
    SearchSpace space;
};
SearchSetup searchSetup(const Scenario& scenario);

std::string recomputeName(RecomputeMode mode);

}  // namespace tessera::core
