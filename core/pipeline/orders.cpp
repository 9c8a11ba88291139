#include "pipeline/orders.h"

#include <algorithm>
#include <deque>

namespace tessera::core::pipeline_detail {

Layout layoutOf(Kind kind) {
    switch (kind) {
    case Kind::Interleaved:
    case Kind::SeqSmartVpp: return Layout::Interleaved;
    case Kind::Zbv:
    case Kind::VHalf:
    case Kind::VMin:
    case Kind::DualPipeV: return Layout::V;
    case Kind::DualPipe: return Layout::Dual;
    default: return Layout::Linear;
    }
}

namespace {

// One stage's order as it is built: forwards and backwards of each chunk walk the
// micro-batches in order; deferred weight gradients wait in a queue, oldest first
// (DualPipe's WeightGradStore, the ZB schedules' W).
struct Builder {
    const PipelineInput& in;
    int stage;
    std::vector<Step>& out;
    std::vector<int> nextF, nextB;
    std::deque<Op> waiting;

    Builder(const PipelineInput& input, int s, std::vector<Step>& order)
        : in(input), stage(s), out(order), nextF(std::size_t(input.chunks), 0), nextB(std::size_t(input.chunks), 0) {}

    Op forwardOp(int chunk) { return {nextF[std::size_t(chunk)]++, chunk, Phase::Forward, false}; }
    // split: the weight gradient waits for a W turn; else it runs inside the backward.
    Op backwardOp(int chunk, bool split) {
        const Op op{nextB[std::size_t(chunk)]++, chunk, Phase::Backward, !split};
        if (split) waiting.push_back({op.microBatch, chunk, Phase::WeightGrad, false});
        return op;
    }
    void forward(int chunk) { out.push_back({forwardOp(chunk), {}, false}); }
    void backward(int chunk, bool split) { out.push_back({backwardOp(chunk, split), {}, false}); }
    void pair(int forwardChunk, int backwardChunk) {
        const Op f = forwardOp(forwardChunk);
        out.push_back({f, backwardOp(backwardChunk, false), true});
    }
    void weight() {
        out.push_back({waiting.front(), {}, false});
        waiting.pop_front();
    }
};

// gpipe, 1f1b and interleaved, as Megatron-LM issues them; a split weight gradient
// runs right behind its input gradient. seqsmartvpp (Seq1F1B-I) is the interleaved
// table over the m·n sequence parts: n - 1 more warm-up parts, and each chunk's
// backwards take a micro-batch's parts last first (thunlp/Seq1F1B's sp_queue).
void megatronOrder(Kind kind, const PipelineInput& in, int s, std::vector<Step>& order) {
    const bool seq = kind == Kind::SeqSmartVpp;
    const int p = in.stages, v = in.chunks, n = seq ? in.seqSplit : 1, m = in.microBatches * n;
    auto backward = [&](int unit, int c) {
        const int mb = unit / n * n + (n - 1 - unit % n);  // the unit itself when n = 1
        const bool split = in.times[std::size_t(s)][std::size_t(c)].weightGrad > 0;
        order.push_back({{mb, c, Phase::Backward, !split}, {}, false});
        if (split) order.push_back({{mb, c, Phase::WeightGrad, false}, {}, false});
    };
    if (kind == Kind::Gpipe) {
        for (int mb = 0; mb < m; ++mb) order.push_back({{mb, 0, Phase::Forward, false}, {}, false});
        for (int mb = m - 1; mb >= 0; --mb) backward(mb, 0);
        return;
    }
    // Megatron's schedule table with group size p: the k-th chunk-forward's (micro-batch, chunk).
    auto forwardAt = [&](int k) {
        const int group = k / (p * v), inGroup = k % (p * v);
        return Op{group * p + inGroup % p, inGroup / p, Phase::Forward, false};
    };
    const int total = m * v;
    // Interleaved with as many micro-batches as stages runs all forwards first
    // (Megatron-LM's all_warmup_microbatches; Seq1F1B-I tests the micro-batches, not parts).
    const bool allWarm = kind != Kind::OneFOneB && in.microBatches == p;
    const int w = kind == Kind::OneFOneB ? std::min(p - s - 1, m)
                  : allWarm              ? total
                                         : std::min(2 * (p - s - 1) + (v - 1) * p + n - 1, total);
    auto backwardAt = [&](int k) {
        const Op f = forwardAt(k);
        backward(f.microBatch, v - 1 - f.chunk);
    };
    // Combined 1F1B runs one chunk-forward more before its first pair ("micro-batch 0's
    // forward alone, then its backward beside micro-batch 1's forward"): the pair's
    // forward is then never the one its backward waits for, and the pairs do not wait
    // on each other's round trips (without it the pipeline runs slower than unpaired).
    const int warm = in.pairSteadyState ? std::min(total, w + 1) : w;
    for (int k = 0; k < warm; ++k) order.push_back({forwardAt(k), {}, false});
    if (in.pairSteadyState) {  // F(next) beside B(oldest), whole backwards
        int f = warm, b = 0;
        while (b < total) {
            const Op back{forwardAt(b).microBatch, v - 1 - forwardAt(b).chunk, Phase::Backward, true};
            if (f < total && forwardAt(f).microBatch == back.microBatch) {
                order.push_back({forwardAt(f++), {}, false});  // that backward needs this forward
            } else if (f < total) {
                order.push_back({forwardAt(f++), back, true}), ++b;
            } else {
                order.push_back({back, {}, false}), ++b;
            }
        }
        return;
    }
    for (int k = 0; k < total - w; ++k) {
        order.push_back({forwardAt(w + k), {}, false});
        backwardAt(k);
    }
    for (int k = total - w; k < total; ++k) backwardAt(k);
}

// ZB-H1 (Qi et al. 2023 §3.1, Figure 3 top): 1F1B's warm-up (p - s - 1 forwards, so
// no more in flight than 1F1B) and 1F1B's forwards and input gradients, with stage s
// holding back its first s weight gradients: the later a stage, the more input
// gradients it passes upstream before it stops for a weight gradient, so the drain
// is waiting on input gradients alone and the held-back weight gradients fill it.
// Equal stages then idle (p - 1)(F + B - W) (B the input gradient, W <= B; the
// paper's table), against (p - 1)(F + B + W) for 1F1B with the backward whole.
void zeroBubbleH1Order(const PipelineInput& in, int s, std::vector<Step>& order) {
    const int p = in.stages, m = in.microBatches;
    Builder b(in, s, order);
    const int w = std::min(p - s - 1, m);
    for (int k = 0; k < w; ++k) b.forward(0);
    for (int k = 0; k < m - w; ++k) {
        b.forward(0);
        b.backward(0, true);
        if (int(b.waiting.size()) > s) b.weight();
    }
    for (int k = m - w; k < m; ++k) {
        b.backward(0, true);
        if (int(b.waiting.size()) > std::max(0, s - (k - (m - w)) - 1)) b.weight();
    }
    while (!b.waiting.empty()) b.weight();
}

// ZB-H2 (Qi et al. 2023 §3.1, Figure 3 bottom; the zero-bubble fork's ZB2P with
// --zero-bubble-max-pending-backward 2p): more warm-up forwards fill the bubble before
// the first input gradient, and the weight gradients move to the tail, so the stages
// form a parallelogram. Tick x on stage s runs F_x, then B_{x-2(p-1-s)}, then
// W_{x-2(p-1)} (indices outside 0..m-1 skipped): 2(p-s)-1 forwards in flight and 2s
// weight gradients waiting, 2p-1 micro-batches' worth on every stage (the paper's
// (2p-1)M_B). Each stage's span (first start to last end) is then
// m(F+B+W) + (p-1)·max(0, F+B-2W) for equal stages once m >= 2p-1 (the paper's
// bubble; tst_schedules), but the stages start and end p-1 forwards apart: only
// optimizer post-validation (§4) lets a stage begin its next step before the last one ends.
void zeroBubbleH2Order(const PipelineInput& in, int s, std::vector<Step>& order) {
    const int p = in.stages, m = in.microBatches;
    for (int x = 0; x < m + 2 * (p - 1); ++x) {
        if (x < m) order.push_back({{x, 0, Phase::Forward, false}, {}, false});
        if (const int b = x - 2 * (p - 1 - s); b >= 0 && b < m) order.push_back({{b, 0, Phase::Backward, false}, {}, false});
        if (const int w = x - 2 * (p - 1); w >= 0 && w < m) order.push_back({{w, 0, Phase::WeightGrad, false}, {}, false});
    }
}

// ZB-V (Qi et al. 2023 §6, Figure 8): two chunks per stage in a V, chunk 0 down the
// stages and chunk 1 back up, so stage 0 runs the first and the last chunk. The
// order is PyTorch's ScheduleZBVZeroBubble (torch/distributed/pipelining/schedules.py):
// 2(p-s)-1 forwards of chunk 0, s pairs of (chunk 1, chunk 0) forwards, p-s rounds of
// chunk 1's F, B, W, then the steady F0 B0 W0 F1 B1 W1, and a drain that fills the
// wait for input gradients with deferred weight gradients.
void zbvOrder(const PipelineInput& in, int s, std::vector<Step>& order) {
    const int p = in.stages, m = in.microBatches;
    Builder b(in, s, order);
    for (int k = 0; k < 2 * (p - s) - 1; ++k) b.forward(0);
    for (int k = 0; k < s; ++k) b.forward(1), b.forward(0);
    for (int k = 0; k < p - s; ++k) b.forward(1), b.backward(1, true), b.weight();
    while (b.nextF[1] < b.nextF[0] || b.nextF[0] < m) {
        if (b.nextF[0] < m) b.forward(0);
        b.backward(0, true), b.weight();
        b.forward(1), b.backward(1, true), b.weight();
    }
    // Drain: chunk 1's weight gradients wait behind chunk 0's input gradients.
    for (int k = 0; k < s; ++k) {
        b.backward(0, true);
        b.backward(1, true);
    }
    for (int k = 0; k < p - s; ++k) {
        b.backward(0, true);
        // the oldest waiting chunk-1 weight gradient, if any, else the oldest
        auto it = std::find_if(b.waiting.begin(), b.waiting.end(), [](const Op& op) { return op.chunk == 1; });
        if (it == b.waiting.end()) it = b.waiting.begin();
        order.push_back({*it, {}, false});
        b.waiting.erase(it);
    }
    std::stable_partition(b.waiting.begin(), b.waiting.end(), [](const Op& op) { return op.chunk == 1; });
    while (!b.waiting.empty()) b.weight();
}

// seqpipe (Seq1F1B, Sun et al. 2024): 1F1B over the micro-batches' sequence parts,
// part u = micro-batch u / n, part u % n. A stage warms up with p - s - 2 + n parts (the
// last stage must see all n parts of a micro-batch before its backward can start at the
// last part) and walks each micro-batch's parts backwards in reverse, as the zero-bubble
// repository's scheduler/seq1f1b.py issues them.
void seqPipeOrder(const PipelineInput& in, int s, std::vector<Step>& order) {
    const int p = in.stages, n = in.seqSplit, units = in.microBatches * n;
    const int w = std::min(p - s - 2 + n, units);
    auto backward = [&](int k) {
        const int part = (k / n) * n + (n - 1 - k % n);
        const bool split = in.times[std::size_t(s)][0].weightGrad > 0;
        order.push_back({{part, 0, Phase::Backward, !split}, {}, false});
        if (split) order.push_back({{part, 0, Phase::WeightGrad, false}, {}, false});
    };
    for (int k = 0; k < w; ++k) order.push_back({{k, 0, Phase::Forward, false}, {}, false});
    for (int k = 0; k < units - w; ++k) {
        order.push_back({{w + k, 0, Phase::Forward, false}, {}, false});
        backward(k);
    }
    for (int k = units - w; k < units; ++k) backward(k);
}

// DualPipe and DualPipeV, step for step as deepseek-ai/DualPipe issues them
// (dualpipe/dualpipe.py and dualpipev.py, DualPipe.step). `phase 0` is the chunk in
// which this stage sits in the first half of its pipeline, `phase 1` the other;
// R stages per half, r this stage's place in its half, M micro-batches per phase.
// Pairs are F&B: one phase's forward beside the other's full backward.
void dualOrder(Kind kind, const PipelineInput& in, int s, std::vector<Step>& order) {
    const int p = in.stages;
    const bool v = kind == Kind::DualPipeV;
    const int R = v ? p : p / 2, r = v ? s : std::min(s, p - 1 - s), M = v ? in.microBatches : in.microBatches / 2;
    const int ph0 = v || s < p / 2 ? 0 : 1, ph1 = 1 - ph0;
    const bool middle = r == R - 1;
    Builder b(in, s, order);
    for (int i = 0; i < 2 * (R - r - 1); ++i) b.forward(ph0);                    // 1: nF0
    for (int i = 0; i < r + 1; ++i) b.forward(ph0), b.forward(ph1);               // 2: nF0F1
    for (int i = 0; i < R - r - 1; ++i) b.backward(ph1, true), b.weight(), b.forward(ph1);  // 3: nB1W1F1
    for (int i = 0; i < M - 2 * R + r + 1; ++i) {                                 // 4: nF0B1F1B0
        if (i == 0 && middle) b.forward(ph0), b.backward(ph1, false);  // not overlapped, to shorten the bubble
        else b.pair(ph0, ph1);
        b.pair(ph1, ph0);
    }
    for (int i = 0; i < R - r - 1; ++i) b.backward(ph1, false), b.pair(ph1, ph0);  // 5: nB1F1B0
    bool split = false;                                                          // 6: nB1B0
    for (int i = 0; i < r + 1; ++i) {
        if (i == (r + 1) / 2 && r % 2 == 1) split = true;
        b.backward(ph1, split);
        if (i == (r + 1) / 2 && r % 2 == 0) split = true;
        b.backward(ph0, split);
    }
    for (int i = 0; i < R - r - 1; ++i) b.weight(), b.backward(ph0, true);      // 7: nWB0
    while (!b.waiting.empty()) b.weight();                                       // 8: nW
}

}  // namespace

std::shared_ptr<const StageOrders> stageOrders(Kind kind, const PipelineInput& in) {
    if (kind == Kind::VHalf || kind == Kind::VMin) return controllableMemoryOrders(kind == Kind::VHalf, in.stages, in.microBatches);
    // Built into this thread's last orders when nobody holds them any more: a search
    // simulates thousands of schedules, and fresh vectors of a long pipeline (DeepSeek-V3,
    // pp 16, 960 micro-batches: 46,080 steps) cost several times the walk in page faults.
    // Past kKeptOrderSteps the storage is given back rather than kept for the thread's life.
    thread_local std::shared_ptr<StageOrders> built;
    std::size_t capacity = 0;
    if (built)
        for (const auto& order : *built) capacity += order.capacity();
    if (!built || built.use_count() > 1 || capacity > kKeptOrderSteps) built = std::make_shared<StageOrders>();
    StageOrders& orders = *built;
    orders.resize(std::size_t(in.stages));
    for (int s = 0; s < in.stages; ++s) {
        auto& order = orders[std::size_t(s)];
        order.clear();
        switch (kind) {
        case Kind::Gpipe:
        case Kind::OneFOneB:
        case Kind::Interleaved:
        case Kind::SeqSmartVpp: megatronOrder(kind, in, s, order); break;
        case Kind::ZbH1: zeroBubbleH1Order(in, s, order); break;
        case Kind::ZbH2: zeroBubbleH2Order(in, s, order); break;
        case Kind::Zbv: zbvOrder(in, s, order); break;
        case Kind::DualPipe:
        case Kind::DualPipeV: dualOrder(kind, in, s, order); break;
        case Kind::SeqPipe: seqPipeOrder(in, s, order); break;
        case Kind::VHalf:
        case Kind::VMin: break;  // (above)
        }
    }
    return built;
}

}  // namespace tessera::core::pipeline_detail
