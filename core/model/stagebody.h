#pragma once
// What one pipeline stage holds and costs apart from its in-flight activations:
// its layers (all chunks), the embedding or output layer it carries, its static
// memory, buffers and working set, its time per micro-batch, and its once-per-step
// gradient reduction and optimizer step. Internal to estimate.cpp, which multiplies
// each chunk's saved activations by the micro-batches the schedule keeps in flight
// and reuses one body for the identical middle stages of an even split.
#include <array>
#include <cmath>
#include <cstdint>

#include "model/estimate.h"
#include "model/layercost.h"

namespace tessera::core::detail {

// Saturates at 2^60 bytes (1 EiB): hostile sizes (seq_length 2^40) put a term past
// int64, where the cast is undefined and gave negative byte counts
// (tests/data/fuzz/guardrails/seq-length-2e40.yaml). 1 EiB is past any device, and
// seven terms at that cap still add up inside int64.
inline constexpr Bytes kMaxCountedBytes = Bytes{1} << 60;
// A term as whole bytes, rounded up once.
inline Bytes wholeBytes(double bytes) {
    return bytes < double(kMaxCountedBytes) ? static_cast<Bytes>(std::ceil(bytes - 1e-6)) : kMaxCountedBytes;
}

inline constexpr std::size_t kMaxPairs = 64;   // layer kinds x recompute classes
inline constexpr std::size_t kMaxChunks = 64;  // virtual pipeline chunks per stage (resolve refuses more)

// Per-evaluation constants and the (kind, class) layer costs, computed on first use.
class StageContext {
public:
    // `memo`: costs of `in`'s strategy shared with other contexts of it (LayerCostMemo).
    explicit StageContext(const CostInput& in, LayerCostMemo* memo = nullptr);
    const LayerCost& cost(std::size_t pair);
    std::int64_t chunkLayers(std::int64_t chunk, std::int64_t stage) const;
    std::int64_t chunkStart(std::int64_t chunk, std::int64_t stage) const;
    // Where (chunk, stage) sits in model order: chunk-major, or under a V schedule
    // (zbv, dualpipev) chunk 0 down the stages and chunk 1 back up them.
    std::int64_t position(std::int64_t chunk, std::int64_t stage) const;
    // Whether (chunk, stage) runs the model's last layers (and so the output head).
    bool holdsModelEnd(std::int64_t chunk, std::int64_t stage) const;
    // Layers per (kind, class) pair in [start, start + n).
    void countPairs(std::int64_t start, std::int64_t n, std::int64_t* counts) const;

    const CostInput& in;
    GroupLinks links;
    std::size_t kinds, classes, pairs;
    std::int64_t placed;  // layers the partition places (body, and MTP when in the offset)
    double vocab;         // padded for the tensor-parallel split

private:
    LayerCostMemo* m_memo = nullptr;
    // Raw storage: value-initialising 64 LayerCosts per call was half the evaluation's time.
    alignas(LayerCost) unsigned char m_storage[kMaxPairs * sizeof(LayerCost)];
    std::array<bool, kMaxPairs> m_have{};
};

// One end of the model on a stage: the embedding (head) or the final norm, output
// layer and loss (tail), for the pipeline balancer's descriptions (core/plan).
struct StageEnd {
    double forward = 0, backward = 0;  // one micro-batch, seconds (the tail's backward includes its dW)
    double params = 0;                 // elements on one device
    double kept = 0;                   // saved per micro-batch in flight, bytes
};

struct StageBody {
    std::int64_t layers = 0;
    std::array<double, kMaxChunks> kept;  // saved activations of one micro-batch, per chunk
    double weightGradKept = 0;            // what one held-back weight gradient keeps, summed over chunks
    double embeddingKept = 0, outputKept = 0;  // per micro-batch, on chunk 0 / the last chunk
    double params = 0, expertParams = 0;       // elements on one device
    double fp8Weights = 0;                     // of them, the FP8 GEMMs' weights (their FP8 copies are held too)
    double fp8ExpertWeights = 0;               // of those, the routed experts'
    StageMemory memory;                        // all but activations
    StageTime time;
    double modelFlopsForward = 0;              // this stage's share, whole micro-batch
    // Unrounded parts the planner (core/plan) recombines when it changes what the
    // layers recompute: the working set's largest layer term and the rest of it, the
    // gradient reduction before overlap, and the parameter gather left exposed.
    double workingLayers = 0, workingRest = 0;
    // Of workingRest, what grows with the parameters the stage holds (FSDP's gathered
    // weights kept whole without reshard, deferred accumulation's second gradient shard),
    // which a bound may count per layer like the static memory (plan/bound.cpp).
    double workingLinear = 0;
    double reduceSeconds = 0, reduceBuckets = 1, gatherExposed = 0;
    // Exposed transfers (in time.forward / time.backward, per micro-batch) that more
    // layers on the stage would hide: FSDP's gathers, overlapped pipeline sends.
    double coverableForward = 0, coverableBackward = 0;
    // Activation offload: one direction's copy and the backward compute it may hide behind
    // (exec.host_link_overlap of the other layers'), before the exposed part is taken.
    double offloadCopy = 0, offloadBackWindow = 0;
    // FSDP with overlapped_grad_reduce: the backward's gathers and reduce-scatters, the
    // pieces they run in and the backward compute (recompute included) they run under,
    // so the planner can re-take the exposure when it changes the recompute.
    double fsdpBackwardMoves = 0, fsdpPieces = 1, fsdpBackwardCover = 0;
    StageEnd head, tail;
    VisionShare vision;  // of the above, the vision tower's (first stage only)
    double frozenParams = 0;  // elements held as weights only (a frozen vision tower), not in `params`
};

// What one parameter element costs a device once, term by term, as a stage body counts
// its static memory: `shard` is what shards it (the optimizer shard of dense or of
// expert parameters); tables (`table`) keep AdamW's two states whatever the optimizer;
// the states and master copy are what exec.optimizer_offload leaves on the device.
struct ElementBytes {
    double parameter = 0, gradient = 0, states = 0, master = 0;
    double total() const { return parameter + gradient + states + master; }
};
ElementBytes elementBytes(const RunSettings& run, const Strategy& st, double shard, bool table);

// The layers of a stage: per chunk, its first layer in model order and how many.
struct StageRanges {
    std::array<std::int64_t, kMaxChunks> start{}, count{};
};
StageRanges strategyRanges(const StageContext& ctx, std::int64_t stage);

// The stage as the strategy's partition places it, or holding `ranges`.
StageBody stageBody(StageContext& ctx, std::int64_t stage);
StageBody stageBody(StageContext& ctx, std::int64_t stage, const StageRanges& ranges);

// A transfer cut in `pieces` that runs beside `cover` seconds of compute cut alike, one
// waiting on the other piece by piece: a gradient bucket reduced once the backward has
// filled it, a layer's parameters gathered before the layer runs. What shows is one
// piece, or, when the transfer outlasts its cover, the difference less a slice.
double exposedPipelined(double seconds, double pieces, double cover);
// The gradient reduction a stage leaves exposed after its last backward: all of it
// when the run does not overlap it (overlapped_grad_reduce: false), else the buckets
// (Megatron-LM's DDP buckets, coefficients.h kDpBucketElements) pipelined under the
// last micro-batch's backward.
double exposedReduce(const RunSettings& run, double reduceSeconds, double buckets, double lastBackward);

}  // namespace tessera::core::detail
