#pragma once
// Where a stage's chunks sit in model order while the planner chooses the partition
// (internal to core/plan). The planner searches stage totals: stage s holds n_s layers,
// and under interleaving (vpp v > 1) its chunk c holds ⌊n_s/v⌋ plus one when
// c ≥ v − (n_s mod v), the extra layers on its later chunks (planner.h says why).
//
// Model order runs round by round (chunk 0 of every stage, then chunk 1, ...), so
// stage s's chunk c starts at
//
//     S_c + f_s + g_c(h_s)
//
// with f_s the earlier stages' floors ⌊n/v⌋ summed, h_s their residues' histogram (how
// many of them have n mod v = r, for r = 1 .. v−1), g_c(h) = Σ_{r ≥ v−c} h_r the extra
// layers they put in round c, and S_c where round c starts: c·F + Σ_{c'<c} g_{c'}(H),
// from every stage's floors F and residues H. A walk over the stages carries the
// running total j = v·f_s + Σ r·h_r and a histogram index; three ways to walk:
//
//  - Plain: where a layer sits changes nothing a stage costs (one layer kind, or one
//    chunk per stage, whose running total is where it starts): no histogram, and the
//    chunks are counted from j.
//  - Anchored: round 0 starts at 0, so its chunks sit at f_s whatever the others do; the
//    last round ends at the last layer. When the layers between the least F any
//    partition has and the last one are all of one kind (DeepSeek-V3: its dense layers
//    early, its MTP layer last), every other chunk holds that kind alone, wherever it
//    is; only the last stage's last chunk can hold the last layer, and it ends there.
//    The walk then carries e = Σ r·h_r (the "histogram" index) and ends at any e.
//  - Guessed: otherwise H is fixed per walk (one walk for each H that can place the
//    layers, guesses()), the walk carries h and ends at H.
#include <cstdint>
#include <vector>

#include "model/stagebody.h"

namespace tessera::core::plan {

class Rounds {
public:
    // Plain.
    Rounds(std::int64_t pp, std::int64_t vpp, std::int64_t placed);
    // Guessed: `residues` is H (index r = 1 .. v−1; index 0 unused).
    Rounds(std::int64_t pp, std::int64_t vpp, std::int64_t placed, std::vector<std::int32_t> residues);
    // Anchored, with the layers from `steadyFrom` to the last but one all of one kind.
    static Rounds anchored(std::int64_t pp, std::int64_t vpp, std::int64_t placed, std::int64_t steadyFrom);

    // Every H whose stages can place `placed` layers, each chunk one at least.
    static std::vector<std::vector<std::int32_t>> guesses(std::int64_t pp, std::int64_t vpp, std::int64_t placed);
    // The least F (every stage's floors summed) a partition has: past it, the later rounds.
    static std::int64_t leastFloors(std::int64_t pp, std::int64_t vpp, std::int64_t placed);
    // The cells a walk visits at most: p · (placed + 1) · histograms.
    std::uint64_t cells() const { return std::uint64_t(m_p) * std::uint64_t(m_placed + 1) * m_histograms; }

    bool plain() const { return m_mode == Mode::Plain; }
    bool anchoredWalk() const { return m_mode == Mode::Anchored; }
    std::size_t histograms() const { return m_histograms; }
    // The histograms a walk ends at (after the last stage).
    std::size_t endFirst() const { return m_mode == Mode::Guessed ? m_histograms - 1 : 0; }
    std::size_t endLast() const { return m_histograms - 1; }
    // h with one fewer stage of residue r, or npos when it has none (r 0: h itself).
    std::size_t without(std::size_t h, std::int64_t r) const;
    // The stage of total n after running total j and histogram h.
    void place(detail::StageRanges& out, std::int64_t j, std::size_t h, std::int64_t n) const;
    // What the earlier stages (j, h) hold, as layer ranges [from, to) in model order,
    // one per round, to price what is left (Anchored: round 0's, then the later rounds'
    // as a run of the steady kind from steadyFrom).
    void held(std::int64_t j, std::size_t h, std::vector<std::pair<std::int64_t, std::int64_t>>& out) const;
    // Per histogram h: the fewest stages it needs and their layers past the floors (Σ r·h_r).
    std::int64_t stagesOf(std::size_t h) const;
    std::int64_t extraOf(std::size_t h) const;

    static constexpr std::size_t npos = std::size_t(-1);

private:
    enum class Mode { Plain, Anchored, Guessed };
    std::int64_t digit(std::size_t h, std::int64_t r) const { return std::int64_t(h / m_radix[std::size_t(r)]) % (m_residues[std::size_t(r)] + 1); }
    Mode m_mode = Mode::Plain;
    std::int64_t m_p, m_v, m_placed;
    std::int64_t m_steadyFrom = 0;         // Anchored
    std::vector<std::int32_t> m_residues;  // H (Guessed)
    std::vector<std::size_t> m_radix;      // per residue
    std::size_t m_histograms = 1;
    std::vector<std::int64_t> m_start;     // S_c
    // Per histogram: stages, extra layers, and per round g_c(h) ([h · v + c]).
    std::vector<std::int64_t> m_stages, m_extra, m_wider;
};

}  // namespace tessera::core::plan
