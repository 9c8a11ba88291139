#pragma once
// The rules a search candidate must keep before it is priced, each with the words
// its refusals are counted under. The same rules resolve() applies to a stated
// scenario (core/resolve), restated here as integer checks a search can afford for
// every candidate. Internal to core/search.
#include <cstdint>
#include <string>
#include <vector>

#include "search/search.h"

namespace tessera::core {

inline constexpr std::size_t kAxes = 14;  // SearchSpace::radix()

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
    Count
};
inline constexpr std::size_t kRefusalReasons = std::size_t(Refusal::Count);
std::string refusalText(Refusal r);

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
    bool m_selectiveIsNoOp[2] = {false, false};  // [sequence parallel]: the rule drops nothing
};

std::vector<std::string> adviceWhenNothingFits(const SearchSetup& setup, const SearchResult& result);

}  // namespace tessera::core
