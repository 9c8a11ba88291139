#pragma once
// The rules a search candidate must keep before it is priced, each with the words
// its refusals are counted under. They are resolve()'s rules (core/resolve) for what
// a candidate varies, restated as integer checks a search can afford for every
// candidate, and tests/core/tst_searchagrees.cpp holds the two to each other. Two
// kinds of refusal: a candidate resolve() would refuse (invalid), and a valid one the
// search leaves out (pruned: outside a listed dp or micro_batch_num, or the same
// strategy as another candidate, or dominated by one). Internal to core/search.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/estimate.h"
#include "plan/bound.h"
#include "search/search.h"

namespace tessera::core {

inline constexpr std::size_t kAxes = 15;  // SearchSpace::radix()

enum class Refusal : std::uint8_t {
    None,
    DevicesNotDivided,
    DpNotListed,
    HeadsNotDivided,
    SequenceParallelWithoutTp,
    TpOverlapWithoutSp,
    ChunksWithoutPipeline,
    ScheduleNeedsChunks,
    ChunksNeedInterleaved,
    LayersNotSplit,
    BatchNotDivided,
    MicroBatchesNotListed,
    TooFewMicroBatches,
    InterleavedGroups,
    ExpertsOnDense,
    ExpertsNotDivided,
    ExpertGroupsNotFitting,
    ContextSequence,
    SequenceParallelSequence,
    ShardingWithoutOptimizer,
    ShardingRedundant,
    ScheduleWithoutPipeline,
    SelectiveKeepsEverything,
    ExpertWidthNotDivided,
    AllToAllHeads,
    ShardNotDividing,
    ShardWithoutOptimizer,
    TooManyChunks,
    TooManyMicroBatches,
    AccumulationOff,
    ExpertShardNotDividing,
    DeferredWithoutFsdp,
    PlacementNotFitting,
    LayersFewerThanChunks,
    Bounded,
    OffloadPastLayers,
    DualPipeShape,
    VShapeChunks,
    VShapeMicroBatches,
    ScheduleNotPlanned,
    P2pOverlapSchedule,
    ExpertOverlapWithoutEp,
    ExpertOverlapSchedule,
    SeqSplitSchedule,
    SeqPipeWithoutSplit,
    SeqPartContext,
    SeqSplitNotDividingPp,
    SimulationTooLong,
    ExpertTpDisagrees,
    Fp8ParamsSharding,
    ShardPerNodeSame,
    Count
};
inline constexpr std::size_t kRefusalReasons = std::size_t(Refusal::Count);
std::string refusalText(Refusal r);
// A valid candidate left out (see above), rather than one resolve() would refuse.
bool isPruning(Refusal r);

class Validity {
public:
    explicit Validity(const SearchSetup& setup);
    // Decode a candidate from its axis digits and check it; the candidate's degrees
    // are set either way (as far as they were decoded).
    Refusal check(const std::size_t* digits, Candidate& c) const;
    // The strategy fields of `in` for a valid candidate (no allocation).
    void fill(const Candidate& c, CostInput& in) const;

private:
    const SearchSetup& m_setup;
    std::int64_t m_heads, m_kvHeads, m_layers, m_experts, m_expertWidth, m_seq, m_linKey, m_linValue;
    std::int64_t m_expertShard = 0;       // stated exec.expert_shard; 0: the whole expert data-parallel group
    std::optional<std::int64_t> m_statedEtp;  // exec.etp stated beside a searched or stated expert_tp
    bool m_accumulationOff = false;       // stated grad_accumulation: false
    bool m_deferred = false;              // stated deferred_grad_accumulation: true
    bool m_fp8Params = false;             // stated fp8_params: true
    std::optional<bool> m_p2pOverlap;     // stated overlap_p2p_comm (unstated: follows each candidate's schedule)
    bool m_expertOverlap = false;         // stated overlap_moe_expert_parallel_comm: true
    std::int64_t m_seqSplit = 1;          // stated seq_split (unstated: 1)
    bool m_ringCp = true;                 // cp_algo is the ring (colossalai_cp)
    bool m_spWhereTp = false;             // stated sequence_parallel: true, not searched: on where tp > 1
    bool m_selectiveIsNoOp[2] = {false, false};  // [sequence parallel]: the rule drops nothing
};

std::vector<std::string> adviceWhenNothingFits(const SearchSetup& setup, const SearchResult& result);

// What the planner is asked for a candidate of a planned space (pp_partition: auto or
// recompute: per_layer); nullopt when the candidate is priced as it stands.
std::optional<PlanRequest> candidatePlanRequest(const SearchSpace& space, const Candidate& c, const CostInput& filled);

// A valid candidate priced as the search prices it: `in` filled with it, planned inside
// where the space asks (pp_partition: auto, recompute: per_layer; the plan kept in
// c.plan), then evaluated. nullopt: no plan (fewer layers than chunks).
std::optional<Summary> priceCandidate(const SearchSetup& setup, const Validity& validity, Candidate& c, CostInput& in);
// The same for `in` already filled with c and its plan request (candidatePlanRequest):
// nullopt, `why` says whether there is no plan (fewer layers than chunks) or none faster
// than `ceiling` (Bounded; see PlanRequest::ceiling).
std::optional<Summary> priceFilled(const SearchSpace& space, Candidate& c, const CostInput& in,
                                   std::optional<PlanRequest> request,
                                   double ceiling = std::numeric_limits<double>::infinity(), Refusal* why = nullptr);

}  // namespace tessera::core
