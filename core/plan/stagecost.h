#pragma once
// One stage's part of a plan (internal to core/plan): given how many layers of each
// type every chunk of a stage holds, the fastest choice of options that fits the
// budget, priced exactly as model/stagebody.cpp prices the stage (its body with every
// layer at NONE is the frame; a choice changes only what the layers keep, their
// recompute time and the working set of the heaviest layer).
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/stagebody.h"
#include "pipeline/closedform.h"

namespace tessera::core::plan {

// One option a layer type may take: its class in the planner's strategy and what it
// costs a layer (bytes kept per micro-batch in flight, recompute seconds, the working
// set of its backward as stagebody.cpp counts it).
struct OptionCost {
    std::uint8_t cls = 0;
    double kept = 0, recompute = 0, working = 0;
};

// Layers of one kind that may take the same options (all of the planner's, or the
// one the strategy states when its recompute is kept).
struct LayerType {
    std::size_t kind = 0;
    std::vector<OptionCost> options;  // dominated ones removed
};

inline constexpr std::size_t kMaxTypeOptions = 5;

struct StageChoice {
    bool fits = false;
    double perMicroBatch = 0, forward = 0, tail = 0;  // X, F and the once-per-step tail at the choice
    double weightGrad = 0;  // W, which no choice changes (zb-h1 reads B = X − F − W apart from it)
    double recompute = 0;   // seconds of recompute the choice adds to the stage, one micro-batch
    Bytes peak = 0;       // at the choice
    Bytes lightest = 0;   // the least this stage can need, whatever the options
    std::int32_t offload = 0;  // its first layers whose activations go to the host (they run NONE)
    // Where its layers per (chunk, type, option) sit in the solver's store (StageSolver::counts).
    std::uint32_t countsAt = 0;
    // Its place among the solver's choices; the stage problem whose slower choices it
    // has or is one of (StageSolver::after; kNone: none); and for a slower choice, its
    // leaf in that problem's enumeration (its counts are found again from it).
    static constexpr std::uint32_t kNone = 0xffffffffu;
    std::uint32_t self = 0, problem = kNone, leaf = kNone;
};

// Packed keys to indices, by open addressing (linear probing, doubling at half full): a
// plan solves a few hundred stage problems, and a node-based map spent more on
// allocating its nodes than on finding them.
class PackedIndex {
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;
    std::uint32_t find(std::uint64_t key) const {
        if (m_values.empty()) return kNone;
        for (std::size_t i = slot(key);; i = (i + 1) & (m_values.size() - 1)) {
            if (m_values[i] == kNone || m_keys[i] == key) return m_values[i];
        }
    }
    void insert(std::uint64_t key, std::uint32_t value) {  // key not present
        if (2 * (m_size + 1) > m_values.size()) grow();
        std::size_t i = slot(key);
        while (m_values[i] != kNone) i = (i + 1) & (m_values.size() - 1);
        m_keys[i] = key, m_values[i] = value, ++m_size;
    }

private:
    std::size_t slot(std::uint64_t key) const {
        return std::size_t((key * 0x9e3779b97f4a7c15ull) >> (64 - m_bits));
    }
    void grow() {
        std::vector<std::uint64_t> keys = std::move(m_keys);
        std::vector<std::uint32_t> values = std::move(m_values);
        m_bits = values.empty() ? 8 : m_bits + 1;
        m_keys.assign(std::size_t(1) << m_bits, 0), m_values.assign(std::size_t(1) << m_bits, kNone);
        m_size = 0;
        for (std::size_t i = 0; i < values.size(); ++i)
            if (values[i] != kNone) insert(keys[i], values[i]);
    }
    std::vector<std::uint64_t> m_keys;
    std::vector<std::uint32_t> m_values;
    std::size_t m_size = 0;
    int m_bits = 0;
};

class StageSolver {
public:
    // `work`: the strategy with the planner's classes (class 0 NONE) and no layerClass.
    // With `typeOf` (each layer's type), a stage may also offload its first layers'
    // activations (1F1B, one chunk, a host link): the solver sets work's per-stage
    // offload while it prices a stage, and an offloaded layer runs NONE (as the seed's).
    // `context`: of `work`, with the layer costs it has priced so far; the solver prices
    // its stages in it (it outlives the solver).
    StageSolver(CostInput& work, detail::StageContext& context, std::vector<LayerType> types, Bytes budget,
                const std::vector<std::uint8_t>* typeOf = nullptr);

    // The stage holding `ranges` (its chunks' layers) with `typeCounts` layers of each
    // type per chunk ([chunk · types + type]); memoised on (stage, counts).
    const StageChoice& solve(std::int64_t stage, const detail::StageRanges& ranges, const std::int32_t* typeCounts);

    // A choice's layers per (chunk, type, option): [(chunk · types + type) · kMaxTypeOptions + option].
    // (A slower choice's are found again by walking its problem once more.)
    const std::int32_t* counts(const StageChoice& c);
    // The `more`-th slower choice of the fastest choice `c` (1, 2, ...; null past the last):
    // each takes longer a micro-batch and leaves a shorter tail than the one before. They
    // are enumerated the first time asked (a walk needs them only where `c` leaves a longer
    // tail than the partial plan it extends).
    const StageChoice* after(const StageChoice& c, std::uint32_t more);

    // Where a stage weighs less than one in the step (interleaved: 1/vpp off the straggler;
    // zb-h1: nothing off the critical stages) and its gradient reduction runs under its
    // last backward, more recompute can price a faster step by hiding more of that
    // reduction. Then each stage problem whose fastest choice leaves some of it exposed
    // also keeps every slower choice that exposes less (StageSolver::after): the planner
    // walks them all. Without offload.
    void enableFronts() { m_fronts = true; }
    // The longest time a micro-batch the caller can use of a stage from now on (it only
    // falls): slower choices past it are not enumerated.
    void limitPerMicroBatch(double seconds) { m_maxPerMicroBatch = seconds; }
    // Whether a stage problem had more slower choices than a label can name (the plan is
    // then the fastest over the first kMaxSlowerChoices of them).
    bool frontsCut() const { return m_frontsCut; }

    std::size_t types() const { return m_types.size(); }
    const std::vector<LayerType>& layerTypes() const { return m_types; }
    std::uint64_t problems() const { return m_problems; }

private:
    struct Frame {  // the stage with every layer at NONE (and its first `offload` layers offloaded)
        Bytes fixed = 0;             // parameters, gradients, states, master copy, buffers, reserve
        double offloadCopy = 0, offloadBackWindow = 0;  // StageBody's: the backward copy's exposure moves with recompute
        double fsdpMoves = 0, fsdpPieces = 1, fsdpCover = 0;  // StageBody's: so does FSDP's backward exposure
        double forward = 0;          // F
        double weightGrad = 0;       // W
        double weightGradKept = 0;   // what one held-back weight gradient keeps (zb-h1 holds some per stage)
        double perMicroBatch = 0;    // X
        double lastBackward = 0;     // backward + dW + recompute
        double embeddingKept = 0, outputKept = 0, workingRest = 0;
        double reduceSeconds = 0, reduceBuckets = 1, gatherExposed = 0, optimizer = 0;
    };
    const Frame& frame(std::int64_t stage, const detail::StageRanges& ranges, const std::int32_t* typeCounts,
                       std::int32_t offload, const std::string& order);
    // `offloaded`: per type, the layers of chunk 0 offloaded (NONE, keeping nothing in flight).
    // The choice's layers per (chunk, type, option) go to `chosen`.
    StageChoice choose(std::int64_t stage, const Frame& f, const std::int32_t* typeCounts, std::vector<std::int32_t>& chosen,
                       const std::int32_t* offloaded = nullptr) const;
    // `order`: with offload, the types of chunk 0's layers in run order (else empty).
    StageChoice solveOnce(std::int64_t stage, const detail::StageRanges& ranges, const std::int32_t* typeCounts,
                          const std::string& order, std::vector<std::int32_t>& chosen);
    // What a stage keeps whatever its layers' options: the embedding's and output layer's
    // saved inputs per micro-batch in flight, and zb-h1's held-back weight gradients.
    double headKept(std::int64_t stage, const Frame& f) const;
    // A fitting choice's time and tail from the recompute it adds to the frame.
    void finish(const Frame& f, double recompute, StageChoice& c) const;
    struct Problem;
    // Every leaf of a problem's enumeration of the options' counts that fits and recomputes
    // more than its fastest choice, always in the same order, each handed to `leaf` with its
    // recompute, its peak, its number, the least recompute found so far that hides all it
    // can, and a callable that writes its counts per (chunk, type, option) into a vector
    // (plan/stagefront.cpp). False: no leaf can be.
    template <class Leaf>
    bool walkLeaves(const Problem& problem, Leaf&& leaf) const;
    // The problem's slower choices, from its leaves in order of recompute.
    void prepare(Problem& problem);
    // The recompute past which no choice exposes less of the reduction (negative: none
    // exposes less than `fastest`).
    double hidingRecompute(const Frame& f, const StageChoice& fastest) const;

    CostInput& m_work;
    const std::vector<std::uint8_t>* m_typeOf = nullptr;  // non-null: offload may be chosen
    detail::StageContext& m_ctx;  // the planner's: one context prices every stage of a plan
    std::vector<LayerType> m_types;
    Bytes m_budget;
    PipelineShape m_shape;
    std::int64_t m_chunks;
    // Memo keys: (tag, counts) packed in 64 bits when they fit (m_bits a count), else as bytes.
    bool m_packed = false;
    int m_bits = 14;
    PackedIndex m_frameByPack, m_choiceByPack;
    std::unordered_map<std::string, std::size_t> m_frameIndex, m_choiceIndex;
    std::deque<Frame> m_frames;        // deques: what solve() returns stays where it is
    std::deque<StageChoice> m_choices;
    struct SlowerLeaf {
        double recompute;
        Bytes peak;
        std::uint32_t at;  // its leaf, in the walk's order
    };
    struct Problem {  // a fastest choice's stage problem, kept for its slower choices
        std::int64_t stage;
        const Frame* frame;
        std::uint32_t typeCountsAt;  // in m_typeCounts
        std::uint32_t fastest;       // its fastest choice, in m_choices
        bool prepared = false;
        double most = 0;             // the most recompute walked (from m_maxPerMicroBatch when prepared)
        std::vector<std::uint32_t> slower;  // its slower choices, in m_choices
    };
    std::vector<Problem> m_problemsPending;
    std::vector<std::int32_t> m_typeCounts, m_leafCounts;
    std::vector<std::int32_t> m_counts;  // every choice's layers per (chunk, type, option), one after another
    std::uint64_t m_problems = 0;
    bool m_fronts = false;
    double m_maxPerMicroBatch = std::numeric_limits<double>::infinity();
    mutable bool m_frontsCut = false;
};

}  // namespace tessera::core::plan
