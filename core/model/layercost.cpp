#include "model/layercost.h"

#include <algorithm>
#include <cmath>

#include "model/coefficients.h"
#include "model/efficiency.h"
#include "model/expertcomm.h"
#include "model/slowestdevice.h"

namespace tessera::core {

using namespace knobs;

// Every kernel runs at the run's slowest device's pace (cluster.rank_speed_spread): the
// three kernel prices below are the only places the cost model reads the device's peaks.
static double pace(const DeviceInfo& d) { return slowestDeviceFactor(d.rankSpeedSpread, d.devices); }

double matmulSeconds(double flops, const DeviceInfo& d) {
    if (flops <= 0) return 0;
    return pace(d) * flops / (d.peakFlops * matmulEfficiency(d.effMax, d.effHalfGflop, flops));
}

double fp8MatmulSeconds(double flops, const DeviceInfo& d) {
    if (flops <= 0) return 0;
    // The BF16 GEMM's time split into its kernel's (at kBf16KernelShare) and the overhead
    // the built-in curve adds; the FP8 GEMM runs its kernel at the FP8 peak and keeps that
    // overhead (coefficients.h). The curve's knee is a fixed cost per GEMM in time
    // (launch, tail, prologue): at a higher peak it is that much more work.
    const double effMax = d.builtInEffMax > 0 ? d.builtInEffMax : d.effMax;
    const double half = d.builtInEffMax > 0 ? d.builtInEffHalfGflop : d.effHalfGflop;
    const double x = flops * 1e-9, shape = x / (x + half);
    const double overhead = flops / (d.peakFlops * shape) * std::max(0.0, 1 / effMax - 1 / kBf16KernelShare);
    const double knee = half * d.fp8PeakFlops / d.peakFlops;
    const double seconds = flops / (d.fp8PeakFlops * kFp8KernelShare * (x / (x + knee))) + overhead;
    // A calibration measures this cluster's GEMMs against the built-in curve (its clocks
    // under a power cap, its libraries): an FP8 GEMM is that much slower or faster too,
    // by the ratio a BF16 GEMM of the same work moves, not by the BF16 time it adds.
    if (d.builtInEffMax <= 0 || (d.effMax == d.builtInEffMax && d.effHalfGflop == d.builtInEffHalfGflop)) return pace(d) * seconds;
    return pace(d) * seconds * matmulEfficiency(effMax, half, flops) / matmulEfficiency(d.effMax, d.effHalfGflop, flops);
}

double tpOverlapShare(const Strategy& s, const DeviceInfo& d) { return s.tpCommOverlap && s.sp ? d.tpOverlapUserBuffers : d.tpOverlap; }

double memorySeconds(double bytes, const DeviceInfo& d) { return pace(d) * bytes / (d.hbmBytesPerSecond * d.hbmEfficiency); }

namespace {

struct Dims {
    double h, a, g, dh, f, t, c, spd, T, s, Bc, Bsm, Bdo, Bn;
};

double normWidth(const ModelShape& m, double width) { return m.layerNorm ? 2 * width : width; }

// The attention core: QK^T and attention over V, causal (half the square).
struct Core {
    double flopsForward = 0;  // per device
    double scoreElements = 0; // T·s·heads/t, the s x s tensors' size per device
};

}  // namespace

double attendedKeys(const ModelShape& m, AttentionSpan span, double s) {
    // Twice the (query, key) pairs per query: s for the causal square's s²/2 pairs.
    if (span == AttentionSpan::Sliding && m.window > 0 && double(m.window) < s) {
        const double w = double(m.window);
        return 2 * (w * w / 2 + (s - w) * w) / s;  // the first w queries causal, the rest w keys each
    }
    if (span == AttentionSpan::Chunked && m.chunk > 0 && double(m.chunk) < s) {
        const double c = double(m.chunk), whole = std::floor(s / c), rest = s - whole * c;
        return 2 * (whole * c * c / 2 + rest * rest / 2) / s;  // causal within each chunk
    }
    return s;
}

LayerCost layerCost(const CostInput& in, const LayerKind& kind, const RecomputeClass& cls, const GroupLinks& links) {
    return layerCost(in.model, in.run, in.strategy, in.device, kind, cls, links);
}

LayerCost layerCost(const ModelShape& m, const RunSettings& run, const Strategy& st, const DeviceInfo& dev,
                    const LayerKind& kind, const RecomputeClass& cls, const GroupLinks& links) {
    const double t = double(st.tp), c = double(st.cp), spd = st.sp ? t : 1.0, etp = double(st.etp);
    const double s = double(run.seq), T = s * double(st.mbs) / c;
    const double h = double(m.h), a = double(m.a), g = double(m.g), dh = double(m.dh);
    const double Bc = run.computeBytes, Bsm = run.softmaxBytes, Bdo = run.dropoutBytes, Bn = run.normBytes;
    // FP8 linear layers keep their quantised inputs (Bl bytes) where BF16 ones keep Bc.
    const bool fp8 = run.fp8 != Fp8Recipe::Off;
    const double Bl = fp8 ? kFp8SavedInputBytes : Bc;
    auto keep = [&](OpMask op) {
        return cls.mode == RecomputeClass::None || (cls.mode == RecomputeClass::Selective && (cls.keep & op)) ? 1.0 : 0.0;
    };
    const bool full = cls.mode == RecomputeClass::Full;
    // seqpipe and seqsmartvpp run each micro-batch as n sequence parts: every GEMM and
    // collective runs n times at 1/n of the size, so each pays the matmul curve's knee
    // and the link's latency at the part's size (efficiency.h; the alpha terms above).
    const double parts = double(sequenceParts(run, st));
    auto inParts = [&](double amount, auto&& cost) { return parts * cost(amount / parts); };
    auto matmul = [&](double flops, bool lowPrecision) {
        return inParts(flops, [&](double f) { return lowPrecision ? fp8MatmulSeconds(f, dev) : matmulSeconds(f, dev); });
    };

    LayerCost out;
    // Saved activations by op, and the matmul FLOPs (per device, forward).
    double saved = 0, savedNone = 0, matmulInputs = 0;
    auto save = [&](double bytes, OpMask op) {  // op 0: always kept (a matmul input)
        savedNone += bytes;
        if (op == 0) matmulInputs += bytes;
        saved += op == 0 ? bytes : bytes * keep(op);
    };
    double gemmSeconds = 0, elementwise = 0;
    double qkvSeconds = 0;          // the projections that build Q, K, V (recomputed when they are dropped)
    double normBytes = 0, actBytes = 0;  // element-wise traffic of the norms and the MLP activation
    auto gemm = [&](double flops) {  // a GEMM that stays in the high-precision dtype (the router)
        const double seconds = matmul(flops, false);
        gemmSeconds += seconds;
        return seconds;
    };
    // A linear layer's GEMM over `rows` tokens, `in` -> `out` features, `weights` of them on
    // this device; `stored`: the input elements its FP8 cast reads (the sequence-parallel
    // shard, cast before the all-gather). Under FP8 it runs at the FP8 curve and its input
    // is quantised in forward, its output gradient in backward, its weight once per step.
    double castForward = 0, castBackward = 0;  // elements quantised per micro-batch
    auto linear = [&](double rows, double in, double outWidth, double stored) {
        const double flops = 2 * rows * in * outWidth;
        const double seconds = matmul(flops, fp8);
        gemmSeconds += seconds;
        if (fp8) castForward += stored, castBackward += rows * outWidth, out.fp8WeightsDevice += in * outWidth;
        return seconds;
    };
    double modelFlops = 0;  // whole micro-batch, all ranks
    const double tokens = s * double(st.mbs);

    // ---- attention -----------------------------------------------------------------
    double coreFlops = 0, scoreElements = 0, qkvHeadWidth = 0, kvExchangeWidth = 0;
    // A windowed or chunked layer's core skips the tiles outside its span under flash
    // attention (FlashAttention-2's local attention, window_size); the unfused core
    // computes every score of the causal square and masks the rest, as it stores them.
    // A vision block attends both ways: every key, twice the causal count.
    // A vision block sees every patch; a windowed one (m.window patches, Qwen2.5-VL) under
    // flash only its window's (varlen attention over the windows; eager masks the square).
    const double keys = kind.span == AttentionSpan::Bidirectional
                            ? 2 * (st.flash && m.window > 0 ? std::min(double(m.window), s) : s)
                            : st.flash ? attendedKeys(m, kind.span, s) : s;
    // Gemma 2/3 norm each sublayer's output too (post_attention_layernorm,
    // post_feedforward_layernorm): one more norm per sublayer, on its reduced output.
    auto postNorm = [&] {
        if (!m.sandwichNorms) return;
        save(Bn * T * h / spd, kOpNorm);
        elementwise += Bc * T * h / spd * 2;
        normBytes += Bc * T * h / spd * 2;
    };
    save(Bn * T * h / spd, kOpNorm);      // input norm's input
    save(Bl * T * h / spd, 0);            // the QKV matmul's input (sequence-parallel shard)
    elementwise += Bc * T * h / spd * 4;  // norm read+write, residual add
    normBytes += Bc * T * h / spd * 2;
    if (kind.attention == AttentionKind::Standard) {
        const double q = a * dh * (m.outputGate ? 2 : 1);
        out.paramsSplit += h * q + 2 * h * g * dh + a * dh * h + (m.attnBias ? q + 2 * g * dh : 0);
        out.paramsSplit += double(m.qkNormSplit) + (m.sinks ? a : 0);  // sinks: one logit per head
        out.paramsReplicated += (m.outBias ? h : 0) + double(m.qkNormReplicated);
        save(Bc * T * (a + g) * dh / t, kOpAttBmm);  // Q and K
        save(Bc * T * g * dh / t, kOpAttBmm);        // V
        if (m.qkNorm) save(Bn * T * (a + g) * dh / t, kOpNorm);
        if (m.outputGate) save(Bc * T * a * dh / t, 0);
        qkvSeconds += linear(T, h, (q + 2 * g * dh) / t, T * h / spd);
        linear(T, a * dh / t, h, T * a * dh / t);
        modelFlops += 2 * tokens * (h * (q + 2 * g * dh) + a * dh * h);
        coreFlops = 2 * T * keys * a * dh / t;  // QK^T + AV = 4·T·s·a·dh, halved for causal
        modelFlops += 2 * tokens * keys * a * dh;
        scoreElements = T * s * a / t;
        qkvHeadWidth = a * dh;
        kvExchangeWidth = 2 * g * dh / t;
        elementwise += Bc * T * (a + g) * dh / t * 2;  // rotary embedding
    } else if (kind.attention == AttentionKind::Mla) {
        const double cq = double(m.qLora), ckv = double(m.kvLora), rope = double(m.ropeDim), nope = double(m.nopeDim),
                     v = double(m.vDim), dqk = nope + rope;
        // Down-projections are replicated across TP (Megatron-core MLA), up-projections column-parallel.
        const double down = (cq > 0 ? h * cq : 0) + h * (ckv + rope);
        const double up = (cq > 0 ? cq * a * dqk : h * a * dqk) + ckv * a * (nope + v);
        out.paramsReplicated += down + (cq > 0 ? normWidth(m, cq) : 0) + normWidth(m, ckv) +
                                (m.attnBias ? (cq > 0 ? cq : 0) + ckv + rope + h : 0);
        out.paramsSplit += up + a * v * h;
        if (cq > 0) save(Bn * T * cq, kOpNorm), save(Bl * T * cq, 0);
        save(Bn * T * ckv, kOpNorm);
        save(Bc * T * (ckv + rope), 0);
        save(Bc * T * a * (2 * dqk + v) / t, kOpAttUp);  // the up-projected heads: the core's Q, K, V
        // Replicated down-projections: every TP rank runs them whole.
        qkvSeconds += linear(T, h, down / h, T * h / spd);
        qkvSeconds += cq > 0 ? linear(T, cq, a * dqk / t, T * cq) : linear(T, h, a * dqk / t, T * h / spd);
        qkvSeconds += linear(T, ckv, a * (nope + v) / t, T * ckv);
        linear(T, a * v / t, h, T * a * v / t);
        modelFlops += 2 * tokens * (down + up + a * v * h);
        coreFlops = T * keys * a * (dqk + v) / t;
        modelFlops += tokens * keys * a * (dqk + v);
        scoreElements = T * s * a / t;
        qkvHeadWidth = a * v;
        kvExchangeWidth = a * (dqk + v) / t;
    } else {  // Gated DeltaNet (Yang et al. 2024), as Transformers' Qwen3NextGatedDeltaNet holds it
        const double nk = double(m.linKeyHeads), dk = double(m.linKeyDim), nv = double(m.linValueHeads),
                     dv = double(m.linValueDim), conv = double(m.linConv);
        const double kd = nk * dk, vd = nv * dv;
        out.paramsSplit += h * (2 * kd + 2 * vd) + h * 2 * nv + (2 * kd + vd) * conv + 2 * nv + vd * h;
        out.paramsReplicated += dv;
        save(Bc * T * (2 * kd + vd) / t, 0);         // convolution input
        save(Bc * T * (2 * kd + vd) / t, kOpAttBmm); // convolution output: the recurrence's q, k, v
        save(Bc * T * (vd + 2 * nv) / t, 0);         // output gate z, beta and decay inputs
        save(Bn * T * vd / t, kOpNorm);              // gated norm input
        save(Bl * T * vd / t, 0);                    // output projection input
        save(4 * T / 64 * nv * dk * dv / t, kOpAttBmm);  // fp32 chunk states, one per 64-token chunk
        qkvSeconds += linear(T, h, (2 * kd + 2 * vd + 2 * nv) / t, T * h / spd);
        linear(T, vd / t, h, T * vd / t);
        modelFlops += 2 * tokens * (h * (2 * kd + 2 * vd + 2 * nv) + vd * h);
        coreFlops = 2 * T * nv * (2 * dk * dv + 64 * (dk + dv)) / t;  // chunked delta rule: state update, output, intra-chunk
        modelFlops += 2 * tokens * nv * (2 * dk * dv + 64 * (dk + dv));
        qkvHeadWidth = vd;
        kvExchangeWidth = 2 * nv * dk * dv / T / t;  // CP passes the recurrent state, not K and V
    }
    // The attention core's saved tensors.
    if (kind.attention != AttentionKind::Linear) {
        if (st.flash) {
            save(kFlashStatsBytes * T * a / t, kOpAttBmm);
        } else {
            save(Bsm * scoreElements, kOpSoftmax);
            if (Bsm != Bc) save(Bc * scoreElements, kOpHeadCast);
            if (m.attentionDropout > 0) save((Bdo + Bc) * scoreElements, kOpScoreDropout);
            elementwise += scoreElements * (Bsm * 2 + (m.attentionDropout > 0 ? 2 * Bc : 0));
        }
        // The output projection's input: the core's output, which flash attention's backward
        // reads in the compute dtype; an FP8 projection keeps its quantised copy beside it.
        // DeepSeek-V3 keeps the one E5M6 copy both read instead (coefficients.h kE5m6Bytes).
        const double outputBytes = fp8 && run.attentionOutE5m6 ? kE5m6Bytes : st.flash ? Bc + (fp8 ? Bl : 0) : Bl;
        save(outputBytes * T * qkvHeadWidth / t, 0);
    }
    if (m.hiddenDropout > 0) save(Bdo * T * h / spd, kOpHiddenDropout);
    postNorm();

    // ---- MLP / experts ---------------------------------------------------------------
    const double inputs = m.gated ? 2 : 1;
    const double kappa = run.capacityFactor;
    double tokensAtExperts = 0;
    save(Bn * T * h / spd, kOpNorm);
    // The MLP's input: quantised for a dense MLP's first GEMM; an MoE layer's router
    // (BF16) reads it whole.
    save((kind.moe ? Bc : Bl) * T * h / spd, 0);
    elementwise += Bc * T * h / spd * 4;
    normBytes += Bc * T * h / spd * 2;
    // `pieces`: the GEMMs the work runs as (one per local expert without grouped GEMM);
    // `stored`: the input elements the first GEMM's FP8 cast reads; `matrices`: how many
    // such MLPs the device holds (its local experts).
    auto mlp = [&](double width, double tokensHere, double tpDiv, double share, double stored, double matrices,
                   double pieces = 1, bool routed = false) {
        // The activation's input(s), read by its backward: in FP8 under
        // activation_func_fp8_input_store (a gated activation; a cast writes it, the
        // backward reads it back).
        const bool fp8Input = run.activationFp8Input && m.gated;
        save((fp8Input ? kFp8SavedInputBytes : Bc) * tokensHere * width * inputs / tpDiv, 0);
        if (fp8Input) elementwise += kFp8SavedInputBytes * tokensHere * width * inputs / tpDiv;
        save(Bl * tokensHere * width / tpDiv, kOpFfAct);       // its output, the down projection's input
        const double flops = 2 * tokensHere * h * width * (inputs + 1) / tpDiv / pieces;
        gemmSeconds += pieces * matmul(flops, fp8);
        if (fp8) {
            castForward += stored + tokensHere * width / tpDiv;
            castBackward += tokensHere * width * inputs / tpDiv + tokensHere * h;
            out.fp8WeightsDevice += matrices * h * width * (inputs + 1) / tpDiv;
            if (routed) out.fp8ExpertWeightsDevice += matrices * h * width * (inputs + 1) / tpDiv;
        }
        modelFlops += 2 * share * h * width * (inputs + 1);
        elementwise += Bc * tokensHere * width / tpDiv * (inputs + 1);
        actBytes += Bc * tokensHere * width / tpDiv * (inputs + 1);
    };
    if (!kind.moe) {
        const double f = double(m.f);
        out.paramsSplit += (inputs + 1) * h * f + (m.mlpBias ? inputs * f : 0);
        out.paramsReplicated += m.mlpBias ? h : 0;
        mlp(f, T, t, tokens, T * h / spd, 1);
    } else {
        const double E = double(m.experts), k = double(m.topK), fe = double(m.expertWidth), fs = double(m.sharedWidth);
        out.paramsReplicated += h * E + (m.routerBias ? E : 0);
        out.paramsRouted += E * ((inputs + 1) * h * fe + (m.mlpBias ? inputs * fe + h : 0));
        save((2 * kRouterLogitBytes * E + kRouterIndexBytes * k) * T / spd, 0);
        gemm(2 * T * h * E / spd);
        modelFlops += 2 * tokens * h * E;
        // Balanced routing: the expert TP group's routed copies come back spread evenly over
        // its ep peers, each rank running them at 1/etp of the width (costinput.h).
        tokensAtExperts = T * expertTokenShare(st) * k * kappa;
        save(Bl * tokensAtExperts * h, 0);  // permuted tokens: the experts' input
        // The combine's gradient with respect to the routing probabilities needs each
        // expert's output, unless the probabilities are applied inside the activation:
        // Megatron-LM's TEGroupedMLP runs a weighted SwiGLU (weighted_bias_swiglu_impl with
        // the permuted probs, megatron/core/transformer/moe/experts.py), so with grouped
        // GEMM and a gated activation the combine keeps nothing and the activation keeps
        // the probabilities (fp32, one per routed copy).
        if (run.groupedGemm && m.gated) save(4 * tokensAtExperts, 0);
        else save(Bc * tokensAtExperts * h, 0);
        // Grouped GEMM runs every local expert in one kernel (Megatron-LM --moe-grouped-gemm);
        // without it each runs its own, smaller and less efficient (efficiency.h).
        const double local = std::max(1.0, E / double(st.ep));
        mlp(fe, tokensAtExperts, etp, tokens * k, tokensAtExperts * h, local, run.groupedGemm ? 1 : local, true);
        elementwise += Bc * tokensAtExperts * h * 4;  // permute and unpermute copies
        if (fs > 0) {
            out.paramsSplit += (inputs + 1) * h * fs + (m.mlpBias ? inputs * fs : 0);
            out.paramsReplicated += (m.mlpBias ? h : 0) + (m.sharedGate ? h : 0);
            if (fp8) save(Bl * T * h / spd, 0);  // its quantised input, beside the router's
            mlp(fs, T, t, tokens, T * h / spd, 1);
        }
    }
    if (m.hiddenDropout > 0) save(Bdo * T * h / spd, kOpHiddenDropout);
    postNorm();
    out.paramsReplicated += (m.sandwichNorms ? 4 : 2) * normWidth(m, h);
    if (kind.mtp) {  // enorm, hnorm, the 2h -> h projection, the output norm (DeepSeek-V3 §2.2)
        // shard_mtp_param: false keeps the projection whole on every TP rank (seed tail.py: not
        // divided by the non-expert shard).
        (run.shardMtpParams ? out.paramsSplit : out.paramsReplicated) += 2 * h * h;
        out.paramsReplicated += 3 * normWidth(m, h);
        save(Bn * T * h * 2 / spd, kOpNorm);
        save(Bl * T * h * 2 / spd, 0);
        linear(T, 2 * h, h / t, T * h * 2 / spd);
        modelFlops += 2 * tokens * 2 * h * h;
    }
    out.paramsDevice = out.paramsSplit / t + out.paramsReplicated + out.paramsRouted / double(st.ep * st.etp);
    out.expertParamsDevice = out.paramsRouted / double(st.ep * st.etp);

    out.keptNone = savedNone;
    out.weightGradKept = std::min(savedNone, 2 * matmulInputs);
    // A fully recomputed layer keeps its input: sharded by SP, or sliced over TP when the
    // run says so (recompute_slice_activation, shard_activations; seed derive.py
    // shard_recompute_input), re-gathered before its recompute.
    const bool sliced = full && !st.sp && run.sliceRecomputeInput && st.tp > 1;
    out.kept = full ? Bc * T * h / (sliced ? t : spd) : saved;
    out.gatheredInput = st.sp && st.tp > 1 ? Bl * T * h : 0;  // FP8: gathered quantised (Transformer Engine)
    out.gradBuffer =
        Bc * (2 * T * h / spd + std::max(T * double(m.f) / t, T * expertTokenShare(st) * double(m.expertWidth) / etp) * inputs);
    out.ppBoundary = Bc * T * h / spd;

    // ---- time ------------------------------------------------------------------------
    const bool coreFp8 = fp8 && run.fp8Attention && kind.attention != AttentionKind::Linear;
    const double coreForward = matmul(coreFlops, coreFp8);
    const double coreBackward = coreForward * (st.flash || kind.attention == AttentionKind::Linear
                                                   ? kFlashBackwardFactor : kPlainAttentionBackwardFactor);
    const double elementForward = memorySeconds(elementwise, dev);
    // FP8 quantisation (coefficients.h): each cast reads the tensor (twice under current or
    // blockwise scaling) and writes its row- and column-wise copies.
    const double castBytes = Bc * (1 + (run.fp8 == Fp8Recipe::Tensorwise || run.fp8 == Fp8Recipe::Blockwise ? kFp8ExtraReads : 0)) +
                             kFp8CastWrittenBytes;
    out.castForward = memorySeconds(castForward * castBytes, dev);
    out.castBackward = memorySeconds(castBackward * castBytes, dev);
    // Collectives. TP: an all-gather/reduce-scatter pair (with SP), or an all-reduce
    // (without), around the attention and around the MLP, the same volume each way
    // (Korthikanti et al. 2022 §4.2.2). An MoE layer's shared experts run on the dense tp
    // group as a dense MLP does; its routed experts on their own TP group of etp ranks,
    // which gathers the dispatched tokens before them and reduce-scatters their output
    // after (Megatron-LM's alltoall dispatcher, gather_from_sequence_parallel_region over
    // the expert TP group): none at etp 1. The dispatcher's collectives are not pipelined
    // into the GEMMs by Transformer Engine's userbuffers: they hide by the default share.
    const double activation = Bc * T * h;
    const double tpHidden = tpOverlapShare(st, dev);
    // With sequence parallelism the pair is a reduce-scatter and an all-gather (rings
    // only), without it an all-reduce.
    auto reduce = [&](double bytes, std::int64_t n, Link link, std::int64_t perNode) {
        return inParts(bytes, [&](double b) {
            return st.sp ? 2 * allGather(b, n, link, dev, perNode).seconds : allReduce(b, n, link, dev, perNode).seconds;
        });
    };
    // Under FP8 with userbuffers, Transformer Engine all-gathers the quantised tensor: the
    // sequence-parallel input before QKV and FC1, and the output gradient before their
    // backward (transformer_engine/pytorch/module/base.py initialize_ub: an FP8 buffer for
    // every all-gather overlap); its reduce-scatters stay in the compute dtype, unless
    // exec.fp8_reduce_scatter gives the forward ones (after the output projection and FC2)
    // an FP8 buffer too (NeMo's proj_fprop / fc2_fprop fp8_buf); the backward's stay.
    const bool fp8Gather = fp8 && st.tpCommOverlap && st.sp;
    auto tpPair = [&](double scatteredBytes) {
        return fp8Gather ? inParts(activation, [&](double b) {
            return allGather(b * kFp8SavedInputBytes / Bc, st.tp, links.tp, dev, links.tpPerNode).seconds +
                   allGather(b * scatteredBytes / Bc, st.tp, links.tp, dev, links.tpPerNode).seconds;
        }) : reduce(activation, st.tp, links.tp, links.tpPerNode);
    };
    const double tpPairs = kind.moe && m.sharedWidth == 0 ? 1 : 2;
    const double tpForward = tpPairs * tpPair(run.fp8ReduceScatter ? kFp8SavedInputBytes : Bc);
    const double tpBackward = tpPairs * tpPair(Bc);
    const double etpForward = kind.moe ? reduce(Bc * tokensAtExperts * h, st.etp, links.etp, links.etpPerNode) : 0;
    double cpForward = 0;
    if (st.cp > 1) {
        if (st.cpAlgorithm == CpAlgorithm::Ring || kind.attention == AttentionKind::Linear) {
            cpForward = double(st.cp - 1) * inParts(Bc * T * kvExchangeWidth, [&](double b) { return sendReceive(b, links.cp, dev).seconds; });
            out.cpBuffer = 2 * Bc * T * kvExchangeWidth;
        } else {  // Ulysses: all-to-all of q, k, v in and the output back
            auto exchange = [&](double b) { return allToAll(b, st.cp, links.cp, dev).seconds; };
            cpForward = inParts(Bc * T * (qkvHeadWidth / t + kvExchangeWidth), exchange) + inParts(Bc * T * qkvHeadWidth / t, exchange);
            out.cpBuffer = 2 * Bc * T * qkvHeadWidth / t;
        }
    }
    double epForward = 0;
    if (kind.moe && st.ep > 1) {
        const ExpertRoute route{st.ep,     links.epPerNode,  m.experts, m.topK, m.groups, m.groupTopk, run.twoStepDispatch,
                                links.ep == Link::Spine ? Link::Spine : Link::Inter};
        // Each rank dispatches its own share of its expert TP group's copies, and gets as many back.
        epForward = 2 * inParts(Bc * tokensAtExperts / etp * h, [&](double b) { return expertAllToAll(route, b, dev).seconds; });  // dispatch + combine
        out.epBuffer = 2 * Bc * tokensAtExperts * h;
    }
    out.tpSeconds = tpForward + tpBackward + 2 * etpForward;
    out.cpSeconds = 3 * cpForward;  // the backward moves twice the forward's (the keys' and values' gradients too)
    out.epSeconds = 2 * epForward;
    // TP: with userbuffers the hidden share runs under the GEMMs it feeds (the forward's,
    // or the backward's input- and weight-gradient GEMMs), so it can hide no more than
    // those take; without, the seed's share (coefficients.h kTpOverlap).
    auto tpExposedUnder = [&](double tp, double gemmCover) {
        return st.tpCommOverlap && st.sp ? tp - std::min(tpHidden * tp, gemmCover) : (1 - tpHidden) * tp;
    };
    const double etpExposed = (1 - dev.tpOverlap) * etpForward;
    const double tpExposedForward = tpExposedUnder(tpForward, gemmSeconds) + etpExposed,
                 tpExposedBackward = tpExposedUnder(tpBackward, 2 * gemmSeconds) + etpExposed;
    auto exposed = [&](double tpS, double cpS, double epS, double core) {
        return tpS + std::max(0.0, cpS - kCpOverlap * core) + (1 - kEpOverlap) * epS;
    };
    out.commExposedForward = exposed(tpExposedForward, cpForward, epForward, coreForward);
    out.commExposedBackward = exposed(tpExposedBackward, 2 * cpForward, epForward, coreBackward);
    out.tpExposed = tpExposedForward + tpExposedBackward;
    out.cpExposed = std::max(0.0, cpForward - kCpOverlap * coreForward) + std::max(0.0, 2 * cpForward - kCpOverlap * coreBackward);
    out.epExposed = 2 * (1 - kEpOverlap) * epForward;
    out.forward = gemmSeconds + coreForward + elementForward + out.castForward + out.commExposedForward;
    out.backwardInput = gemmSeconds + coreBackward + 2 * elementForward + out.castBackward + out.commExposedBackward;
    out.backwardWeight = gemmSeconds;  // dW: one GEMM of the forward's size per forward GEMM

    // Recompute: what the backward must run again before it can start.
    if (full) {
        out.recompute = out.forward;  // the whole forward, its collectives included
        if (sliced) out.recompute += (1 - tpHidden) * inParts(activation, [&](double b) { return allGather(b, st.tp, links.tp, dev, links.tpPerNode).seconds; });
    } else if (cls.mode == RecomputeClass::Selective) {
        const OpMask dropped = static_cast<OpMask>(~cls.keep & kOpAll);
        // With flash attention the core saves no s x s tensor: nothing to drop, nothing to redo.
        if (!st.flash && (dropped & (kOpSoftmax | kOpHeadCast | kOpScoreDropout))) out.recompute += coreForward;
        if (dropped & (kOpAttBmm | kOpAttUp)) out.recompute += qkvSeconds;
        if (dropped & kOpNorm) out.recompute += memorySeconds(normBytes, dev);
        if (dropped & kOpFfAct) out.recompute += memorySeconds(actBytes, dev);
        if ((dropped & kOpGather) && st.sp) out.recompute += (1 - tpHidden) * tpForward / tpPairs;  // the attention's re-gather
    } else if (!(cls.keep & kOpGather) && st.sp) {
        out.recompute += (1 - tpHidden) * tpForward / tpPairs;  // selective_comm_recompute on a layer that keeps the rest
    }
    out.modelFlopsForward = modelFlops;
    return out;
}

}  // namespace tessera::core
