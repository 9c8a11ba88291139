#pragma once
// The partition programme's labels (internal to core/plan): a partial plan of the first
// stages, held as the sums and maxima of their times that the step's formula reads, and
// that formula over them: how a stage extends a label, which label is no worse than
// another, and the step of a whole plan (of a partial one, a lower bound: every term
// grows, and zb-h1's fill only shrinks, as stages are added).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "pipeline/closedform.h"
#include "plan/stagecost.h"

namespace tessera::core::plan {

inline constexpr std::int64_t kMaxPlacedLayers = 32767;
inline constexpr std::size_t kMaxSlowerChoices = 65535;

struct Label {
    double sumX = 0, sumF = 0, maxX = 0, maxF = 0, maxB = 0, maxTail = 0;
    // zb-h1's: the largest drain per hop, F + B, and the least weight gradient that fills it.
    double maxY = 0, maxFB = 0, minFill = std::numeric_limits<double>::infinity();
    // The stages' largest peak so far: the whole plan's is no less. Not read by the step
    // (nor by covers): a caller that keeps a front may cap the step by it (PlanRequest::peakCaps).
    Bytes peak = 0;
    // Where it came from: the label, and the running total (the planner places at most
    // kMaxPlacedLayers); the last stage's choice, its fastest (0) or the pick-th slower
    // one (StageChoice::more, at most kMaxSlowerChoices). Small, so that a label stays
    // 96 bytes: the walk copies millions of them in a search.
    std::int32_t fromLabel = -1;
    std::int16_t from = -1;
    std::uint16_t pick = 0;
};

class StepForm {
public:
    explicit StepForm(const PipelineShape& shape)
        : m_shape(shape),
          m_reads(shape.schedule == Schedule::GPipe                           ? Reads::SplitSums
                  : shape.schedule == Schedule::ZbH1 && shape.stages > 1 ? Reads::ZeroBubble
                                                                          : Reads::Sums) {}

    bool splitSums() const { return m_reads == Reads::SplitSums; }
    bool zeroBubble() const { return m_reads == Reads::ZeroBubble; }

    // Inlined where the walk calls them: a call each was a twentieth of a planned search.
    [[gnu::always_inline]] Label extend(const Label& from, const StageChoice& c) const {
        Label x = from;
        x.sumX += c.perMicroBatch, x.sumF += c.forward;
        if (splitSums()) x.maxF = std::max(x.maxF, c.forward), x.maxB = std::max(x.maxB, c.perMicroBatch - c.forward);
        else x.maxX = std::max(x.maxX, c.perMicroBatch);
        if (zeroBubble()) {  // as estimate.cpp forms them, B the input gradient with its recompute
            const double b = c.perMicroBatch - c.forward - c.weightGrad;
            x.maxY = std::max({x.maxY, c.forward + b - std::min(b, c.weightGrad), b});
            x.maxFB = std::max(x.maxFB, c.forward + b);
            x.minFill = std::min(x.minFill, std::min(b, c.weightGrad));
        }
        x.maxTail = std::max(x.maxTail, c.tail);
        x.peak = std::max(x.peak, c.peak);
        return x;
    }

    // As evaluate() forms it (for GPipe the makespan reads the forward and backward sums
    // only through their total).
    // `later`: seconds a micro-batch that stages not yet in x will add to the sum (on the
    // backward's side: a lower bound then, since only the total and the maxima are read).
    double step(const Label& x, double later = 0) const {
        if (zeroBubble()) return pipelineMakespanZbH1(m_shape, {x.maxX, x.maxY, x.maxFB, x.minFill}) + x.maxTail;
        const double sumX = x.sumX + later;
        return pipelineMakespan(m_shape, sumX, x.maxX, x.sumF, x.maxF, sumX - x.sumF, x.maxB) + x.maxTail;
    }

    // Whether a is no worse than b in everything the step reads (gpipe: the forward and
    // backward maxima; zb-h1: the maxima and the fill, not the sum).
    [[gnu::always_inline]] bool covers(const Label& a, const Label& b) const {
        if (a.maxTail > b.maxTail) return false;
        switch (m_reads) {
        case Reads::Sums: return a.sumX <= b.sumX && a.maxX <= b.maxX;
        case Reads::SplitSums: return a.sumX <= b.sumX && a.maxF <= b.maxF && a.maxB <= b.maxB;
        case Reads::ZeroBubble: return a.maxX <= b.maxX && a.maxY <= b.maxY && a.maxFB <= b.maxFB && a.minFill >= b.minFill;
        }
        return false;
    }

    // x into a Pareto set of labels: unless one there covers it, dropping those it covers.
    [[gnu::always_inline]] void insert(std::vector<Label>& front, const Label& x) const {
        for (const Label& y : front)
            if (covers(y, x)) return;
        std::erase_if(front, [&](const Label& y) { return covers(x, y); });
        front.push_back(x);
    }

private:
    enum class Reads { Sums, SplitSums, ZeroBubble };  // 1f1b and interleaved, gpipe, zb-h1
    PipelineShape m_shape;
    Reads m_reads;
};

}  // namespace tessera::core::plan
