#pragma once
// The cost model's knobs, each with where it comes from. A number here is either
// a published figure (paper and table), a framework default (file and flag), or a
// fitted default that says what it was fitted on. Nothing else in core/model
// carries a bare coefficient.
#include <cstdint>

namespace tessera::core::knobs {

// --- memory ------------------------------------------------------------------------

// Megatron-LM pads the vocabulary to a multiple of 128 x tp
// (--make-vocab-size-divisible-by 128; published.md §3: Llama-2's 32000 -> 32768 at tp 8).
inline constexpr std::int64_t kVocabPadMultiple = 128;
// FlashAttention keeps one fp32 log-sum-exp per head and token for backward
// (Dao 2023, FlashAttention-2 §3.1).
inline constexpr double kFlashStatsBytes = 4;
// Token ids kept for the embedding's backward: int64 (PyTorch's embedding index dtype).
inline constexpr double kTokenIdBytes = 8;
// Megatron-LM computes the router in fp32 (router logits and probabilities) and keeps
// int64 top-k indices (megatron/core/transformer/moe/router.py).
inline constexpr double kRouterLogitBytes = 4;
inline constexpr double kRouterIndexBytes = 8;
// The vocabulary-parallel cross entropy keeps an fp32 copy of the logits (exp and
// softmax) beside the compute-dtype logits (megatron/core/tensor_parallel/cross_entropy.py).
inline constexpr double kLossLogitBytes = 4;
// Megatron-LM DDP gradient bucket: max(40M, 1M x dp·cp) elements
// (megatron/core/distributed/distributed_data_parallel_config.py, bucket_size: "larger
// DP sizes need larger buckets to ensure collectives do not become latency-bound").
inline constexpr double kDpBucketElements = 40e6;
inline constexpr double kDpBucketElementsPerRank = 1e6;
// FSDP with resharding holds the layer it runs and the one it prefetches
// (PyTorch FSDP2 forward/backward prefetch of one module).
inline constexpr int kFsdpGatheredLayers = 2;

// --- time --------------------------------------------------------------------------

// Backward FLOPs of a linear layer: input gradient = forward, weight gradient =
// forward (Narayanan et al. 2021 §5.1: backward = 2 x forward).
// FlashAttention's backward recomputes the scores: 2.5 x the forward core
// (Dao 2023, FlashAttention-2 §3.2: 5 matmuls against 2).
inline constexpr double kFlashBackwardFactor = 2.5;
inline constexpr double kPlainAttentionBackwardFactor = 2.0;
// Share of HBM bandwidth that streaming element-wise kernels reach (fitted default:
// STREAM-like copy kernels reach 80-90 % of the datasheet figure on A100/H100).
inline constexpr double kHbmEfficiency = 0.8;
// Share of a link's datasheet bandwidth a ring collective reaches as bus bandwidth.
// In a node: nccl-tests all_reduce busbw ~ 360-370 of 450 GB/s on H100 NVLink (and
// ~ 230-240 of 300 on A100). Across nodes, one NIC per device: ~ 45 of 50 GB/s over
// 400 Gb/s NDR InfiniBand (cluster-validation guides quote 40-50 GB/s for a single
// NDR NIC); 0.9 is also what the H100 table of published.md §4.2 prefers (0.8 leaves
// its PP = 1 rows 9-11 % slow: tests/tools/fit_efficiency).
inline constexpr double kIntraLinkEfficiency = 0.8;
inline constexpr double kInterLinkEfficiency = 0.9;
// Per-step latency of a collective (the alpha of alpha-beta): NCCL small-message
// latency, fitted default from nccl-tests (a few microseconds in a node, ~10 across).
inline constexpr double kAlphaIntraSeconds = 5e-6;
inline constexpr double kAlphaInterSeconds = 12e-6;
// How NCCL prices its own algorithms across nodes (NCCL's tuning model,
// src/graph/tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime, NCCL 2.19, commit
// b6475625), which it runs the cheaper of:
// - a ring pass takes n-1 steps, and only the N-1 that go from one NVLink domain to
//   the next wait on the network (its nInterSteps); the rest are NVLink steps;
// - a multi-node ring all-reduce of more than 64 bytes per channel and rank runs 1.4x
//   its latency on sm80 and later ("plateau effect of ring"; 1.9 before);
// - the tree all-reduce (a chain inside each domain, a double binary tree between
//   them) takes 2((ranks per domain - 1) + log2 N) hops of 28 us each (hwLat, Tree /
//   Simple, on NVLink and on the network alike), reaches 0.92 of the ring's bus
//   bandwidth, times a correction by size below, and moves the whole tensor up and down
//   (algorithm bandwidth half the bus bandwidth).
// Reduce-scatter and all-gather have no tree: rings only.
inline constexpr double kRingPlateau = 1.4;
inline constexpr double kTreeHopSeconds = 28e-6;
inline constexpr double kTreeBusShare = 0.92;
// NCCL's treeCorrectionFactor for the Simple protocol, by log2(bytes / 64): 64 B up to
// 256 MiB; 1 above.
inline constexpr double kTreeSizeCorrection[] = {0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5,
                                                 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9};

// Shares of communication hidden behind compute, where the model has no cover to
// compute them from (the DP reduction and gather, FSDP's gathers, pipeline sends under
// overlap_p2p_comm and the F&B pairs are priced against the compute beside them:
// stagebody.cpp exposedPipelined, the pipeline simulation's pairs).
// TP without userbuffers: the seed's fitted default (NDC/_cost_model_variables.py,
// overlaps tp 0.5, "MindFormers-validated"; Megatron-LM runs these collectives on the
// compute stream, so its runs hide less); the CP ring overlaps its KV exchange with
// the block attention it feeds (Liu et al. 2023, Ring Attention); expert all-to-all
// and pipeline sends outside their switches are not overlapped (Megatron-LM defaults:
// no --overlap-moe-expert-parallel-comm; p2p overlap only in the interleaved schedule).
inline constexpr double kTpOverlap = 0.5;
// With tp_comm_overlap (Megatron-LM --tp-comm-overlap, Transformer Engine userbuffers;
// defaults in transformer_engine/pytorch/module/base.py initialize_ub): the all-gathers
// run as a ring exchange under the GEMM they feed (hidden), the forward reduce-scatters
// are pipelined in 4 splits (the last split's share exposed) and the backward ones run
// in bulk under the weight-gradient GEMM (hidden). Of a layer's four forward collectives
// two are hidden whole and two to 3/4: 7/8 of the TP traffic is hidden.
inline constexpr double kTpOverlapUserBuffers = 0.875;
// The distributed optimizer's parameter all-gather with overlap_param_gather: a fitted
// share. Megatron-LM gathers bucket by bucket ahead of the next step's first forward,
// which as modelled (stagebody.cpp exposedPipelined over one micro-batch's forward)
// leaves ~2/3 of the gather exposed on published.md §4.2's H100 16B row and puts that
// row and the 7.1B and 32B ones 12-17 % slow; the measured runs hide at least 0.9 of
// it (the seed's dp share, NDC/_cost_model_variables.py). Fitted on those rows until
// the network model (issue 15) says where the difference goes.
inline constexpr double kParamGatherOverlap = 0.9;
// --- FP8 ---------------------------------------------------------------------------

// What runs in FP8 (layercost.h): the linear layers' three GEMMs (forward, input and
// weight gradient), as Transformer Engine's Linear / LayerNormLinear / GroupedLinear run
// them under fp8_autocast; the attention core unless exec.fp8_attention, the router,
// norms, embedding and output layer stay in BF16 (Megatron-LM builds the output layer
// and router outside Transformer Engine; DeepSeek-V3 report §3.3.1 keeps the same set
// in BF16/FP32).
// Each FP8 GEMM operand is quantised from BF16 by a memory-bound kernel that writes it
// twice: row-wise for its own GEMM and column-wise (transposed) for the other pass,
// because Hopper's FP8 tensor cores take the TN layout only (cuBLASLt documentation,
// "FP8 ... requires TN"; Transformer Engine's fused cast_transpose). So a cast reads
// the compute-dtype tensor once and writes two bytes per element.
inline constexpr double kFp8CastWrittenBytes = 2;
// Current scaling (tensorwise) and blockwise's re-quantisation of the transposed tiles
// read the tensor once more (an amax pass before the cast; DeepSeek-V3 §3.3.2's 1x128
// tiles are 128x1 in the transposed copy).
inline constexpr double kFp8ExtraReads = 1;
// Transformer Engine keeps FP8 copies of each FP8 weight across the step's micro-batches
// (Megatron-LM passes is_first_microbatch: the weight is cast once per step), row-wise and
// column-wise: two bytes per weight element beside the compute-dtype parameter.
inline constexpr double kFp8WeightCopyBytes = 2;
// Under exec.fp8_params the FP8 weight is the parameter itself, one byte an element
// (Transformer Engine's fp8_model_init, which Megatron-LM --fp8-param-gather builds the
// model under), with its transposed copy beside it: the same two bytes as the copies
// above, and no parameter in the compute dtype. The distributed optimizer casts its FP32
// master shard to FP8 and all-gathers the bytes (megatron/core/optimizer/distrib_optimizer.py).
inline constexpr double kFp8ParamBytes = 1;
// What an FP8 linear layer keeps for its weight gradient: its quantised input, one byte
// per element (transformer_engine/pytorch/module/linear.py saves the FP8 input; the
// column-wise copy only, its row-wise usage discarded).
inline constexpr double kFp8SavedInputBytes = 1;
// DeepSeek-V3's E5M6 (1 sign, 5 exponent, 6 mantissa bits: 1.5 bytes) for the inputs of
// the linear layer after attention, which the attention backward reads too, so they are
// kept once in a format more precise than FP8 (DeepSeek-V3 technical report §3.3.2,
// "Low-Precision Storage and Communication", (1)). Its cast rides on the quantisation the
// FP8 projection runs anyway, so no time is priced apart.
inline constexpr double kE5m6Bytes = 1.5;
// How fast an FP8 GEMM runs. The matmul curve (efficiency.h) is fitted end to end: its
// ceiling (Hopper 0.615) is below what a large GEMM kernel reaches alone, the rest being
// time the fit charges per FLOP that is not the kernel's (launch gaps, the stream's other
// work). That time does not shrink when the kernel runs at twice the peak, so an FP8 GEMM
// takes its kernel's time at the FP8 peak plus the BF16 curve's overhead unchanged
// (layercost.cpp fp8MatmulSeconds). The kernels' own shares of their peaks on Hopper:
// BF16 0.79 (OpenXLA's measured sm_90 table, xla/service/gpu/model/
// matmul_interpolator_data.h: 4096x4096x4096 BF16 at 783 TFLOP/s of 989.4); FP8 0.77
// (TileLang's H800 FP8 benchmark, benchmark/matmul_fp8/README.md: 8192x8192 at K 8192-16384,
// 1,507-1,541 of 1,979 TFLOP/s; DeepGEMM's README: up to 1,550 TFLOP/s on H800).
inline constexpr double kBf16KernelShare = 0.79;
inline constexpr double kFp8KernelShare = 0.77;

inline constexpr double kCpOverlap = 1.0;      // of the attention core it runs beside
inline constexpr double kEpOverlap = 0.0;

}  // namespace tessera::core::knobs
