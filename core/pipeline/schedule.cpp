#include "pipeline/schedule.h"

#include "pipeline/closedform.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "spec/diagnostics.h"

namespace tessera::core {

namespace {

enum class Kind { Gpipe, OneFOneB, Interleaved };

struct Op {
    int microBatch;
    int chunk;
    Phase phase;
};

std::string str(int n) { return std::to_string(n); }

// "pipeline.stages: must be ...": the field, then what was expected and found.
[[noreturn]] void refuse(const std::string& text) {
    const auto colon = text.find(": ");
    Diagnostic d;  // (built field by field: GCC 12 at -O3 warns a braced temporary's Mark "may be uninitialized")
    d.path = text.substr(0, colon);
    d.message = text.substr(colon + 2);
    throw SpecError(std::move(d));
}

// Refuse rather than default: every message names the field and what was expected.
Kind validate(const PipelineInput& in) {
    Kind kind;
    if (in.schedule == "gpipe") kind = Kind::Gpipe;
    else if (in.schedule == "1f1b") kind = Kind::OneFOneB;
    else if (in.schedule == "interleaved") kind = Kind::Interleaved;
    else refuse("pipeline.schedule: expected gpipe, 1f1b or interleaved, got '" + in.schedule + "'");
    if (in.stages < 1) refuse("pipeline.stages: must be at least 1, got " + str(in.stages));
    if (in.chunks < 1) refuse("pipeline.chunks: must be at least 1, got " + str(in.chunks));
    if (in.microBatches < 1)
        refuse("pipeline.microBatches: must be at least 1, got " + str(in.microBatches));
    if (kind != Kind::Interleaved && in.chunks != 1)
        refuse("pipeline.chunks: only the interleaved schedule has virtual chunks; " + in.schedule +
                                    " needs 1, got " + str(in.chunks));
    // Megatron walks micro-batches in groups of p; a short last group stalls the
    // pipeline on dependencies, and Megatron refuses it too.
    if (kind == Kind::Interleaved && in.microBatches % in.stages != 0)
        refuse("pipeline.microBatches: the interleaved schedule needs a multiple of stages (" +
                                    str(in.stages) + "), got " + str(in.microBatches));
    if (in.times.size() != std::size_t(in.stages))
        refuse("pipeline.times: expected one row per stage (" + str(in.stages) + "), got " +
                                    str(int(in.times.size())));
    for (std::size_t s = 0; s < in.times.size(); ++s) {
        if (in.times[s].size() != std::size_t(in.chunks))
            refuse("pipeline.times[" + str(int(s)) + "]: expected one entry per chunk (" +
                                        str(in.chunks) + "), got " + str(int(in.times[s].size())));
        for (std::size_t c = 0; c < in.times[s].size(); ++c) {
            const StageTimes& t = in.times[s][c];
            for (double d : {t.forward, t.backward, t.weightGrad})
                if (!std::isfinite(d) || d < 0)
                    refuse("pipeline.times[" + str(int(s)) + "][" + str(int(c)) +
                                                "]: durations must be finite and non-negative");
        }
    }
    if (!std::isfinite(in.p2pSeconds) || in.p2pSeconds < 0)
        refuse("pipeline.p2pSeconds: must be finite and non-negative");
    return kind;
}

int warmup(Kind kind, const PipelineInput& in, int s) {
    const int p = in.stages, v = in.chunks, m = in.microBatches;
    switch (kind) {
    case Kind::Gpipe: return m;
    case Kind::OneFOneB: return std::min(p - s - 1, m);
    case Kind::Interleaved: return std::min(2 * (p - s - 1) + (v - 1) * p, m * v);
    }
    return 0;
}

// Megatron's schedule table with group size p: (micro-batch, chunk) of the k-th
// chunk-forward on any stage.
Op forwardOp(const PipelineInput& in, int k) {
    const int p = in.stages, v = in.chunks;
    const int group = k / (p * v), inGroup = k % (p * v);
    return {group * p + inGroup % p, inGroup / p, Phase::Forward};
}

std::vector<std::vector<Op>> stageOrders(Kind kind, const PipelineInput& in) {
    const int p = in.stages, v = in.chunks, m = in.microBatches;
    std::vector<std::vector<Op>> orders(p);
    for (int s = 0; s < p; ++s) {
        auto& order = orders[s];
        auto backward = [&](int mb, int c) {
            order.push_back({mb, c, Phase::Backward});
            if (in.times[s][c].weightGrad > 0) order.push_back({mb, c, Phase::WeightGrad});  // ZB-style: right behind
        };
        if (kind == Kind::Gpipe) {
            for (int mb = 0; mb < m; ++mb) order.push_back({mb, 0, Phase::Forward});
            for (int mb = m - 1; mb >= 0; --mb) backward(mb, 0);
            continue;
        }
        // 1f1b is the interleaved walk with v = 1 and a shorter warm-up.
        const int total = m * v, w = warmup(kind, in, s);
        auto backwardK = [&](int k) {
            const Op f = forwardOp(in, k);
            backward(f.microBatch, v - 1 - f.chunk);
        };
        for (int k = 0; k < w; ++k) order.push_back(forwardOp(in, k));
        for (int k = 0; k < total - w; ++k) {
            order.push_back(forwardOp(in, w + k));
            backwardK(k);
        }
        for (int k = total - w; k < total; ++k) backwardK(k);
    }
    return orders;
}

}  // namespace

PipelineResult simulatePipeline(const PipelineInput& in) {
    const Kind kind = validate(in);
    const int p = in.stages, v = in.chunks, m = in.microBatches;
    const auto orders = stageOrders(kind, in);

    // End times per (phase, stage, chunk, micro-batch); negative = not run yet.
    const std::size_t cells = std::size_t(p) * v * m;
    std::vector<double> ends(3 * cells, -1.0);
    auto endOf = [&](Phase ph, int s, int c, int mb) -> double& {
        return ends[std::size_t(ph) * cells + (std::size_t(s) * v + c) * m + mb];
    };
    const int positions = p * v;  // model order: position = chunk·p + stage

    // When the op's input is available on stage s, or < 0 if its producer has not run.
    auto ready = [&](int s, const Op& op) -> double {
        auto from = [&](Phase ph, int pos) {
            const int ds = pos % p, dc = pos / p;
            const double e = endOf(ph, ds, dc, op.microBatch);
            return e < 0 ? -1.0 : e + (ds != s ? in.p2pSeconds : 0.0);
        };
        const int pos = op.chunk * p + s;
        switch (op.phase) {
        case Phase::Forward: return pos == 0 ? 0.0 : from(Phase::Forward, pos - 1);
        case Phase::Backward: return pos == positions - 1 ? from(Phase::Forward, pos) : from(Phase::Backward, pos + 1);
        case Phase::WeightGrad: return from(Phase::Backward, pos);
        }
        return -1.0;
    };
    auto duration = [&](int s, const Op& op) {
        const StageTimes& t = in.times[s][op.chunk];
        return op.phase == Phase::Forward ? t.forward : op.phase == Phase::Backward ? t.backward : t.weightGrad;
    };

    // Each stage advances as far as its inputs allow; sweep until nothing moves.
    // Start times depend only on the data, not on the sweep order.
    std::vector<std::vector<PipelineEvent>> timeline(p);
    std::vector<std::size_t> next(p, 0);
    std::vector<double> freeAt(p, 0.0);
    for (bool moved = true; moved;) {
        moved = false;
        for (int s = 0; s < p; ++s) {
            while (next[s] < orders[s].size()) {
                const Op& op = orders[s][next[s]];
                const double inputAt = ready(s, op);
                if (inputAt < 0) break;
                const double start = std::max(freeAt[s], inputAt), end = start + duration(s, op);
                endOf(op.phase, s, op.chunk, op.microBatch) = end;
                timeline[s].push_back({s, op.microBatch, op.chunk, op.phase, start, end});
                freeAt[s] = end;
                ++next[s];
                moved = true;
            }
        }
    }
    for (int s = 0; s < p; ++s)
        if (next[s] < orders[s].size())  // a schedule-construction bug, not a user error
            throw std::logic_error("simulatePipeline: " + in.schedule + " deadlocked on stage " + str(s));

    PipelineResult r;
    r.busy.assign(p, 0.0);
    r.peakInFlight.assign(p, 0);
    r.peakInFlightPerChunk.assign(p, std::vector<int>(v, 0));
    double sumBusy = 0;
    for (int s = 0; s < p; ++s) {
        std::vector<int> held(v, 0);
        int total = 0;
        for (const PipelineEvent& e : timeline[s]) {
            r.busy[s] += e.end - e.start;
            r.makespan = std::max(r.makespan, e.end);
            // The stage is sequential, so counting in its order is counting in time.
            if (e.phase == Phase::Forward) {
                ++held[e.chunk];
                if (++total > r.peakInFlight[s]) {
                    r.peakInFlight[s] = total;
                    r.peakInFlightPerChunk[s] = held;
                }
            } else if (e.phase == Phase::Backward) {
                --held[e.chunk];
                --total;
            }
        }
        sumBusy += r.busy[s];
        r.events.insert(r.events.end(), timeline[s].begin(), timeline[s].end());
    }
    r.bubbleFraction = r.makespan > 0 ? 1.0 - sumBusy / (p * r.makespan) : 0.0;
    return r;
}

double closedFormMakespan(const PipelineInput& in) {
    const Kind kind = validate(in);
    const int p = in.stages;
    const double m = in.microBatches, v = in.chunks;
    // Per stage, summed over chunks: forward, input-gradient backward, weight gradient.
    std::vector<double> f(p, 0.0), b(p, 0.0), w(p, 0.0);
    for (int s = 0; s < p; ++s)
        for (const StageTimes& t : in.times[s]) {
            f[s] += t.forward;
            b[s] += t.backward;
            w[s] += t.weightGrad;
        }
    double sumF = 0, maxF = 0, sumFB = 0, maxFB = 0, maxFBW = 0;
    for (int s = 0; s < p; ++s) {
        sumF += f[s];
        maxF = std::max(maxF, f[s]);
        sumFB += f[s] + b[s];
        maxFB = std::max(maxFB, f[s] + b[s]);
        maxFBW = std::max(maxFBW, f[s] + b[s] + w[s]);
    }
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
        const PipelineShape shape{kind == Kind::Gpipe ? Schedule::GPipe : kind == Kind::OneFOneB ? Schedule::OneFOneB
                                                                                                : Schedule::Interleaved,
                                  p, in.chunks, in.microBatches};
        return pipelineMakespan(shape, sumFB, maxFB, sumF, maxF, sumB, maxB);
    }
    switch (kind) {
    case Kind::Gpipe:  // two flow shops of m identical jobs: exact for any stage times
        return sumF + (m - 1) * maxF + drain([&](int s) { return b[s] + w[s]; });
    case Kind::OneFOneB:  // exact when the last stage is the slowest, else an upper bound
        return sumF + drain([&](int s) { return f[s] + b[s] + w[s]; });
    case Kind::Interleaved: return m * maxFBW + (sumFB - maxFB) / v;
    }
    return 0;
}

// The in-flight counts are closedform.h's, the ones the cost model uses, so the
// simulation tests exactly what the search relies on.
std::vector<std::vector<int>> closedFormInFlightPerChunk(const PipelineInput& in) {
    const Kind kind = validate(in);
    const PipelineShape shape{kind == Kind::Gpipe ? Schedule::GPipe : kind == Kind::OneFOneB ? Schedule::OneFOneB
                                                                                            : Schedule::Interleaved,
                              in.stages, in.chunks, in.microBatches};
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
