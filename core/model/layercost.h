#pragma once
// The cost of one transformer layer on one device for one micro-batch: what it
// keeps for backward (by op, under its recompute class), how many parameters it
// holds (split by tensor parallelism, replicated, or routed experts), its FLOPs
// and memory traffic, and the collectives it issues. Everything the stage and
// step assembly (estimate.h) sums.
//
// Memory follows Korthikanti et al. 2022 (arXiv 2205.05198) §4: every tensor a
// layer saves for its backward, counted once, in its own byte width, divided by
// what shards it - tensor parallelism (t) inside the attention and MLP blocks,
// sequence parallelism (t again, when on) outside them, context parallelism (c)
// on the sequence. Sequence-parallel inputs of the column-parallel matmuls are
// saved sharded and all-gathered again in backward, as Megatron-LM does (§4.2.2);
// so the seed's `gather` switch changes time, not memory. Flash attention saves
// Q, K, V, its output and one fp32 statistic per head and token, and no s x s
// tensor (Dao 2023). A fully recomputed layer keeps its input only.
//
// Deviations from the seed (reference/hyperparallel.md §10), decided: units are
// bytes throughout (§10.1); flash attention costs no s^2 (§10.2); a fully
// recomputed layer's input is divided by CP and SP (§10.3); the output projection's
// input is divided by t (§10.4); dropout masks are counted once in their own width
// (§10.5); communication recompute is priced (§10.8).
#include "model/collectives.h"
#include "model/costinput.h"

namespace tessera::core {

struct LayerCost {
    // Memory, bytes.
    double kept = 0;          // saved for backward under the layer's class
    double keptNone = 0;      // what it would save with no recompute
    double gradBuffer = 0;    // transient activation gradients in its backward
    double gatheredInput = 0; // the all-gathered sequence-parallel input (transient)
    double ppBoundary = 0;    // activation sent to the next stage
    double epBuffer = 0, cpBuffer = 0;
    // What a weight gradient deferred past its input gradient keeps until it runs
    // (ZB-H1's held-back W): each matmul's input and its output's gradient. The inputs
    // are the layer's always-kept matmul inputs; the output gradients are taken as large
    // again (each matmul's output is the next one's input, up to the gated doubling).
    double weightGradKept = 0;
    // Parameters, elements.
    double paramsSplit = 0, paramsReplicated = 0, paramsRouted = 0;  // routed: all experts, unsharded
    double paramsDevice = 0;  // on one device (split / t + replicated + routed / (ep·etp))
    double expertParamsDevice = 0;
    double fp8WeightsDevice = 0;  // the weights of its FP8 GEMMs on one device (0 outside FP8)
    double fp8ExpertWeightsDevice = 0;  // of them, the routed experts'
    // Time of one micro-batch, seconds.
    double forward = 0, backwardInput = 0, backwardWeight = 0, recompute = 0;
    double commExposedForward = 0, commExposedBackward = 0;  // included in the above
    double castForward = 0, castBackward = 0;                // FP8 quantisation kernels, included too
    double tpExposed = 0, cpExposed = 0, epExposed = 0;       // the same by dimension, forward + backward
    double tpSeconds = 0, cpSeconds = 0, epSeconds = 0;      // before overlap, forward + backward
    // Model FLOPs of the whole micro-batch (all devices of a replica), forward, no recompute.
    double modelFlopsForward = 0;
};

// A GEMM at the device's high-precision peak (DeviceInfo::peakFlops), and one of an FP8
// linear layer at the FP8 peak.
double matmulSeconds(double flops, const DeviceInfo& d);
double fp8MatmulSeconds(double flops, const DeviceInfo& d);
double memorySeconds(double bytes, const DeviceInfo& d);
// The sequence parts each micro-batch runs as (seqpipe, seqsmartvpp: exec.seq_split; else
// 1): its GEMMs, collectives and pipeline sends run that many times at 1/n of the size.
inline std::int64_t sequenceParts(const RunSettings& run, const Strategy& st) {
    return runsSequenceParts(st.schedule) && run.seqSplit > 1 ? run.seqSplit : 1;
}
// The share of TP communication hidden behind compute: Transformer Engine's pipelined
// overlap when the run asks for it (it needs sequence parallelism), else the default.
double tpOverlapShare(const Strategy& s, const DeviceInfo& d);

// Keys a query of a `span` layer attends to, averaged over a sequence of s tokens,
// times two: s for full causal attention (its s²/2 pairs), less for a sliding window
// or attention chunks shorter than the sequence.
double attendedKeys(const ModelShape& m, AttentionSpan span, double s);

LayerCost layerCost(const CostInput& in, const LayerKind& kind, const RecomputeClass& cls, const GroupLinks& links);

// Layer costs of one strategy by (kind index, class), for the stage contexts that price
// it under other class lists (a search's plan bound and its planner, detail::StageContext):
// layerCost reads neither the partition nor the layer classes nor the offload those
// change. Its owner clears it when the strategy changes in anything else.
class LayerCostMemo {
public:
    const LayerCost* find(std::size_t kind, const RecomputeClass& cls) const {
        for (const Entry& e : m_entries)
            if (e.kind == kind && e.cls == cls) return &e.cost;
        return nullptr;
    }
    void add(std::size_t kind, const RecomputeClass& cls, const LayerCost& cost) { m_entries.push_back({kind, cls, cost}); }
    void clear() { m_entries.clear(); }

private:
    struct Entry {
        std::size_t kind;
        RecomputeClass cls;
        LayerCost cost;
    };
    std::vector<Entry> m_entries;
};

// The same of a layer of `model` (a vision block: core/model/visioncost.h).
LayerCost layerCost(const ModelShape& model, const RunSettings& run, const Strategy& st, const DeviceInfo& device,
                    const LayerKind& kind, const RecomputeClass& cls, const GroupLinks& links);

}  // namespace tessera::core
