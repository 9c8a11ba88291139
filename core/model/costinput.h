#pragma once
// What the cost model reads, flattened to numbers so that one evaluation is a few
// thousand arithmetic operations and no allocation: the model's shape (fixed for a
// whole search), the device, and the strategy (what a search varies). Built once
// from a ResolvedScenario; a search copies the Strategy and changes its fields.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/coefficients.h"
#include "model/parameters.h"
#include "pipeline/closedform.h"
#include "resolve/resolve.h"
#include "units/units.h"

namespace tessera::core {

enum class CpAlgorithm : std::uint8_t { Ring, AllToAll, Hybrid };
// exec.fp8_recipe (Off: compute_dtype is not fp8).
enum class Fp8Recipe : std::uint8_t { Off, Delayed, Tensorwise, Blockwise, Mxfp8 };
enum class RankDim : std::uint8_t { Tp, Cp, Ep, Dp, Pp };

// Ops whose saved activations recompute can drop. Finer than the seed's eight
// (kRecomputeOps): its `dropout` is both the score dropout and the hidden dropout,
// which Megatron's selective recompute tells apart.
enum OpBit : std::uint16_t {
    kOpAttBmm = 1 << 0,        // Q, K, V kept for the attention core
    kOpHeadCast = 1 << 1,      // compute-dtype copy of the scores
    kOpScoreDropout = 1 << 2,  // dropout mask and output on the scores
    kOpHiddenDropout = 1 << 3, // dropout masks on the residual branches
    kOpSoftmax = 1 << 4,
    kOpNorm = 1 << 5,
    kOpGather = 1 << 6,        // (time only: whether backward re-gathers SP inputs)
    kOpFfAct = 1 << 7,         // the MLP activation's output
    kOpAttUp = 1 << 8,         // MLA up-projected heads
    kOpAll = (1 << 9) - 1,
};
using OpMask = std::uint16_t;  // bits set = kept

// The exec spelling's op names (execspec.h kRecomputeOps), each with the bits it drops
// when a selective range recomputes it: the one table readers and writers share.
inline constexpr std::pair<std::string_view, OpMask> kRecomputeOpBits[] = {
    {"attBMM", kOpAttBmm}, {"headCast", kOpHeadCast}, {"dropout", kOpScoreDropout | kOpHiddenDropout},
    {"softmax", kOpSoftmax}, {"normOp", kOpNorm},     {"gather", kOpGather},
    {"ffAct", kOpFfAct},     {"attUp", kOpAttUp}};

// How one class of layers recomputes: nothing, everything (keeps only its input),
// or selectively (keeps the ops in `keep`).
struct RecomputeClass {
    enum Mode : std::uint8_t { None, Full, Selective } mode = None;
    OpMask keep = kOpAll;
    bool operator==(const RecomputeClass&) const = default;
};

struct ModelShape {
    std::int64_t h = 0, a = 0, g = 0, dh = 0, f = 0, vocab = 0, maxPositions = 0;
    std::int64_t experts = 1, topK = 1, expertWidth = 0, sharedWidth = 0;
    std::int64_t groups = 0, groupTopk = 0;  // group-limited routing (n_group, topk_group); 0: none
    std::int64_t qLora = 0, kvLora = 0, ropeDim = 0, nopeDim = 0, vDim = 0;
    std::int64_t linKeyHeads = 0, linKeyDim = 0, linValueHeads = 0, linValueDim = 0, linConv = 0;
    std::int64_t bodyLayers = 0, mtpLayers = 0;
    std::int64_t window = 0, chunk = 0;  // sliding_window, attention_chunk_size (0: no such layers)
    // The query/key norms' weights a layer holds: one head's width (whole on every TP
    // rank) or the projection's (split with it).
    std::int64_t qkNormReplicated = 0, qkNormSplit = 0;
    bool sinks = false, sandwichNorms = false;
    bool gated = true, layerNorm = false, learnedPositions = false, tied = false, qkNorm = false;
    bool attnBias = false, outBias = false, mlpBias = false, outputGate = false;
    bool routerBias = false, sharedGate = false;
    double attentionDropout = 0, hiddenDropout = 0;
    std::vector<LayerKind> kinds;             // distinct kinds, in first-seen order
    std::vector<std::uint8_t> layerKind;      // per layer in model order (body, then MTP): index into kinds
    std::vector<std::vector<std::int32_t>> kindPrefix;  // [kind][i]: layers of that kind among the first i
};

// A vision tower (model.vision_*), priced on the first stage: its blocks as layers of
// their own shape over the patches (exec.visual_seq_len · merge² per sample), the
// patch embedding and the merger beside them. blocks 0: no tower.
struct VisionShape {
    std::int64_t blocks = 0;
    ModelShape block;                  // one block: h, heads, MLP width, norms, biases
    std::int64_t merge = 1;            // patches per language-model token (spatial_merge_size²)
    std::int64_t patchInputs = 0;      // values per patch: channels · frames · patch²
    std::int64_t outWidth = 0;         // the merger's output (the language model's h)
    std::int64_t patchEmbedParams = 0, mergerParams = 0;
    std::int64_t outerNormParams = 0;  // of patchEmbedParams: the norms outside the blocks
    std::int64_t tokens = 0;           // exec.visual_seq_len: merged tokens per sample
    std::int64_t fullBlocks = 0;       // blocks attending over the whole image (all, without windows)
    std::int64_t windowPatches = 0;    // patches a windowed block attends within (0: no windows)
    bool pooled = false;               // Gemma 3's projector: merge patches averaged, RMSNorm, hv -> out
    std::int64_t projectorWidth = 0;   // Llama 4's projector MLP (merge·hv -> w -> w -> out); 0 without
    std::int64_t outerNorms = 0;       // norms over every patch outside the blocks (SigLIP 1, Llama 4 2)
    bool frozen = false;               // exec.freeze_vision_tower: weights only, forward only
};

struct DeviceInfo {
    std::string name;
    Bytes memory = 0;
    // FLOP/s of the matmuls that do not run in FP8: at the compute dtype, or under
    // compute_dtype fp8 at bf16 (attention core, router, output layer).
    double peakFlops = 0;
    double fp8PeakFlops = 0;  // FLOP/s of the FP8 linear layers (the recipe's peak); 0 outside FP8
    double hbmBytesPerSecond = 0;
    // Shares of the datasheet figures the run reaches: the built-in defaults
    // (coefficients.h), or a calibration's (cluster.calibration, core/calibrate).
    double hbmEfficiency = knobs::kHbmEfficiency;
    double intraLinkEfficiency = knobs::kIntraLinkEfficiency, interLinkEfficiency = knobs::kInterLinkEfficiency;
    double tpOverlap = knobs::kTpOverlap, tpOverlapUserBuffers = knobs::kTpOverlapUserBuffers;
    double paramGatherOverlap = knobs::kParamGatherOverlap;
    // Coefficient of variation of the devices' compute speed (cluster.rank_speed_spread,
    // or a calibration's): the step goes at the slowest device's pace (slowestdevice.h).
    double rankSpeedSpread = 0;
    std::int64_t devices = 1;  // cluster.devices (= dp·tp·pp·cp): every one waits for the slowest each step
    // Per device, one direction; the network's is one NIC's rate times cluster.nics_per_device.
    double intraBytesPerSecond = 0, interBytesPerSecond = 0;
    std::int64_t sms = 0;      // streaming multiprocessors (0: not stated)
    std::int64_t perNode = 1;  // devices on NVLink together (cluster.nvlink_domain)
    // Above the leaf switches: devices under one leaf group, the spine's oversubscription.
    std::int64_t leafDevices = std::int64_t{1} << 40;
    double oversubscription = 1;
    double hostLinkBytesPerSecond = 0, hostMemoryBytesPerSecond = 0;  // 0: the device states none
    double effMax = 0, effHalfGflop = 0;  // matmul efficiency curve (model/efficiency.h)
    // The device's built-in curve, which the FP8 kernel figures are derived against; a
    // calibration replaces effMax and effHalfGflop only (layercost.cpp fp8MatmulSeconds).
    double builtInEffMax = 0, builtInEffHalfGflop = 0;
};

// Byte widths and run switches the search does not vary.
struct RunSettings {
    double paramBytes = 2, computeBytes = 2, softmaxBytes = 2, gradBytes = 4, stateBytes = 4, mainBytes = 4;
    double normBytes = 2, dropoutBytes = 1;
    std::int64_t optimizerStates = 2;
    std::int64_t seq = 0;
    bool frozen = false, lossParallel = true;
    // Experts as one grouped GEMM (dropless: nothing padded to a capacity), else one
    // GEMM per local expert with tokens padded to capacityFactor.
    bool groupedGemm = true;
    bool activationFp8Input = false;
    std::int64_t deepepSms = 0;  // exec.moe_deepep_sms under moe_enable_deepep, else 0  // exec.activation_func_fp8_input_store: the SwiGLU input kept in FP8
    bool twoStepDispatch = false;  // exec.moe_enable_deepep: tokens cross the network once per node (expertcomm.h)
    double capacityFactor = 1;  // the padding without grouped GEMM; 1 with it
    Fp8Recipe fp8 = Fp8Recipe::Off;  // exec.fp8_recipe under compute_dtype fp8 (layercost.h says what runs in FP8)
    bool fp8Attention = false;       // exec.fp8_attention
    bool attentionOutE5m6 = false;   // exec.attention_output_e5m6: the attention output kept once, 12 bits
    bool fp8Params = false;          // exec.fp8_params: the FP8 GEMMs' weights stored and gathered in FP8
    bool fp8ReduceScatter = false;   // exec.fp8_reduce_scatter: the forward reduce-scatters under userbuffers in FP8
    // TP shards what a fully recomputed layer keeps (recompute_slice_activation, or
    // shard_activations, which shards the output layer's inputs too), without SP.
    bool sliceRecomputeInput = false, shardActivations = false;
    bool gradientsHeld = true;          // grad_accumulation: false frees them as they are reduced
    bool deferredGradAccumulation = false;  // FSDP holds each micro-batch's gradient shard to its end
    bool overlappedGradReduce = true;   // exec.overlapped_grad_reduce: buckets reduced under the last backward
    bool overlapParamGather = true;     // exec.overlap_param_gather: buckets gathered under the next forward
    bool gradClip = true;               // clip by global norm: one read of the gradients
    bool postValidation = false;        // exec.optimizer_post_validation: zb-h2's step is its longest stage's span
    bool vocabEmbDp = false;            // the embedding runs data parallel (whole on each rank) when pp is 1
    bool tiedTables = false;            // exec.tie_embeddings: output and embedding share one table
    bool shardMtpParams = true;         // MTP projections split over TP like the body's
    Bytes memoryBudget = 0;     // exec.device_memory, else the device's
    Bytes reserve = 0;          // exec.memory_reserve, kept free on every stage
    std::int64_t activationOffload = 0;   // exec.activation_offload as one count: layers per stage
    double hostLinkOverlap = 0.8;         // exec.host_link_overlap
    double optimizerOffload = 0;          // exec.optimizer_offload: share of states and master copy on the host
    bool optimizerOffloadOverlap = false; // exec.optimizer_offload_overlap
    bool overlapExpertComm = false;       // exec.overlap_moe_expert_parallel_comm: F&B pairs in the steady state
    std::int64_t seqSplit = 1;            // exec.seq_split: sequence parts per micro-batch under seqpipe, seqsmartvpp
};

struct Strategy {
    // etp: the expert layers' TP degree as resolved (exec.expert_tp; never the seed's <= 1 for tp).
    std::int64_t dp = 1, tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1;
    std::int64_t mbs = 1, mbn = 1;
    bool sp = false, flash = true;
    bool tpCommOverlap = false;  // TP collectives pipelined with their GEMMs (needs sp)
    bool overlapP2p = false;     // exec.overlap_p2p_comm (unstated: the schedule is interleaved)
    bool optimizerSharded = false, gradSharded = false, fsdp = false, reshard = false, shardSpansCp = false;
    std::int64_t optimizerShard = 1, expertShard = 1;  // ranks each shard spans
    Schedule schedule = Schedule::OneFOneB;
    CpAlgorithm cpAlgorithm = CpAlgorithm::Ring;
    // Per layer in model order: index into `classes`. Empty = every layer class 0.
    std::vector<std::uint8_t> layerClass;
    std::vector<RecomputeClass> classes{RecomputeClass{}};
    // Layers per [chunk][stage]; empty = an even split.
    std::vector<std::vector<std::int64_t>> partition;
    // Layers per stage whose saved activations go to the host (exec.activation_offload as
    // a list); empty: RunSettings::activationOffload on every stage.
    std::vector<std::int64_t> activationOffload;
    bool mtpOnStages = true;  // MTP layers placed by the partition (mtp_in_offset)
    // Vision tower blocks per stage (exec.vision_partition) when it spans several stages,
    // the text layers from its last one on; empty: the whole tower on stage 0.
    std::vector<std::int64_t> visionBlocks;
    // Parallel dimensions from the innermost rank out (cluster.rank_order).
    std::array<RankDim, 5> rankOrder{RankDim::Tp, RankDim::Cp, RankDim::Ep, RankDim::Dp, RankDim::Pp};
};

struct CostInput {
    ModelShape model;
    VisionShape vision;
    DeviceInfo device;
    RunSettings run;
    Strategy strategy;
};

// The strategy's expert grid (resolve/expertgrid.h): every expert figure the cost model
// prices - weights split over ep·etp, gradients reduced over the expert dp, the expert
// layers' TP collectives, the all-to-all's layout - reads it from here. A strategy whose
// grid does not fold is refused before it is priced; should one reach here, its expert dp
// is the whole part of the quotient, at least 1.
ExpertGrid expertGridOf(const Strategy& s);
// The tokens an expert TP group runs its experts on, for each token of one rank's
// micro-batch slice (s·mbs/cp): under sequence parallelism (or at tp 1) each of its etp
// ranks brings its own 1/tp of them, etp/tp in all; without, the tp group holds the same
// tokens and an etp group within it gathers none (one beyond it, etp/tp groups' worth).
double expertTokenShare(const Strategy& s);

// Everything the cost model reads, from a resolved scenario.
CostInput costInput(const ResolvedScenario& r);
// The model, device and run of a scenario resolved by resolveRun(), with the
// strategy at its defaults: the base a search fills candidates into.
CostInput runCostInput(const ResolvedScenario& r);
// The figures a calibration may replace, one row each: its key in the calibration file,
// the cost input's figure it sets, and the physical range a fit keeps it in (no kernel
// reaches all of its peak; a share is a share). applyCalibration and the fit
// (core/calibrate) both walk this one list.
struct CalibrationParameter {
    std::string_view key;
    double DeviceInfo::*field;
    std::optional<double> CalibrationSpec::*slot;
    double low, high;
};
const std::vector<CalibrationParameter>& calibrationParameters();
// A calibration's figures in place of the built-in ones (a figure it leaves out stays).
void applyCalibration(const CalibrationSpec& calibration, DeviceInfo& device);
ModelShape modelShape(const ModelSpec& resolvedModel);
// The vision tower's shape (blocks 0 without one); `visualTokens` is exec.visual_seq_len.
VisionShape visionShape(const ModelSpec& resolvedModel, std::int64_t visualTokens);
// The keep-mask a selective rule gives (reference/hyperparallel.md §4.7; Megatron:
// Korthikanti et al. 2022 §4.2, the attention core).
OpMask selectiveRuleMask(const std::string& rule, bool flash, bool sequenceParallel);

}  // namespace tessera::core
