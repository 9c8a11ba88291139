#include "plan/stagecost.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "model/visioncost.h"

namespace tessera::core::plan {

using detail::wholeBytes;


StageSolver::StageSolver(CostInput& work, detail::StageContext& context, std::vector<LayerType> types, Bytes budget,
                         const std::vector<std::uint8_t>* typeOf)
    : m_work(work),
      m_typeOf(typeOf),
      m_ctx(context),
      m_types(std::move(types)),
      m_budget(budget),
      m_shape{work.strategy.schedule, int(work.strategy.pp), int(work.strategy.vpp), int(work.strategy.mbn)},
      m_chunks(work.strategy.vpp) {
    const std::int64_t layers = std::int64_t(work.model.layerKind.size());
    // With offload a stage's problem depends on the order of its layers too (which come
    // first): the byte keys, which carry it.
    // Each count in as many bits as the layers need, after seven for the stage (or role).
    m_bits = std::max(1, int(std::bit_width(std::uint64_t(layers))));
    m_packed = !typeOf && 7 + std::size_t(m_chunks) * m_types.size() * std::size_t(m_bits) <= 64 &&
               work.strategy.pp < 128 && work.strategy.visionBlocks.empty();
}

namespace {

std::uint64_t packed(std::int64_t tag, const std::int32_t* counts, std::size_t n, int bits) {
    std::uint64_t k = std::uint64_t(tag);
    for (std::size_t i = 0; i < n; ++i) k = (k << bits) | std::uint64_t(counts[i]);
    return k;
}

std::string key(std::int64_t tag, const std::int32_t* counts, std::size_t n) {
    std::string k(sizeof(std::int32_t) * (n + 1), '\0');
    const auto t = static_cast<std::int32_t>(tag);
    std::memcpy(k.data(), &t, sizeof t);
    std::memcpy(k.data() + sizeof t, counts, sizeof(std::int32_t) * n);
    return k;
}

}  // namespace

const StageSolver::Frame& StageSolver::frame(std::int64_t stage, const detail::StageRanges& ranges,
                                             const std::int32_t* typeCounts, std::int32_t offload, const std::string& order) {
    // A stage's body depends on its place only as first or last (the embedding, the
    // output layer, the last chunk's send) and on its layers only through their kinds;
    // with the vision tower split over stages (exec.vision_partition), each of the
    // tower's stages is a place of its own.
    const std::int64_t p = m_work.strategy.pp, textFrom = firstTextStage(m_work.strategy);
    std::int64_t role = (stage == textFrom ? 1 : 0) | (stage == p - 1 ? 2 : 0);
    if (textFrom > 0 && stage <= textFrom) role |= (stage + 1) << 2;
    const std::size_t n = std::size_t(m_chunks) * m_types.size();
    std::uint64_t pk = 0;
    std::string k;
    if (m_packed) {
        pk = packed(role, typeCounts, n, m_bits);
        if (const std::uint32_t i = m_frameByPack.find(pk); i != PackedIndex::kNone) return m_frames[i];
    } else {
        k = key(role, typeCounts, n) + order + static_cast<char>(offload & 0x7f) + static_cast<char>(offload >> 7);
        if (auto it = m_frameIndex.find(k); it != m_frameIndex.end()) return m_frames[it->second];
    }
    if (m_typeOf) m_work.strategy.activationOffload[std::size_t(stage)] = offload;
    const detail::StageBody b = detail::stageBody(m_ctx, stage, ranges);
    if (m_typeOf) m_work.strategy.activationOffload[std::size_t(stage)] = 0;
    Frame f;
    const StageMemory& mem = b.memory;
    f.fixed = mem.parameters + mem.gradients + mem.optimizerStates + mem.mainParameters + mem.buffers + mem.reserve;
    f.offloadCopy = b.offloadCopy, f.offloadBackWindow = b.offloadBackWindow;
    f.fsdpMoves = b.fsdpBackwardMoves, f.fsdpPieces = b.fsdpPieces, f.fsdpCover = b.fsdpBackwardCover;
    f.forward = b.time.forward;
    f.weightGrad = b.time.weightGrad;
    f.weightGradKept = b.weightGradKept;
    f.perMicroBatch = b.time.perMicroBatch();
    f.lastBackward = b.time.backward + b.time.weightGrad + b.time.recompute;
    f.embeddingKept = b.embeddingKept, f.outputKept = b.outputKept, f.workingRest = b.workingRest;
    f.reduceSeconds = b.reduceSeconds, f.reduceBuckets = b.reduceBuckets, f.gatherExposed = b.gatherExposed, f.optimizer = b.time.optimizer;
    if (m_packed) m_frameByPack.insert(pk, std::uint32_t(m_frames.size()));
    else m_frameIndex.emplace(k, m_frames.size());
    m_frames.push_back(f);
    return m_frames.back();
}

const StageChoice& StageSolver::solve(std::int64_t stage, const detail::StageRanges& ranges,
                                      const std::int32_t* typeCounts) {
    const std::size_t n = std::size_t(m_chunks) * m_types.size();
    std::uint64_t pk = 0;
    std::string k;
    if (m_packed) {
        pk = packed(stage, typeCounts, n, m_bits);
        if (const std::uint32_t i = m_choiceByPack.find(pk); i != PackedIndex::kNone) return m_choices[i];
    }
    std::string order;  // with offload: the types of chunk 0's layers in the order the stage runs them
    if (m_typeOf)
        for (std::int64_t l = ranges.start[0]; l < ranges.start[0] + ranges.count[0]; ++l)
            order += static_cast<char>((*m_typeOf)[std::size_t(l)]);
    if (!m_packed) {
        k = key(stage, typeCounts, n) + order;
        if (auto it = m_choiceIndex.find(k); it != m_choiceIndex.end()) return m_choices[it->second];
    }
    ++m_problems;
    thread_local std::vector<std::int32_t> chosen;
    StageChoice c = solveOnce(stage, ranges, typeCounts, order, chosen);
    c.countsAt = std::uint32_t(m_counts.size());
    m_counts.insert(m_counts.end(), chosen.begin(), chosen.end());
    c.self = std::uint32_t(m_choices.size());
    if (m_packed) m_choiceByPack.insert(pk, c.self);
    else m_choiceIndex.emplace(k, c.self);
    if (!m_fronts || m_typeOf || !c.fits) {
        m_choices.push_back(std::move(c));
        return m_choices.back();
    }
    // Its slower choices when first asked for (StageSolver::after).
    c.problem = std::uint32_t(m_problemsPending.size());
    Problem problem;
    problem.stage = stage, problem.frame = &frame(stage, ranges, typeCounts, 0, order);
    problem.typeCountsAt = std::uint32_t(m_typeCounts.size()), problem.fastest = c.self;
    m_problemsPending.push_back(std::move(problem));
    m_typeCounts.insert(m_typeCounts.end(), typeCounts, typeCounts + n);
    m_choices.push_back(std::move(c));
    return m_choices.back();
}

// The stage's fastest choice; with offload open, over every count of first layers
// offloaded (none first; more only while the stage still recomputes or does not fit,
// since offload never makes a stage faster than it is with nothing recomputed).
StageChoice StageSolver::solveOnce(std::int64_t stage, const detail::StageRanges& ranges, const std::int32_t* typeCounts,
                                   const std::string& order, std::vector<std::int32_t>& chosen) {
    const Frame& none = frame(stage, ranges, typeCounts, 0, order);
    StageChoice best = choose(stage, none, typeCounts, chosen);
    if (!m_typeOf) return best;
    const double plain = none.perMicroBatch;
    std::vector<std::int32_t> offloaded(m_types.size(), 0);
    for (std::int32_t k = 1; k <= std::int32_t(order.size()); ++k) {
        if (best.fits && best.perMicroBatch <= plain) break;  // nothing recomputed: offload cannot help
        ++offloaded[std::size_t(static_cast<unsigned char>(order[std::size_t(k - 1)]))];
        std::vector<std::int32_t> trial;
        StageChoice c = choose(stage, frame(stage, ranges, typeCounts, k, order), typeCounts, trial, offloaded.data());
        c.offload = k;
        // Nothing fits at any count yet: keep the lightest, which a plan that misses shows.
        const bool lighter = !best.fits && !c.fits && c.lightest < best.lightest;
        if (lighter || (c.fits && (!best.fits || c.perMicroBatch < best.perMicroBatch ||
                                   (c.perMicroBatch == best.perMicroBatch && c.peak < best.peak)))) {
            const Bytes lightest = std::min(best.lightest, c.lightest);
            best = c;
            best.lightest = lightest;
            chosen.swap(trial);
        } else {
            best.lightest = std::min(best.lightest, c.lightest);
        }
    }
    return best;
}

namespace {

// One (chunk, type) of the stage: its layers and the options open at a working level,
// a chain from the most kept (least recompute) to the least kept.
struct Entry {
    std::size_t slot = 0;  // chunk · types + type
    std::int32_t n = 0;
    double weight = 0;     // micro-batches in flight of its chunk
    std::size_t chain[kMaxTypeOptions];
    std::size_t length = 0;
};

}  // namespace

StageChoice StageSolver::choose(std::int64_t stage, const Frame& f, const std::int32_t* typeCounts,
                                std::vector<std::int32_t>& chosen, const std::int32_t* offloaded) const {
    const std::size_t T = m_types.size();
    const std::int64_t v = m_chunks;
    const RunSettings& run = m_work.run;
    // Scratch kept per thread: a search solves thousands of these a second.
    thread_local std::vector<Entry> entries;
    thread_local std::vector<double> levels;
    thread_local std::vector<std::int32_t> counts;
    entries.clear(), levels.clear();
    double floorLevel = 0;  // every kind present needs at least its lightest working set
    for (std::int64_t c = 0; c < v; ++c) {
        for (std::size_t t = 0; t < T; ++t) {
            const std::int32_t off = offloaded && c == 0 ? offloaded[t] : 0;
            if (off > 0) {  // offloaded layers run NONE: their working set is the floor
                for (const OptionCost& o : m_types[t].options)
                    if (o.cls == 0) floorLevel = std::max(floorLevel, o.working), levels.push_back(o.working);
            }
            const std::int32_t n = typeCounts[std::size_t(c) * T + t] - off;
            if (n == 0) continue;
            Entry e;
            e.slot = std::size_t(c) * T + t;
            e.n = n;
            e.weight = double(inFlightChunkForwards(m_shape, int(stage), int(c)));
            entries.push_back(e);
            double least = std::numeric_limits<double>::infinity();
            for (const OptionCost& o : m_types[t].options) levels.push_back(o.working), least = std::min(least, o.working);
            floorLevel = std::max(floorLevel, least);
        }
    }
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    // The largest entry last: its split between its two lightest options is solved in closed
    // form. Ties keep their order (an insertion sort: a stage has a few entries, and
    // stable_sort's buffer was a twentieth of a search's time).
    for (std::size_t i = 1; i < entries.size(); ++i)
        for (std::size_t j = i; j > 0 && entries[j].n < entries[j - 1].n; --j) std::swap(entries[j], entries[j - 1]);

    const double head = headKept(stage, f);
    StageChoice best;
    chosen.assign(std::size_t(v) * T * kMaxTypeOptions, 0);
    best.lightest = detail::kMaxCountedBytes;
    double bestX = std::numeric_limits<double>::infinity();
    double bestKept = std::numeric_limits<double>::infinity();
    counts.assign(chosen.size(), 0);
    if (entries.empty()) {  // no layer to choose for (all offloaded, at NONE): the frame alone
        best.peak = best.lightest = f.fixed + wholeBytes(head) + wholeBytes(floorLevel + f.workingRest);
        best.fits = best.peak <= m_budget;
        best.forward = f.forward, best.perMicroBatch = f.perMicroBatch, best.weightGrad = f.weightGrad;
        best.tail = detail::exposedReduce(run, f.reduceSeconds, f.reduceBuckets, f.lastBackward) + f.gatherExposed + f.optimizer;
        return best;
    }

    for (double level : levels) {
        if (level < floorLevel) continue;
        // The options of each entry at this level: working set within it, then the
        // (kept, recompute) chain.
        bool open = true;
        for (Entry& e : entries) {
            const std::vector<OptionCost>& opts = m_types[e.slot % T].options;
            std::size_t idx[kMaxTypeOptions], k = 0;
            for (std::size_t i = 0; i < opts.size() && i < kMaxTypeOptions; ++i)
                if (opts[i].working <= level) idx[k++] = i;
            // Least kept first; an option stays if it recomputes less than every lighter one.
            auto before = [&](std::size_t a, std::size_t b) {
                return opts[a].kept != opts[b].kept ? opts[a].kept < opts[b].kept : opts[a].recompute < opts[b].recompute;
            };
            for (std::size_t i = 1; i < k; ++i)  // insertion sort: at most five
                for (std::size_t j = i; j > 0 && before(idx[j], idx[j - 1]); --j) std::swap(idx[j], idx[j - 1]);
            e.length = 0;
            for (std::size_t i = 0; i < k; ++i)
                if (e.length == 0 || opts[idx[i]].recompute < opts[e.chain[e.length - 1]].recompute)
                    e.chain[e.length++] = idx[i];
            std::reverse(e.chain, e.chain + e.length);  // most kept (least recompute) first
            if (e.length == 0) open = false;
        }
        if (!open) continue;
        const Bytes working = wholeBytes(level + f.workingRest);
        const double cap = double(m_budget) - double(f.fixed) - double(working);
        // The lightest this level allows: every layer at its chain's last option.
        // Per entry, the least what it and the entries after it can keep (to cut the
        // enumeration where nothing below a branch fits).
        thread_local std::vector<double> leastFrom;
        leastFrom.assign(entries.size() + 1, 0);
        for (std::size_t i = entries.size(); i-- > 0;) {
            const Entry& e = entries[i];
            leastFrom[i] = leastFrom[i + 1] + e.weight * e.n * m_types[e.slot % T].options[e.chain[e.length - 1]].kept;
        }
        best.lightest = std::min(best.lightest, f.fixed + wholeBytes(head + leastFrom[0]) + working);
        if (head + leastFrom[0] > cap) continue;  // nothing fits at this level
        // Enumerate the options of every entry but the last, and of the last all but
        // its first two; between those two, the fewest on the second that fit.
        std::fill(counts.begin(), counts.end(), 0);
        const std::size_t last = entries.size() - 1;
        auto leaf = [&](double kept, double rec, std::int32_t rest) {
            const Entry& e = entries[last];
            const std::vector<OptionCost>& opts = m_types[e.slot % T].options;
            const OptionCost& a = opts[e.chain[0]];
            std::int32_t n1 = 0;
            double keptHere = kept + e.weight * rest * a.kept;
            if (keptHere > cap) {
                if (e.length < 2) return;
                const OptionCost& b = opts[e.chain[1]];
                const double need = (keptHere - cap) / (e.weight * (a.kept - b.kept));
                if (need > double(rest) + 1e-9) return;
                n1 = std::min(rest, std::int32_t(std::ceil(need - 1e-9)));
                keptHere = kept + e.weight * ((rest - n1) * a.kept + n1 * b.kept);
                if (keptHere > cap && n1 < rest) ++n1, keptHere = kept + e.weight * ((rest - n1) * a.kept + n1 * b.kept);
                if (keptHere > cap) return;
            }
            const double x = rec + (rest - n1) * a.recompute + (n1 > 0 ? n1 * opts[e.chain[1]].recompute : 0);
            if (x < bestX || (x == bestX && keptHere < bestKept)) {
                bestX = x, bestKept = keptHere;
                std::copy(counts.begin(), counts.end(), chosen.begin());
                chosen[e.slot * kMaxTypeOptions + e.chain[0]] += rest - n1;
                if (n1 > 0) chosen[e.slot * kMaxTypeOptions + e.chain[1]] += n1;
                best.peak = f.fixed + wholeBytes(keptHere) + working;
            }
        };
        auto walk = [&](auto& self, std::size_t entry, std::size_t pos, std::int32_t left, double kept, double rec) -> void {
            const Entry& e = entries[entry];
            const std::vector<OptionCost>& opts = m_types[e.slot % T].options;
            if (entry == last && pos >= e.length) return leaf(kept, rec, left);
            // Cut a branch that is already slower than the best choice in hand (recompute
            // only adds up), or in which even the lightest options left do not fit.
            if (rec > bestX) return;
            if (kept + e.weight * left * opts[e.chain[e.length - 1]].kept + leastFrom[entry + 1] > cap) return;
            std::int32_t& slot = counts[e.slot * kMaxTypeOptions + e.chain[pos]];
            const OptionCost& o = opts[e.chain[pos]];
            if (entry != last && pos + 1 == e.length) {  // the rest of this entry takes its last option
                slot = left;
                const std::size_t next = entry + 1;
                self(self, next, next == last ? 2 : 0, entries[next].n, kept + e.weight * left * o.kept,
                     rec + left * o.recompute);
                slot = 0;
                return;
            }
            for (std::int32_t c = 0; c <= left; ++c) {
                slot = c;
                self(self, entry, pos + 1, left - c, kept + e.weight * c * o.kept, rec + c * o.recompute);
            }
            slot = 0;
        };
        walk(walk, 0, last == 0 ? 2 : 0, entries[0].n, head, 0.0);
    }
    if (bestX == std::numeric_limits<double>::infinity()) return best;
    finish(f, bestX, best);
    return best;
}

double StageSolver::headKept(std::int64_t stage, const Frame& f) const {
    return double(inFlightChunkForwards(m_shape, int(stage), 0)) * f.embeddingKept +
           double(inFlightChunkForwards(m_shape, int(stage), int(m_chunks - 1))) * f.outputKept +
           double(waitingWeightGrads(m_shape, int(stage))) * f.weightGradKept;
}

void StageSolver::finish(const Frame& f, double rec, StageChoice& c) const {
    const RunSettings& run = m_work.run;
    c.fits = true;
    c.forward = f.forward;
    c.weightGrad = f.weightGrad;
    c.recompute = rec;
    // Recompute lengthens the backward an offloaded copy hides behind (stagebody.cpp).
    // and the one FSDP's overlapped gathers and reduce-scatters run under (stagebody.cpp).
    const double fsdp = f.fsdpMoves > 0 ? detail::exposedPipelined(f.fsdpMoves, f.fsdpPieces, f.fsdpCover) -
                                              detail::exposedPipelined(f.fsdpMoves, f.fsdpPieces, f.fsdpCover + rec)
                                        : 0.0;
    const double shorter = std::max(0.0, f.offloadCopy - f.offloadBackWindow) -
                           std::max(0.0, f.offloadCopy - f.offloadBackWindow - run.hostLinkOverlap * rec) + fsdp;
    c.perMicroBatch = f.perMicroBatch + rec - shorter;
    c.tail = detail::exposedReduce(run, f.reduceSeconds, f.reduceBuckets, f.lastBackward + rec - shorter) + f.gatherExposed + f.optimizer;
}

}  // namespace tessera::core::plan
