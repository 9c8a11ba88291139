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
// from every stage's floors F and residues H. The planner's walk over the stages goes
// from state to state: the running total j and an index h saying what else it needs.
// Three ways to walk:
//
//  - Plain: where a layer sits changes nothing a stage costs (one layer kind, or one
//    chunk per stage, whose running total is where it starts): h is always 0, and the
//    chunks are counted from j.
//  - Anchored: round 0 starts at 0, so its chunks sit at f_s whatever the others do;
//    the last round ends at the last layer. When the layers from the least F any
//    partition has up to the last but one are all of one kind (DeepSeek-V3: its dense
//    layers early, its MTP layer last), every chunk of a later round holds that kind
//    alone, wherever it sits, but the last stage's last chunk, which ends at the last
//    layer. Then only round 0's place matters, and only until it has passed the layers
//    before that run (the front): h is e = Σ r·h_r while f_s is in the front (f_s =
//    (j − e)/v), and one "settled" index after, when where anything sits no longer matters.
//  - Guessed: otherwise H is fixed per walk (one walk for each H that can place the
//    layers, guesses()), h indexes the histograms h ≤ H, and the walk ends at H.
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
    // Anchored: the layers from `front` up to the last but one are of one kind, and
    // `front` is at most leastFloors().
    static Rounds anchored(std::int64_t pp, std::int64_t vpp, std::int64_t placed, std::int64_t front);

    // Every H whose stages can place `placed` layers, each chunk one at least.
    static std::vector<std::vector<std::int32_t>> guesses(std::int64_t pp, std::int64_t vpp, std::int64_t placed);
    // The least F (every stage's floors summed) a partition has: where the later rounds start at the earliest.
    static std::int64_t leastFloors(std::int64_t pp, std::int64_t vpp, std::int64_t placed);
    // The cells a walk visits at most: p · (placed + 1) · indices.
    std::uint64_t cells() const { return std::uint64_t(m_p) * std::uint64_t(m_placed + 1) * m_states; }

    bool plain() const { return m_mode == Mode::Plain; }
    std::size_t states() const { return m_states; }
    // The index before the first stage, and the ones a walk may end at.
    std::size_t initial() const { return m_mode == Mode::Anchored && m_front == 0 ? settled() : 0; }
    std::size_t endFirst() const { return m_mode == Mode::Guessed ? m_states - 1 : 0; }
    std::size_t endLast() const { return m_states - 1; }
    // The running totals after stage s that index h allows, from jFirst on: the first,
    // and the step between them (past jLast when h cannot follow s + 1 stages).
    std::int64_t firstTotal(std::int64_t s, std::size_t h, std::int64_t jFirst) const;
    std::int64_t lastTotal(std::size_t h, std::int64_t jLast) const;
    std::int64_t totalStep(std::size_t h) const { return plain() || (m_mode == Mode::Anchored && h == settled()) ? 1 : m_v; }

    // Where a stage of s ≥ 1 can come from to end at (j, h): each series is the index
    // before it and the stage's totals n = first, first + step, ...; along a series a
    // larger n holds every layer a smaller one holds, and more.
    struct Series {
        std::size_t from;
        std::int64_t first, step;
    };
    void series(std::int64_t j, std::size_t h, std::vector<Series>& out) const {
        if (!plain()) return mixedSeries(j, h, out);
        out.resize(1);  // asked for every cell: kept inline
        out[0] = {0, m_v, 1};
    }
    // The index after a stage of n layers from (j, h), or npos.
    std::size_t after(std::int64_t j, std::size_t h, std::int64_t n) const;

    // The stage of total n after running total j and index h.
    void place(detail::StageRanges& out, std::int64_t j, std::size_t h, std::int64_t n) const;
    // What the earlier stages (j, h) hold, as layer ranges [from, to) in model order (to
    // price what is left; Anchored: the ranges hold the same kinds, in the same counts).
    void held(std::int64_t j, std::size_t h, std::vector<std::pair<std::int64_t, std::int64_t>>& out) const;

    static constexpr std::size_t npos = std::size_t(-1);

private:
    enum class Mode { Plain, Anchored, Guessed };
    void mixedSeries(std::int64_t j, std::size_t h, std::vector<Series>& out) const;
    std::int64_t digit(std::size_t h, std::int64_t r) const { return std::int64_t(h / m_radix[std::size_t(r)]) % (m_residues[std::size_t(r)] + 1); }
    std::size_t settled() const { return m_states - 1; }  // Anchored
    std::int64_t extraOf(std::size_t h) const;             // Σ r·h_r (Anchored, before settling: e)
    Mode m_mode = Mode::Plain;
    std::int64_t m_p, m_v, m_placed;
    std::int64_t m_front = 0;              // Anchored
    std::vector<std::int32_t> m_residues;  // H (Guessed)
    std::vector<std::size_t> m_radix;      // per residue
    std::size_t m_states = 1;
    std::vector<std::int64_t> m_start;     // S_c
    // Per histogram (Guessed): stages, extra layers, and per round g_c(h) ([h · v + c]).
    std::vector<std::int64_t> m_stages, m_extra, m_wider;
};

}  // namespace tessera::core::plan
