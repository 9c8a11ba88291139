#pragma once
// ExecSpec: how a model is trained. Field names, types and rules follow
// HyperParallel's ExecSpec (seeds/000, reference/hyperparallel.md §3.1): every field
// optional; counts are whole numbers of at least 1, byte widths whole numbers of
// at least 0, flags real booleans, names from closed lists. Tessera adds
// `compute_dtype` (which peak of the device the matmuls run at).
//
// Each closed value list below is the one place its values are named.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/field.h"
#include "units/units.h"

namespace tessera::core {

// Priced pipeline schedules (core/pipeline/schedule.h says where each comes from).
inline constexpr std::string_view kPipelineSchedules[] = {"1f1b",    "interleaved", "gpipe",   "zb-h1",  "zbv",  "dualpipe",
                                                          "dualpipev", "seqpipe",   "v-half", "v-min", "zb-h2",
                                                          "seqsmartvpp"};
inline constexpr std::string_view kSelectiveRules[] = {"hyperparallel", "mindformers", "megatron"};
inline constexpr std::string_view kRecomputeOptions[] = {"none", "full", "selective"};
// The ops a selective range keeps or recomputes (seed RECOMPUTE_OPS); attUp is an
// MLA layer's up-projections.
inline constexpr std::string_view kRecomputeOps[] = {"attBMM", "headCast", "dropout", "softmax",
                                                     "normOp", "gather", "ffAct", "attUp"};
inline constexpr std::string_view kOpStates[] = {"keep", "recompute"};
// colossalai_cp is the ring (seed default); ulysses_cp the all-to-all; hybrid_cp both.
inline constexpr std::string_view kCpAlgorithms[] = {"colossalai_cp", "ulysses_cp", "hybrid_cp"};
inline constexpr std::string_view kOptimizers[] = {"adamw", "muon"};
inline constexpr std::string_view kComputeDtypes[] = {"fp32", "bf16", "fp16", "fp8"};
// How an FP8 run scales its tensors (Megatron-LM --fp8-recipe, megatron/training/arguments.py;
// Transformer Engine's recipes): delayed per-tensor scaling from an amax history,
// current per-tensor scaling, DeepSeek-V3's blockwise 1x128 / 128x128 tiles, and
// Blackwell's MXFP8 (1x32 blocks with power-of-two scales).
inline constexpr std::string_view kFp8Recipes[] = {"delayed", "tensorwise", "blockwise", "mxfp8"};

// Consecutive layers that recompute alike, in model order from 0 (body layers
// first, then MTP layers), whatever stage holds them.
struct RecomputeRange {
    std::int64_t first = 0;
    std::optional<std::int64_t> count;  // nullopt: to the last layer
    std::string option = "none";        // kRecomputeOptions
    // Selective ranges only: op -> "keep" | "recompute"; an op left out is kept.
    // nullopt takes the run's selective_rule.
    std::optional<std::vector<std::pair<std::string, std::string>>> ops;
    bool operator==(const RecomputeRange&) const = default;
};

struct ExecSpec {
    std::optional<std::int64_t> dp, tp, pp, vpp, cp, ep, etp;
    // Megatron-LM's --expert-tensor-parallel-size: the expert layers' own TP degree, not
    // tied to tp (MoE parallel folding). etp is the seed's spelling, where at most 1 means
    // tp; resolve fills each from the other (resolve/expertgrid.h).
    std::optional<std::int64_t> expert_tp;
    std::optional<bool> sequence_parallel, shard_activations, loss_parallel;
    std::optional<std::int64_t> micro_batch_size, micro_batch_num, global_batch_size;
    std::optional<bool> optimizer_parallel;
    std::optional<std::int64_t> optimizer_shard, expert_shard;
    std::optional<bool> expert_shard_group, grad_shard, grad_shard_as_params, shard_spans_cp, grad_accumulation,
        deferred_grad_accumulation, overlapped_grad_reduce, overlap_param_gather, reshard_params, param_casts;
    std::optional<std::string> pp_schedule;
    std::optional<StageCounts> offset;
    std::optional<std::int64_t> seq_split;
    std::optional<StageCounts> pp_partition, vision_partition;
    std::optional<bool> mtp_in_offset, emb_out_in_offset;
    std::optional<StageCounts> full_recompute, selective_recompute, selective_comm_recompute;
    std::optional<std::string> selective_rule;
    std::optional<bool> recompute_slice_activation;
    std::optional<std::vector<RecomputeRange>> recompute;
    std::optional<std::int64_t> param_bytes, compute_bytes, softmax_bytes, grad_bytes, optimizer_state_bytes,
        optimizer_states, main_param_bytes, norm_bytes, dropout_bytes;
    std::optional<bool> flash_attention, tp_comm_overlap, grad_clip, optimizer_post_validation, grouped_gemm, vocab_emb_dp, emb_dp_sharded, tie_embeddings;
    std::optional<bool> activation_func_fp8_input_store;
    std::optional<std::string> cp_algo;
    std::optional<double> capacity_factor;
    std::optional<bool> shard_mtp_param, frozen, freeze_vision_tower;
    std::optional<std::string> optimizer;
    std::optional<std::string> compute_dtype;
    std::optional<std::string> fp8_recipe;
    std::optional<bool> fp8_attention, attention_output_e5m6, fp8_params, fp8_reduce_scatter;
    std::optional<std::int64_t> seq_length;
    std::optional<std::int64_t> train_tokens;
    std::optional<std::int64_t> visual_seq_len;
    std::optional<Bytes> device_memory, memory_reserve;
    std::optional<StageCounts> activation_offload;
    std::optional<double> optimizer_offload, host_link_overlap;
    std::optional<bool> optimizer_offload_overlap;
    std::optional<bool> overlap_p2p_comm, overlap_moe_expert_parallel_comm;
    std::optional<bool> moe_enable_deepep;
    std::optional<std::int64_t> moe_deepep_sms;

    bool operator==(const ExecSpec&) const = default;
};

template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, ExecSpec>
void visit(Spec& e, V& v) {
    // clang-format off: one row per field
    const IntRange count{1}, size{0};
    v.integer({"dp", "Data-parallel degree"}, e.dp, count);
    v.integer({"tp", "Tensor-parallel degree"}, e.tp, count);
    v.integer({"pp", "Pipeline-parallel degree (stages)"}, e.pp, count);
    v.integer({"vpp", "Virtual pipeline chunks per stage (interleaved schedule)"}, e.vpp, count);
    v.integer({"cp", "Context-parallel degree (sequence split across devices)"}, e.cp, count);
    v.integer({"ep", "Expert-parallel degree"}, e.ep, count);
    v.integer({"etp", "Expert tensor-parallel degree; at most 1 runs experts at the dense tp (the seed's spelling)"}, e.etp, size);
    v.integer({"expert_tp", "The expert layers' tensor-parallel degree, independent of tp (Megatron-LM "
               "--expert-tensor-parallel-size, torchtitan expert_tensor_parallel_degree): the expert grid is "
               "ep x expert_tp x expert data parallelism over the dense grid's dp·tp·cp ranks; 1 keeps each expert "
               "whole on its ep rank; unstated: etp's reading"}, e.expert_tp, count);
    v.flag({"sequence_parallel", "Split norm and dropout activations along the sequence over the TP group"}, e.sequence_parallel);
    v.flag({"shard_activations", "TP shards the activations between layers and the output layer's"}, e.shard_activations);
    v.flag({"loss_parallel", "Loss on vocabulary-sharded logits rather than gathered ones"}, e.loss_parallel);
    v.integer({"micro_batch_size", "Sequences per micro-batch", "sequences"}, e.micro_batch_size, count);
    v.integer({"micro_batch_num", "Micro-batches per step per pipeline"}, e.micro_batch_num, count);
    v.integer({"global_batch_size", "Sequences per optimizer step", "sequences"}, e.global_batch_size, count);
    v.flag({"optimizer_parallel", "Shard optimizer states over data parallelism (ZeRO-1)"}, e.optimizer_parallel);
    v.integer({"optimizer_shard", "Data-parallel ranks each optimizer shard spans"}, e.optimizer_shard, count);
    v.integer({"expert_shard", "Ranks of its expert data-parallel group a routed expert is sharded over"}, e.expert_shard, count);
    v.flag({"expert_shard_group", "Shard routed experts over the whole expert data-parallel group"}, e.expert_shard_group);
    v.flag({"grad_shard", "Shard gradients too (ZeRO-2)"}, e.grad_shard);
    v.flag({"grad_shard_as_params", "Shard each gradient as its parameter (FSDP / ZeRO-3)"}, e.grad_shard_as_params);
    v.flag({"shard_spans_cp", "The optimizer shard spans context-parallel ranks too"}, e.shard_spans_cp);
    v.flag({"grad_accumulation", "Gradients stay in memory across micro-batches without pipelining"}, e.grad_accumulation);
    v.flag({"deferred_grad_accumulation", "FSDP holds each layer's reduce-scatter output until the micro-batch ends"}, e.deferred_grad_accumulation);
    v.flag({"overlapped_grad_reduce", "Each gradient bucket is reduced as soon as the last backward fills it, under the rest "
            "of that backward (Megatron-LM --overlap-grad-reduce; FSDP: a layer's reduce-scatter under the next one's backward)"},
           e.overlapped_grad_reduce);
    v.flag({"overlap_param_gather", "The sharded optimizer's parameter all-gather runs bucket by bucket under the next "
            "step's first forward (Megatron-LM --overlap-param-gather; FSDP: the next layer's gather under this one)"},
           e.overlap_param_gather);
    v.flag({"reshard_params", "FSDP frees gathered parameters after each use"}, e.reshard_params);
    v.flag({"param_casts", "Layers keep the compute-dtype casts of their weights"}, e.param_casts);
    v.choice({"pp_schedule", "Pipeline schedule"}, e.pp_schedule, kPipelineSchedules);
    v.stageCounts({"offset", "Layers per stage beyond an even split: one count, per stage, or per chunk and stage"}, e.offset, kFormInt | kFormList | kFormNested, IntRange{-(1 << 20), 1 << 20});
    v.integer({"seq_split", "Parts each micro-batch's sequence runs the pipeline in under pp_schedule: seqpipe "
               "(Seq1F1B) or seqsmartvpp (Seq1F1B-I); the seed's seq_split; unstated: 1"}, e.seq_split, count);
    v.stageCounts({"pp_partition", "Layers each stage holds, stated outright (0 only on the stages before the one where "
                   "a vision tower split by vision_partition ends)"}, e.pp_partition, kFormList | kFormNested, IntRange{0, 1 << 20});
    v.flag({"mtp_in_offset", "MTP layers count in the offset's layers"}, e.mtp_in_offset);
    v.flag({"emb_out_in_offset", "Embedding and output layers count in the offset's layers"}, e.emb_out_in_offset);
    v.stageCounts({"full_recompute", "Fully recomputed layers: true for all, or counts per stage"}, e.full_recompute, kFormBool | kFormInt | kFormList | kFormNested, size);
    v.stageCounts({"selective_recompute", "Selectively recomputed layers: true for all, or counts per stage"}, e.selective_recompute, kFormBool | kFormList | kFormNested, size);
    v.stageCounts({"selective_comm_recompute", "Layers recomputing their sequence-parallel all-gather"}, e.selective_comm_recompute, kFormBool | kFormList | kFormNested, size);
    v.choice({"selective_rule", "Whose selective recompute the run uses"}, e.selective_rule, kSelectiveRules);
    v.flag({"recompute_slice_activation", "A recomputed layer keeps its input sliced over TP"}, e.recompute_slice_activation);
    v.ranges({"recompute", "Recompute ranges over the layers in model order"}, e.recompute);
    v.integer({"param_bytes", "Bytes per parameter element", "bytes"}, e.param_bytes, size);
    v.integer({"compute_bytes", "Bytes per activation element", "bytes"}, e.compute_bytes, size);
    v.integer({"softmax_bytes", "Bytes per softmax output element", "bytes"}, e.softmax_bytes, size);
    v.integer({"grad_bytes", "Bytes per gradient element", "bytes"}, e.grad_bytes, size);
    v.integer({"optimizer_state_bytes", "Bytes per optimizer state element", "bytes"}, e.optimizer_state_bytes, size);
    v.integer({"optimizer_states", "Optimizer states per parameter (AdamW 2, Muon 1)"}, e.optimizer_states, count);
    v.integer({"main_param_bytes", "Bytes per element of the optimizer's master copy (0: none)", "bytes"}, e.main_param_bytes, size);
    v.integer({"norm_bytes", "Bytes per norm input element kept for backward", "bytes"}, e.norm_bytes, size);
    v.integer({"dropout_bytes", "Bytes per dropout mask element", "bytes"}, e.dropout_bytes, size);
    v.flag({"flash_attention", "Fused attention that keeps no s x s tensors"}, e.flash_attention);
    v.flag({"overlap_p2p_comm", "Pipeline sends and receives run under the next chunk's compute, exposed by what they "
            "outlast it (Megatron-LM --overlap-p2p-communication: on by default, and only in the interleaved schedule); "
            "unstated: on for interleaved, off otherwise"}, e.overlap_p2p_comm);
    v.flag({"overlap_moe_expert_parallel_comm", "Each steady-state forward runs beside the previous micro-batch's "
            "backward, so either's expert all-to-all hides under the other's compute (Megatron-LM "
            "--overlap-moe-expert-parallel-comm, combined 1F1B; pp 1 or the interleaved schedule, ep > 1)"},
           e.overlap_moe_expert_parallel_comm);
    v.flag({"moe_enable_deepep", "Expert dispatch and combine in two steps, as DeepEP runs them: each token crosses "
            "the network once per node it routes to (to the same-rail GPU there), then NVLink carries it on to its "
            "experts (Megatron-LM --moe-enable-deepep with --moe-token-dispatcher-type flex); off, every routed copy "
            "goes straight to its expert's GPU"}, e.moe_enable_deepep);
    v.integer({"moe_deepep_sms", "The device's SMs DeepEP's dispatch and combine kernels run on (DeepEP's "
               "Buffer.num_sms; DeepSeek-V3 report §3.2.2: 20 of the H800's 132): while an F&B pair overlaps them, "
               "the pair's compute runs on the rest; moe_enable_deepep only"}, e.moe_deepep_sms, IntRange{1, 1 << 16});
    v.flag({"tp_comm_overlap", "TP collectives pipelined with their GEMMs (Megatron-LM --tp-comm-overlap; needs sequence_parallel)"},
           e.tp_comm_overlap);
    v.flag({"grad_clip", "Clip gradients by global norm"}, e.grad_clip);
    v.flag({"optimizer_post_validation", "Each stage steps its optimizer as soon as its own gradients are reduced and "
            "checks the global norm and overflow afterwards, rolling back if either trips (the zero-bubble fork's "
            "--enable-optimizer-post-validation; Qi et al. 2023 §4): zb-h2's stages then start the next step apart, "
            "so its step is the longest stage's span"}, e.optimizer_post_validation);
    v.flag({"grouped_gemm", "Experts run as one grouped matmul"}, e.grouped_gemm);
    v.flag({"activation_func_fp8_input_store", "The gated activation (SwiGLU) keeps its input for the backward in FP8, "
            "one byte an element (Megatron-LM --activation-func-fp8-input-store; DeepSeek-V3 report §3.3.2)"},
           e.activation_func_fp8_input_store);
    v.flag({"vocab_emb_dp", "The vocabulary embedding runs data parallel"}, e.vocab_emb_dp);
    v.flag({"emb_dp_sharded", "The embedding table is sharded over data parallelism"}, e.emb_dp_sharded);
    v.flag({"tie_embeddings", "The run ties embedding and output tables"}, e.tie_embeddings);
    v.choice({"cp_algo", "Context-parallel algorithm: ring, all-to-all (Ulysses) or both"}, e.cp_algo, kCpAlgorithms);
    v.real({"capacity_factor", "Expert token capacity factor; unstated is dropless"}, e.capacity_factor, RealRange{0, 1e6, true, false});
    v.flag({"shard_mtp_param", "MTP parameters are sharded like the body's"}, e.shard_mtp_param);
    v.flag({"frozen", "Parameters are frozen (no gradients or optimizer)"}, e.frozen);
    v.flag({"freeze_vision_tower", "The vision tower and its projector are frozen (MindSpeed's vision_encoder and "
            "vision_projector freeze: true): their weights take no gradients, optimizer states or master copy, and they "
            "run forward only, keeping nothing for backward"}, e.freeze_vision_tower);
    v.choice({"optimizer", "Optimizer"}, e.optimizer, kOptimizers);
    v.choice({"compute_dtype", "Data type of the matmuls (which device peak applies)"}, e.compute_dtype, kComputeDtypes);
    v.choice({"fp8_recipe", "How an FP8 run scales its tensors (Megatron-LM --fp8-recipe): delayed or current "
              "(tensorwise) per-tensor scaling, DeepSeek-V3's blockwise tiles, or MXFP8 (a device that lists an mxfp8 "
              "peak); compute_dtype: fp8 only; unstated: delayed, Megatron-LM's default"}, e.fp8_recipe, kFp8Recipes);
    v.flag({"fp8_attention", "The attention core runs in FP8 too (Megatron-LM --fp8-dot-product-attention); off, it "
            "stays in BF16 beside the FP8 linear layers, as do norms, router, embedding and output layer"},
           e.fp8_attention);
    v.flag({"attention_output_e5m6", "The attention core's output, the input of the projection after it, is kept once in "
            "DeepSeek-V3's 12-bit E5M6 format for both the projection's weight gradient and the attention backward, "
            "instead of in the compute dtype beside an FP8 copy (DeepSeek-V3 report §3.3.2); compute_dtype: fp8 only"},
           e.attention_output_e5m6);
    v.flag({"fp8_params", "The FP8 linear layers' weights are stored in FP8, one byte and a transposed copy, instead "
            "of in the parameter dtype beside two FP8 copies, and the distributed optimizer gathers them in FP8 "
            "(Megatron-LM --fp8-param-gather, NeMo fp8_params); compute_dtype: fp8 with optimizer_parallel, not FSDP"},
           e.fp8_params);
    v.flag({"fp8_reduce_scatter", "Under tp_comm_overlap, the forward reduce-scatters after the attention output "
            "projection and FC2 move the GEMM's output in FP8, one byte an element (NeMo's ub_tp_comm_overlap_cfg "
            "proj_fprop and fc2_fprop fp8_buf; Transformer Engine's default keeps them in BF16); compute_dtype: fp8 "
            "with tp_comm_overlap"}, e.fp8_reduce_scatter);
    v.integer({"seq_length", "Training sequence length", "tokens"}, e.seq_length, count);
    v.integer({"train_tokens", "Tokens the whole run trains on (its token budget, e.g. 15000000000000 for 15T): "
               "the days to train on this cluster at the priced step time, and the optimizer steps the trainer "
               "is told (Megatron-LM --train-iters, torchtitan training.steps); no byte or second of a step "
               "depends on it", "tokens"}, e.train_tokens, count);
    v.stageCounts({"vision_partition", "Vision tower blocks each stage holds, one count per stage from stage 0, as "
                   "MindSpeed-MM's vision_encoder pipeline_num_layers: [16, 16, 0, 0] runs blocks 0-15 and the patch "
                   "embedding on stage 0, blocks 16-31 and the merger on stage 1, where the text layers begin (the stages "
                   "before it hold none: state pp_partition). One chunk per stage, schedules without a V; unstated: the "
                   "whole tower on stage 0"}, e.vision_partition, kFormList, IntRange{0, 1 << 20});
    v.integer({"visual_seq_len", "Image tokens per sample the vision tower hands the language model, after its merger "
               "(the seed's context.visual_seq_len); the tower runs on vision_spatial_merge_size² patches per token. "
               "Required with a vision tower", "tokens"}, e.visual_seq_len, count);
    v.memory({"device_memory", "Memory budget per device; the device's memory when unstated", "bytes"}, e.device_memory, 1);
    v.memory({"memory_reserve", "Memory every stage keeps free beside what it holds (its own term, reserve): the seed's 1 GiB "
              "safety buffer by default; 0 for none", "bytes"}, e.memory_reserve, 0);
    v.stageCounts({"activation_offload", "Layers per stage (one count for every stage, or one per stage) whose saved "
                   "activations go to host memory after their forward and come back before their backward: the first "
                   "layers the stage runs (Megatron-LM --cpu-offloading-num-layers); needs the device's host_link_gbps"},
                  e.activation_offload, kFormInt | kFormList, size);
    v.real({"host_link_overlap", "Share of a stage's compute that activation copies to and from the host can hide "
            "behind (the seed's --host_link_overlap, default 0.8)"}, e.host_link_overlap, RealRange{0, 1, false, false});
    v.real({"optimizer_offload", "Share of the optimizer states and master copy kept in host memory and stepped by the "
            "CPU (Megatron-LM --optimizer-cpu-offload with --optimizer-offload-fraction); needs the device's "
            "host_link_gbps and host_memory_gbps"}, e.optimizer_offload, RealRange{0, 1, false, false});
    v.flag({"optimizer_offload_overlap", "The offloaded optimizer's gradient copy, CPU step and parameter copy run "
            "concurrently (Megatron-LM --overlap-cpu-optimizer-d2h-h2d)"}, e.optimizer_offload_overlap);
    // clang-format on
}

}  // namespace tessera::core
