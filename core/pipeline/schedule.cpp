#include "pipeline/schedule.h"

#include "pipeline/closedform.h"
#include "pipeline/orders.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "spec/diagnostics.h"

namespace tessera::core {

namespace {

using pipeline_detail::Kind;
using pipeline_detail::Layout;
using pipeline_detail::Op;
using pipeline_detail::Step;

std::string str(int n) { return std::to_string(n); }

// "pipeline.stages: must be ...": the field, then what was expected and found.
[[noreturn]] void refuse(const std::string& text) {
    const auto colon = text.find(": ");
    Diagnostic d;  // (built field by field: GCC 12 at -O3 warns a braced temporary's Mark "may be uninitialized")
    d.path = text.substr(0, colon);
    d.message = text.substr(colon + 2);
    throw SpecError(std::move(d));
}

// seqpipe and seqsmartvpp: the units the orders walk are sequence parts (closedform.h runsSequenceParts).
bool runsParts(Kind kind) { return kind == Kind::SeqPipe || kind == Kind::SeqSmartVpp; }

Kind kindOf(const std::string& name) {
    static constexpr Kind kinds[] = {Kind::Gpipe,     Kind::OneFOneB, Kind::Interleaved, Kind::ZbH1, Kind::Zbv, Kind::DualPipe,
                                     Kind::DualPipeV, Kind::SeqPipe,  Kind::VHalf,       Kind::VMin, Kind::ZbH2,
                                     Kind::SeqSmartVpp};
    static_assert(std::size(kinds) == std::size(kScheduleNames));
    for (std::size_t i = 0; i < std::size(kinds); ++i)
        if (name == kScheduleNames[i]) return kinds[i];
    std::string names;
    for (const char* n : kScheduleNames) names += (names.empty() ? "" : ", ") + std::string(n);
    refuse("pipeline.schedule: expected one of " + names + "; got '" + name + "'");
}

// Refuse rather than default: every message names the field and what was expected.
Kind validate(const PipelineInput& in) {
    const Kind kind = kindOf(in.schedule);
    const int p = in.stages, m = in.microBatches;
    if (p < 1) refuse("pipeline.stages: must be at least 1, got " + str(p));
    if (in.chunks < 1) refuse("pipeline.chunks: must be at least 1, got " + str(in.chunks));
    if (m < 1) refuse("pipeline.microBatches: must be at least 1, got " + str(m));
    if (!(in.pairComputeStretch >= 1) || !std::isfinite(in.pairComputeStretch))
        refuse("pipeline.pairComputeStretch: must be a finite number of at least 1");
    const Layout layout = pipeline_detail::layoutOf(kind);
    if (layout == Layout::Linear && in.chunks != 1)
        refuse("pipeline.chunks: only the interleaved, V and dual schedules have more than one chunk; " + in.schedule +
               " needs 1, got " + str(in.chunks));
    if ((layout == Layout::V || layout == Layout::Dual) && in.chunks != 2)
        refuse("pipeline.chunks: " + in.schedule + " runs two chunks per stage, got " + str(in.chunks));
    if (in.seqSplit < 1) refuse("pipeline.seqSplit: must be at least 1, got " + str(in.seqSplit));
    const bool seq = runsParts(kind);
    if (in.seqSplit > 1 && !seq)
        refuse("pipeline.seqSplit: only seqpipe and seqsmartvpp run a micro-batch in sequence parts; " + in.schedule +
               " needs 1, got " + str(in.seqSplit));
    if (seq && double(m) * in.seqSplit > 1 << 30)
        refuse("pipeline.seqSplit: at most 2^30 sequence parts per step are simulated, got " +
               std::to_string(double(m) * in.seqSplit));
    if (in.pairSteadyState && kind != Kind::OneFOneB && kind != Kind::Interleaved)
        refuse("pipeline.pairSteadyState: Megatron-LM's combined 1F1B pairs the steady state of 1f1b and interleaved "
               "only, got " + in.schedule);
    // Megatron walks micro-batches in groups of p; a short last group stalls the
    // pipeline on dependencies, and Megatron refuses it too.
    if ((kind == Kind::Interleaved || kind == Kind::SeqSmartVpp) && m % p != 0)
        refuse("pipeline.microBatches: the " + in.schedule + " schedule needs a multiple of stages (" + str(p) + "), got " +
               str(m));
    // Seq1F1B-I walks the interleaved table in groups of p parts, and each chunk's
    // backwards take a micro-batch's parts last first: a micro-batch whose parts
    // straddle two groups would need its last part's backward before the table has run
    // that part's forward (thunlp/Seq1F1B's queue would pop an earlier part instead).
    if (kind == Kind::SeqSmartVpp && p % in.seqSplit != 0)
        refuse("pipeline.seqSplit: seqsmartvpp walks the interleaved table in groups of the " + str(p) +
               " stages, and a micro-batch's parts must not straddle two groups: seq_split must divide them, got " +
               str(in.seqSplit));
    if (kind == Kind::SeqSmartVpp && in.chunks < 2)
        refuse("pipeline.chunks: seqsmartvpp interleaves chunks and needs at least 2 (with one it is seqpipe), got " +
               str(in.chunks));
    // DualPipe asserts an even rank count and num_chunks >= 2 * num_ranks (dualpipe.py step),
    // DualPipeV num_chunks >= 2 * num_ranks; ZB-V's steady state needs 2p - 1 (PyTorch pads to it).
    if (kind == Kind::DualPipe && p % 2 != 0)
        refuse("pipeline.stages: dualpipe needs an even number of stages, got " + str(p));
    if (kind == Kind::DualPipe && (m % 2 != 0 || m < 2 * p))
        refuse("pipeline.microBatches: dualpipe splits them over two directions and needs an even count of at least "
               "2 x stages (" + str(2 * p) + "), got " + str(m));
    if (kind == Kind::DualPipeV && m < 2 * p)
        refuse("pipeline.microBatches: dualpipev needs at least 2 x stages (" + str(2 * p) + "), got " + str(m));
    if (kind == Kind::Zbv && m < 2 * p - 1)
        refuse("pipeline.microBatches: zbv needs at least 2 x stages - 1 (" + str(2 * p - 1) + "), got " + str(m));
    if (in.times.size() != std::size_t(p))
        refuse("pipeline.times: expected one row per stage (" + str(p) + "), got " + str(int(in.times.size())));
    for (std::size_t s = 0; s < in.times.size(); ++s) {
        if (in.times[s].size() != std::size_t(in.chunks))
            refuse("pipeline.times[" + str(int(s)) + "]: expected one entry per chunk (" + str(in.chunks) + "), got " +
                   str(int(in.times[s].size())));
        for (std::size_t c = 0; c < in.times[s].size(); ++c) {
            const StageTimes& t = in.times[s][c];
            for (double d : {t.forward, t.backward, t.weightGrad, t.forwardComm, t.backwardComm})
                if (!std::isfinite(d) || d < 0)
                    refuse("pipeline.times[" + str(int(s)) + "][" + str(int(c)) +
                           "]: durations must be finite and non-negative");
        }
    }
    if (!std::isfinite(in.p2pSeconds) || in.p2pSeconds < 0) refuse("pipeline.p2pSeconds: must be finite and non-negative");
    for (const auto& [bytes, field] : {std::pair{&in.keptBytes, "keptBytes"}, std::pair{&in.weightGradBytes, "weightGradBytes"}})
        if (!bytes->empty() && (bytes->size() != std::size_t(p) ||
                                std::any_of(bytes->begin(), bytes->end(), [&](const auto& row) { return row.size() != std::size_t(in.chunks); })))
            refuse("pipeline." + std::string(field) + ": expected [stage][chunk] like pipeline.times");
    return kind;
}

// Where a (stage, chunk) slot sits on its micro-batch's path, and back.
struct Path {
    Layout layout;
    int p, v;
    int length() const { return layout == Layout::Interleaved ? p * v : layout == Layout::V ? 2 * p : p; }
    int position(int s, int c) const {
        switch (layout) {
        case Layout::Linear: return s;
        case Layout::Interleaved: return c * p + s;
        case Layout::V: return c == 0 ? s : 2 * p - 1 - s;
        case Layout::Dual: return c == 0 ? s : p - 1 - s;
        }
        return s;
    }
    std::pair<int, int> slot(int position, int chunkOfPath) const {  // (stage, chunk)
        switch (layout) {
        case Layout::Linear: return {position, 0};
        case Layout::Interleaved: return {position % p, position / p};
        case Layout::V: return position < p ? std::pair{position, 0} : std::pair{2 * p - 1 - position, 1};
        case Layout::Dual: return chunkOfPath == 0 ? std::pair{position, 0} : std::pair{p - 1 - position, 1};
        }
        return {position, 0};
    }
};

Schedule scheduleOf(Kind kind) {
    switch (kind) {
    case Kind::Gpipe: return Schedule::GPipe;
    case Kind::OneFOneB: return Schedule::OneFOneB;
    case Kind::Interleaved: return Schedule::Interleaved;
    case Kind::ZbH1: return Schedule::ZbH1;
    case Kind::Zbv: return Schedule::Zbv;
    case Kind::DualPipe: return Schedule::DualPipe;
    case Kind::DualPipeV: return Schedule::DualPipeV;
    case Kind::SeqPipe: return Schedule::SeqPipe;
    case Kind::VHalf: return Schedule::VHalf;
    case Kind::VMin: return Schedule::VMin;
    case Kind::ZbH2: return Schedule::ZbH2;
    case Kind::SeqSmartVpp: return Schedule::SeqSmartVpp;
    }
    return Schedule::OneFOneB;
}

// ZB-H2 priced without its events (keepEvents false: a search's candidate). Its order is
// one tick at a time (orders.cpp): F_x, B_{x-2(p-1-s)}, W_{x-2(p-1)} on stage s, and every
// input comes from an earlier tick or, for a forward, from the stage before in the same
// tick, so walking ticks and then stages in order starts each op exactly where the
// general walk below starts it, in a few nanoseconds an op rather than tens (the search
// prices tens of thousands of them; tst_schedules holds the two walks equal).
PipelineResult priceZbH2(const PipelineInput& in) {
    const int p = in.stages, m = in.microBatches;
    thread_local std::vector<double> endF, endB;
    endF.assign(std::size_t(p) * m, 0.0), endB.assign(std::size_t(p) * m, 0.0);
    auto at = [m](int s, int k) { return std::size_t(s) * std::size_t(m) + std::size_t(k); };
    PipelineResult r;
    r.busy.assign(std::size_t(p), 0.0), r.span.assign(std::size_t(p), 0.0), r.pairStretchSeconds.assign(std::size_t(p), 0.0);
    r.peakInFlight.assign(std::size_t(p), 0), r.peakWaitingWeightGrads.assign(std::size_t(p), 0);
    const bool bytes = !in.keptBytes.empty();
    if (bytes) r.peakBytes.assign(std::size_t(p), 0.0);
    std::vector<double> freeAt(std::size_t(p), 0.0), first(std::size_t(p), -1.0);
    std::vector<int> held(std::size_t(p), 0), waiting(std::size_t(p), 0);
    std::vector<double> heldBytes(std::size_t(p), 0.0), waitingBytes(std::size_t(p), 0.0);  // summed as the general walk sums them
    for (int x = 0; x < m + 2 * (p - 1); ++x)
        for (int s = 0; s < p; ++s) {
            const StageTimes& t = in.times[std::size_t(s)][0];
            const double kept = bytes ? in.keptBytes[std::size_t(s)][0] : 0.0;
            const double stash = bytes && !in.weightGradBytes.empty() ? in.weightGradBytes[std::size_t(s)][0] : 0.0;
            auto run = [&](double ready, double length) {
                const double start = std::max(freeAt[std::size_t(s)], ready);
                if (first[std::size_t(s)] < 0) first[std::size_t(s)] = start;
                const double end = start + length;
                r.busy[std::size_t(s)] += end - start;
                return freeAt[std::size_t(s)] = end;
            };
            auto note = [&] {
                r.peakInFlight[std::size_t(s)] = std::max(r.peakInFlight[std::size_t(s)], held[std::size_t(s)]);
                r.peakWaitingWeightGrads[std::size_t(s)] = std::max(r.peakWaitingWeightGrads[std::size_t(s)], waiting[std::size_t(s)]);
                if (bytes)
                    r.peakBytes[std::size_t(s)] = std::max(r.peakBytes[std::size_t(s)], heldBytes[std::size_t(s)] + waitingBytes[std::size_t(s)]);
            };
            if (x < m) {
                endF[at(s, x)] = run(s == 0 ? 0.0 : endF[at(s - 1, x)] + in.p2pSeconds, t.forward);
                ++held[std::size_t(s)], heldBytes[std::size_t(s)] += kept, note();
            }
            if (const int b = x - 2 * (p - 1 - s); b >= 0 && b < m) {
                endB[at(s, b)] = run(s == p - 1 ? endF[at(s, b)] : endB[at(s + 1, b)] + in.p2pSeconds, t.backward);
                --held[std::size_t(s)], heldBytes[std::size_t(s)] -= kept;
                ++waiting[std::size_t(s)], waitingBytes[std::size_t(s)] += stash, note();
            }
            if (const int w = x - 2 * (p - 1); w >= 0 && w < m) {
                run(endB[at(s, w)], t.weightGrad);
                --waiting[std::size_t(s)], waitingBytes[std::size_t(s)] -= stash, note();
            }
        }
    double sumBusy = 0;
    for (int s = 0; s < p; ++s) {
        r.makespan = std::max(r.makespan, freeAt[std::size_t(s)]);
        r.span[std::size_t(s)] = freeAt[std::size_t(s)] - first[std::size_t(s)];
        r.longestSpan = std::max(r.longestSpan, r.span[std::size_t(s)]);
        sumBusy += r.busy[std::size_t(s)];
    }
    r.peakInFlightPerChunk.resize(std::size_t(p));
    for (int s = 0; s < p; ++s) r.peakInFlightPerChunk[std::size_t(s)] = {r.peakInFlight[std::size_t(s)]};
    r.memory.resize(std::size_t(p));
    r.bubbleFraction = r.makespan > 0 ? 1.0 - sumBusy / (p * r.makespan) : 0.0;
    if (endF.capacity() > (std::size_t{1} << 20)) std::vector<double>().swap(endF), std::vector<double>().swap(endB);
    return r;
}

}  // namespace

// What a thread keeps of its simulation buffers between calls (schedule.cpp): room for
// GPT-3 175B at pp 64 under zbv with 1,536 micro-batches (589,824 events) and more.
constexpr std::size_t kKeptEnds = std::size_t{1} << 20;    // 8 MiB of end times
constexpr std::size_t kKeptEvents = std::size_t{1} << 20;  // events in the timeline

PipelineResult simulatePipeline(const PipelineInput& in) {
    const Kind kind = validate(in);
    const bool seq = runsParts(kind);
    if (!seq && simulatedEvents(in.stages, in.chunks, in.microBatches) > kMaxPricedEvents)
        refuse("pipeline.microBatches: at most " + std::to_string(kMaxPricedEvents) + " events (3 a micro-batch, chunk and " +
               "stage) are simulated, got " + std::to_string(simulatedEvents(in.stages, in.chunks, in.microBatches)));
    if (kind == Kind::ZbH2 && !in.keepEvents) return priceZbH2(in);
    // Under seqpipe and seqsmartvpp the units the orders walk are sequence parts, n per micro-batch.
    const int n = seq ? in.seqSplit : 1;
    const int p = in.stages, v = in.chunks, m = in.microBatches * n;
    const auto shared = pipeline_detail::stageOrders(kind, in);
    const pipeline_detail::StageOrders& orders = *shared;
    const Path path{pipeline_detail::layoutOf(kind), p, v};

    // End times per (phase, stage, chunk, micro-batch); negative = not run yet.
    const std::size_t cells = std::size_t(p) * v * m;
    // Kept between calls on this thread: a search simulates thousands of schedules, and
    // fresh buffers of a long pipeline cost more in page faults than the walk itself.
    thread_local std::vector<double> ends;
    ends.assign(3 * cells, -1.0);
    auto endOf = [&](Phase ph, int s, int c, int mb) -> double& {
        return ends[std::size_t(ph) * cells + (std::size_t(s) * v + c) * m + mb];
    };
    const int last = path.length() - 1;

    // When the op's input is available on stage s, or < 0 if its producer has not run.
    auto ready = [&](int s, const Op& op) -> double {
        auto from = [&](Phase ph, int pos) {
            const auto [ds, dc] = path.slot(pos, op.chunk);
            const double e = endOf(ph, ds, dc, op.microBatch);
            return e < 0 ? -1.0 : e + (ds != s ? in.p2pSeconds : 0.0);
        };
        const int pos = path.position(s, op.chunk);
        switch (op.phase) {
        case Phase::Forward: return pos == 0 ? 0.0 : from(Phase::Forward, pos - 1);
        case Phase::Backward: return pos == last ? from(Phase::Forward, pos) : from(Phase::Backward, pos + 1);
        case Phase::WeightGrad: return from(Phase::Backward, pos);
        }
        return -1.0;
    };
    auto duration = [&](int s, const Op& op) {
        const StageTimes& t = in.times[std::size_t(s)][std::size_t(op.chunk)];
        switch (op.phase) {
        case Phase::Forward: return t.forward;
        case Phase::Backward: return t.backward + (op.withWeightGrad ? t.weightGrad : 0.0);
        case Phase::WeightGrad: return t.weightGrad;
        }
        return 0.0;
    };
    // F&B: each half's communication hides behind the other half's compute (closedform.h).
    auto pairDuration = [&](int s, const Op& f, const Op& b) {
        const StageTimes& tf = in.times[std::size_t(s)][std::size_t(f.chunk)];
        const StageTimes& tb = in.times[std::size_t(s)][std::size_t(b.chunk)];
        return pairSeconds(tf.forward, tf.forwardComm, duration(s, b), tb.backwardComm, in.pairComputeStretch);
    };

    // Each stage advances as far as its inputs allow; sweep until nothing moves.
    // Start times depend only on the data, not on the sweep order.
    thread_local std::vector<std::vector<PipelineEvent>> timeline;
    timeline.resize(std::size_t(p));
    for (int s = 0; s < p; ++s) timeline[std::size_t(s)].clear();
    std::vector<std::size_t> next(std::size_t(p), 0);
    std::vector<double> freeAt(std::size_t(p), 0.0);
    std::vector<double> stretchAdded(std::size_t(p), 0.0);
    for (bool moved = true; moved;) {
        moved = false;
        for (int s = 0; s < p; ++s) {
            const auto& order = orders[std::size_t(s)];
            while (next[std::size_t(s)] < order.size()) {
                const Step& step = order[next[std::size_t(s)]];
                double inputAt = ready(s, step.op);
                if (step.paired) inputAt = std::min(inputAt, ready(s, step.with)) < 0 ? -1.0 : std::max(inputAt, ready(s, step.with));
                if (inputAt < 0) break;
                const double start = std::max(freeAt[std::size_t(s)], inputAt);
                const double end = start + (step.paired ? pairDuration(s, step.op, step.with) : duration(s, step.op));
                if (step.paired && in.pairComputeStretch > 1) {
                    const StageTimes& tf = in.times[std::size_t(s)][std::size_t(step.op.chunk)];
                    const StageTimes& tb = in.times[std::size_t(s)][std::size_t(step.with.chunk)];
                    stretchAdded[std::size_t(s)] += (end - start) - pairSeconds(tf.forward, tf.forwardComm,
                                                                                duration(s, step.with), tb.backwardComm);
                }
                // What each box's communication does: exposed inside the box, or hidden
                // under its own compute, or under the other half of its pair.
                auto comm = [&](const Op& op) -> std::pair<double, double> {
                    const StageTimes& t = in.times[std::size_t(s)][std::size_t(op.chunk)];
                    if (op.phase == Phase::WeightGrad) return {0.0, 0.0};
                    const bool forward = op.phase == Phase::Forward;
                    const double own = std::min(forward ? t.forwardComm : t.backwardComm, duration(s, op));
                    const double hiddenOwn = forward ? t.forwardHidden : t.backwardHidden;
                    const double unpaired = forward ? t.forwardUnpaired : t.backwardUnpaired;
                    if (!step.paired) return {own + unpaired, hiddenOwn};
                    const Op& other = &op == &step.op ? step.with : step.op;
                    const StageTimes& to = in.times[std::size_t(s)][std::size_t(other.chunk)];
                    const double otherCompute = duration(s, other) - std::min(other.phase == Phase::Forward ? to.forwardComm
                                                                                                             : to.backwardComm,
                                                                              duration(s, other));
                    const double underPair = std::min(own, otherCompute);
                    return {own - underPair + unpaired, hiddenOwn + underPair};
                };
                for (const Op* op : {&step.op, &step.with}) {
                    if (op == &step.with && !step.paired) break;
                    endOf(op->phase, s, op->chunk, op->microBatch) = end;
                    if (op->withWeightGrad) endOf(Phase::WeightGrad, s, op->chunk, op->microBatch) = end;
                    // DualPipe's directions carry different micro-batches: the second
                    // direction's are numbered after the first's.
                    const int shown = path.layout == Layout::Dual && op->chunk == 1 ? m / 2 + op->microBatch : op->microBatch;
                    const auto [exposed, hidden] = comm(*op);
                    timeline[std::size_t(s)].push_back({s, shown / n, op->chunk, op->phase, start, end, op->withWeightGrad,
                                                        step.paired, shown % n, exposed, hidden});
                }
                freeAt[std::size_t(s)] = end;
                ++next[std::size_t(s)];
                moved = true;
            }
        }
    }
    for (int s = 0; s < p; ++s)
        if (next[std::size_t(s)] < orders[std::size_t(s)].size())  // a schedule-construction bug, not a user error
            throw std::logic_error("simulatePipeline: " + in.schedule + " deadlocked on stage " + str(s));

    PipelineResult r;
    r.busy.assign(std::size_t(p), 0.0);
    r.span.assign(std::size_t(p), 0.0);
    r.pairStretchSeconds = stretchAdded;
    r.peakInFlight.assign(std::size_t(p), 0);
    r.peakInFlightPerChunk.assign(std::size_t(p), std::vector<int>(std::size_t(v), 0));
    r.peakWaitingWeightGrads.assign(std::size_t(p), 0);
    r.memory.resize(std::size_t(p));
    const bool bytes = !in.keptBytes.empty();
    if (bytes) r.peakBytes.assign(std::size_t(p), 0.0);
    double sumBusy = 0;
    for (int s = 0; s < p; ++s) {
        std::vector<int> held(std::size_t(v), 0);
        int total = 0, waiting = 0;
        double heldBytes = 0, waitingBytes = 0;
        auto kept = [&](int c) { return bytes ? in.keptBytes[std::size_t(s)][std::size_t(c)] : 0.0; };
        auto stash = [&](int c) { return bytes && !in.weightGradBytes.empty() ? in.weightGradBytes[std::size_t(s)][std::size_t(c)] : 0.0; };
        auto& points = r.memory[std::size_t(s)];
        auto note = [&](double t) {
            if (in.keepEvents) points.push_back({t, total, waiting});
            if (bytes) r.peakBytes[std::size_t(s)] = std::max(r.peakBytes[std::size_t(s)], heldBytes + waitingBytes);
        };
        // The stage is sequential, so walking its events in order is walking time: a
        // forward holds from its start, a backward releases at its end (a split one
        // leaves its weight gradient's inputs waiting), a weight gradient releases those.
        for (std::size_t i = 0; i < timeline[std::size_t(s)].size(); ++i) {
            const PipelineEvent& e = timeline[std::size_t(s)][i];
            if (!(e.paired && e.phase != Phase::Forward)) r.busy[std::size_t(s)] += e.end - e.start;
            r.makespan = std::max(r.makespan, e.end);
            if (e.phase == Phase::Forward) {
                ++held[std::size_t(e.chunk)], heldBytes += kept(e.chunk);
                if (++total > r.peakInFlight[std::size_t(s)]) {
                    r.peakInFlight[std::size_t(s)] = total;
                    r.peakInFlightPerChunk[std::size_t(s)] = held;
                }
                note(e.start);
            } else if (e.phase == Phase::Backward) {
                --held[std::size_t(e.chunk)], --total, heldBytes -= kept(e.chunk);
                if (!e.withWeightGrad) {  // split: its weight gradient waits (for a W box, maybe of no length)
                    ++waiting, waitingBytes += stash(e.chunk);
                    r.peakWaitingWeightGrads[std::size_t(s)] = std::max(r.peakWaitingWeightGrads[std::size_t(s)], waiting);
                }
                note(e.end);
            } else {
                if (waiting > 0) --waiting, waitingBytes -= stash(e.chunk);
                note(e.end);
            }
        }
        sumBusy += r.busy[std::size_t(s)];
        if (const auto& t = timeline[std::size_t(s)]; !t.empty()) {
            r.span[std::size_t(s)] = t.back().end - t.front().start;
            r.longestSpan = std::max(r.longestSpan, r.span[std::size_t(s)]);
        }
        if (in.keepEvents) r.events.insert(r.events.end(), timeline[std::size_t(s)].begin(), timeline[std::size_t(s)].end());
    }
    r.bubbleFraction = r.makespan > 0 ? 1.0 - sumBusy / (p * r.makespan) : 0.0;
    // The reused buffers keep a search's usual sizes, not the largest this thread ever
    // simulated: after a call far above them (up to kMaxPricedEvents events, hundreds of
    // MB) they are given back rather than held until the thread exits.
    if (ends.capacity() > kKeptEnds) std::vector<double>().swap(ends);
    std::size_t held = 0;
    for (const auto& t : timeline) held += t.capacity();
    if (held > kKeptEvents) std::vector<std::vector<PipelineEvent>>().swap(timeline);
    return r;
}

double closedFormMakespan(const PipelineInput& in) {
    const Kind kind = validate(in);
    // The forms time a pair with all of the SMs; a stretched one is the simulation's only.
    if (in.pairComputeStretch != 1)
        refuse("pipeline.pairComputeStretch: no closed form prices pairs on a share of the SMs; simulate it");
    const int p = in.stages;
    // seqpipe and seqsmartvpp: 1F1B and interleaved over m·n parts, with per-part times.
    const bool seq = runsParts(kind);
    const double m = double(in.microBatches) * (seq ? in.seqSplit : 1), v = in.chunks;
    const Schedule over = kind == Kind::SeqPipe ? Schedule::OneFOneB : kind == Kind::SeqSmartVpp ? Schedule::Interleaved : scheduleOf(kind);
    const PipelineShape shape{over, p, in.chunks, int(m)};
    // Per stage, summed over chunks: forward, input-gradient backward, weight gradient.
    std::vector<double> f(p, 0.0), b(p, 0.0), w(p, 0.0);
    for (int s = 0; s < p; ++s)
        for (const StageTimes& t : in.times[s]) {
            f[s] += t.forward;
            b[s] += t.backward;
            w[s] += t.weightGrad;
        }
    double sumF = 0, maxF = 0, sumFB = 0, maxFB = 0, maxFBW = 0, maxY = 0, minFill = -1;
    for (int s = 0; s < p; ++s) {
        sumF += f[s];
        maxF = std::max(maxF, f[s]);
        sumFB += f[s] + b[s];
        maxFB = std::max(maxFB, f[s] + b[s]);
        maxFBW = std::max(maxFBW, f[s] + b[s] + w[s]);
        maxY = std::max({maxY, f[s] + b[s] - std::min(b[s], w[s]), b[s]});
        minFill = minFill < 0 ? std::min(b[s], w[s]) : std::min(minFill, std::min(b[s], w[s]));
    }
    if (kind == Kind::ZbH1) return pipelineMakespanZbH1(shape, {maxFBW, maxY, maxFB, minFill});
    // ZB-H2: the longest stage's span, not the last event's end (closedform.h); the form
    // holds for equal stages once m >= 2p - 1, where the parallelogram has formed.
    if (kind == Kind::ZbH2) {
        if (m < 2 * p - 1) return simulatePipeline(in).longestSpan;
        double fill = 0;
        for (int s = 0; s < p; ++s) fill = std::max(fill, f[s] + b[s] - 2 * w[s]);
        return m * maxFBW + (p - 1) * fill;
    }
    if (kind == Kind::DualPipe || kind == Kind::DualPipeV) {
        std::vector<SplitStage> devices(static_cast<std::size_t>(p));
        for (int s = 0; s < p; ++s)
            for (const StageTimes& t : in.times[std::size_t(s)]) {
                SplitStage& d = devices[std::size_t(s)];
                d.f += t.forward / 2, d.b += t.backward / 2, d.w += t.weightGrad / 2;
                d.fComm += t.forwardComm / 2, d.bComm += t.backwardComm / 2;
            }
        return pipelineMakespanDual(shape, devices.data(), p);
    }
    if (layoutOf(kind) == Layout::V) return simulatePipeline(in).makespan;  // no closed form (schedule.h)
    // The drain, as a longest path: the first micro-batch's gradient comes down to
    // the slowest stage b, which then works through the other m-1 (each costing its
    // whole per-micro-batch time `load`), and the last one's gradient comes down to
    // some stage e <= b, which ends with its weight gradient. Only the input
    // gradient travels, so a split weight gradient is on the path m-1 times plus
    // once at the end, not once per hop. Without a split, e = 0 wins and these are
    // the published forms in the header.
    auto drain = [&](auto load) {
        double best = 0, tailB = 0, maxLoad = 0;
        for (int e = p - 1; e >= 0; --e) {
            tailB += b[e];
            maxLoad = std::max(maxLoad, load(e));
            best = std::max(best, tailB + w[e] + (m - 1) * maxLoad);
        }
        return best;
    };
    double sumW = 0;
    for (double x : w) sumW += x;
    if (sumW == 0) {  // no split weight gradient: exactly the cost model's form (closedform.h)
        double sumB = 0, maxB = 0;
        for (double x : b) sumB += x, maxB = std::max(maxB, x);
        return pipelineMakespan(shape, sumFB, maxFB, sumF, maxF, sumB, maxB);
    }
    switch (kind) {
    case Kind::Gpipe:  // two flow shops of m identical jobs: exact for any stage times
        return sumF + (m - 1) * maxF + drain([&](int s) { return b[s] + w[s]; });
    case Kind::SeqPipe:
    case Kind::OneFOneB:  // exact when the last stage is the slowest, else an upper bound
        return sumF + drain([&](int s) { return f[s] + b[s] + w[s]; });
    case Kind::Interleaved:
    case Kind::SeqSmartVpp: return m * maxFBW + (sumFB - maxFB) / v;
    default: return 0;  // (handled above)
    }
}

// The in-flight counts are closedform.h's, the ones the cost model uses, so the
// simulation tests exactly what the search relies on.
std::vector<std::vector<int>> closedFormInFlightPerChunk(const PipelineInput& in) {
    const Kind kind = validate(in);
    const PipelineShape shape{scheduleOf(kind), in.stages, in.chunks, in.microBatches, in.seqSplit};
    std::vector<std::vector<int>> perChunk(in.stages, std::vector<int>(in.chunks, 0));
    for (int s = 0; s < in.stages; ++s)
        for (int c = 0; c < in.chunks; ++c) perChunk[s][c] = int(inFlightChunkForwards(shape, s, c));
    return perChunk;
}

std::vector<int> closedFormInFlight(const PipelineInput& in) {
    std::vector<int> held;
    for (const std::vector<int>& chunks : closedFormInFlightPerChunk(in)) {
        int sum = 0;
        for (int n : chunks) sum += n;
        held.push_back(sum);
    }
    return held;
}

}  // namespace tessera::core
