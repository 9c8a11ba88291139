#include "forms/fieldlook.h"

#include <QObject>
#include <map>

namespace tessera::ui {

namespace {

bool experts(const Applies& a) { return a.experts; }
bool mla(const Applies& a) { return a.mla; }
bool notMla(const Applies& a) { return !a.mla; }
bool linear(const Applies& a) { return a.linearAttention; }
bool vision(const Applies& a) { return a.visionTower; }
bool mtp(const Applies& a) { return a.mtp; }
bool fp8(const Applies& a) { return a.fp8; }

struct Entry {
    const char* key;
    const char* label;
    const char* group;
    bool (*applies)(const Applies&) = nullptr;
};

const char* const kParallelism = "Parallelism";
const char* const kBatch = "Batch";
const char* const kRecompute = "Recompute & offload";
const char* const kSharding = "Sharding";
const char* const kPrecision = "Precision";
const char* const kSchedule = "Pipeline schedule";
const char* const kOverlap = "Overlap";
const char* const kAdvanced = "Advanced";

const Entry kExec[] = {
    {"dp", "Data parallel", kParallelism},
    {"tp", "Tensor parallel", kParallelism},
    {"pp", "Pipeline parallel (stages)", kParallelism},
    {"vpp", "Virtual pipeline chunks", kParallelism},
    {"cp", "Context parallel", kParallelism},
    {"cp_algo", "Context-parallel algorithm", kParallelism},
    {"ep", "Expert parallel", kParallelism, experts},
    {"expert_tp", "Expert tensor parallel", kParallelism, experts},
    {"etp", "Expert TP (seed spelling)", kParallelism, experts},
    {"sequence_parallel", "Sequence parallel", kParallelism},
    {"shard_activations", "Shard activations over TP", kParallelism},
    {"loss_parallel", "Vocabulary-parallel loss", kParallelism},
    {"micro_batch_size", "Micro-batch size", kBatch},
    {"micro_batch_num", "Micro-batches per step", kBatch},
    {"global_batch_size", "Global batch", kBatch},
    {"seq_length", "Sequence length", kBatch},
    {"visual_seq_len", "Image tokens per sample", kBatch, vision},
    {"freeze_vision_tower", "Freeze vision tower", kBatch, vision},
    {"train_tokens", "Token budget", kBatch},
    {"recompute", "Recompute ranges", kRecompute},
    {"full_recompute", "Full recompute (seed)", kRecompute},
    {"selective_recompute", "Selective recompute (seed)", kRecompute},
    {"selective_comm_recompute", "Recompute SP all-gather", kRecompute},
    {"selective_rule", "Selective recompute rule", kRecompute},
    {"recompute_slice_activation", "Recomputed input sliced", kRecompute},
    {"activation_offload", "Activation offload (layers)", kRecompute},
    {"host_link_overlap", "Host-copy overlap", kRecompute},
    {"optimizer_offload", "Optimizer offload share", kRecompute},
    {"optimizer_offload_overlap", "Overlap offloaded optimizer", kRecompute},
    {"optimizer_parallel", "Distributed optimizer (ZeRO-1)", kSharding},
    {"optimizer_shard", "Optimizer shard span", kSharding},
    {"grad_shard", "Shard gradients (ZeRO-2)", kSharding},
    {"grad_shard_as_params", "Shard as parameters (FSDP)", kSharding},
    {"shard_spans_cp", "Shard spans CP ranks", kSharding},
    {"expert_shard", "Expert shard span", kSharding, experts},
    {"expert_shard_group", "Shard experts over group", kSharding, experts},
    {"reshard_params", "Reshard after use (FSDP)", kSharding},
    {"emb_dp_sharded", "Shard embedding over DP", kSharding},
    {"vocab_emb_dp", "Embedding data parallel", kSharding},
    {"shard_mtp_param", "Shard MTP parameters", kSharding, mtp},
    {"compute_dtype", "Compute data type", kPrecision},
    {"fp8_recipe", "FP8 scaling recipe", kPrecision, fp8},
    {"fp8_attention", "FP8 attention", kPrecision, fp8},
    {"attention_output_e5m6", "Attention output in E5M6", kPrecision, fp8},
    {"fp8_params", "FP8 weights (no BF16 copy)", kPrecision, fp8},
    {"fp8_reduce_scatter", "FP8 forward reduce-scatters", kPrecision, fp8},
    {"activation_func_fp8_input_store", "SwiGLU input kept in FP8", kPrecision, fp8},
    {"param_bytes", "Parameter bytes", kPrecision},
    {"compute_bytes", "Activation bytes", kPrecision},
    {"softmax_bytes", "Softmax bytes", kPrecision},
    {"grad_bytes", "Gradient bytes", kPrecision},
    {"main_param_bytes", "Master copy bytes", kPrecision},
    {"optimizer", "Optimizer", kPrecision},
    {"optimizer_states", "Optimizer states per parameter", kPrecision},
    {"optimizer_state_bytes", "Optimizer state bytes", kPrecision},
    {"norm_bytes", "Norm input bytes", kPrecision},
    {"dropout_bytes", "Dropout mask bytes", kPrecision},
    {"pp_schedule", "Schedule", kSchedule},
    {"pp_partition", "Layers per stage", kSchedule},
    {"vision_partition", "Vision blocks per stage", kSchedule, vision},
    {"offset", "Layer offset per stage", kSchedule},
    {"seq_split", "Sequence split (seqpipe, seqsmartvpp)", kSchedule},
    {"mtp_in_offset", "MTP counts in offset", kSchedule, mtp},
    {"emb_out_in_offset", "Embedding/output in offset", kSchedule},
    {"overlapped_grad_reduce", "Overlap gradient reduce", kOverlap},
    {"overlap_param_gather", "Overlap parameter gather", kOverlap},
    {"overlap_p2p_comm", "Overlap pipeline sends", kOverlap},
    {"tp_comm_overlap", "Overlap TP with GEMMs", kOverlap},
    {"overlap_moe_expert_parallel_comm", "Overlap expert all-to-all", kOverlap, experts},
    {"moe_enable_deepep", "DeepEP dispatch", kOverlap, experts},
    {"moe_deepep_sms", "DeepEP SMs", kOverlap, experts},
    {"flash_attention", "Flash attention", kAdvanced},
    {"grouped_gemm", "Grouped expert GEMM", kAdvanced, experts},
    {"capacity_factor", "Expert capacity factor", kAdvanced, experts},
    {"grad_accumulation", "Gradient accumulation", kAdvanced},
    {"deferred_grad_accumulation", "Deferred FSDP reduce", kAdvanced},
    {"param_casts", "Keep weight casts", kAdvanced},
    {"grad_clip", "Gradient clipping", kAdvanced},
    {"optimizer_post_validation", "Optimizer post-validation", kAdvanced},
    {"tie_embeddings", "Tie embeddings", kAdvanced},
    {"frozen", "Frozen parameters", kAdvanced},
    {"device_memory", "Memory budget", kAdvanced},
    {"memory_reserve", "Memory reserve", kAdvanced},
};

const char* const kShape = "Shape";
const char* const kAttention = "Attention";
const char* const kMlp = "MLP";
const char* const kMoe = "Experts";
const char* const kMla = "Latent attention (MLA)";
const char* const kLinear = "Linear attention";
const char* const kVision = "Vision tower";
const char* const kOther = "Other";

const Entry kModel[] = {
    {"name", "Name", kShape},
    {"arch", "Family", kShape},
    {"hidden_size", "Hidden size", kShape},
    {"num_hidden_layers", "Layers", kShape},
    {"vocab_size", "Vocabulary", kShape},
    {"max_position_embeddings", "Max positions", kShape},
    {"tie_word_embeddings", "Tied embeddings", kShape},
    {"mtp_depth", "MTP depth", kShape},
    {"layer_types", "Layer types", kShape},
    {"norm", "Norm", kShape},
    {"norm_placement", "Norm placement", kShape},
    {"position_embedding", "Position embedding", kShape},
    {"num_attention_heads", "Attention heads", kAttention},
    {"num_key_value_heads", "KV heads", kAttention, notMla},
    {"head_dim", "Head dim", kAttention, notMla},
    {"attention_bias", "QKV bias", kAttention},
    {"attention_out_bias", "Output bias", kAttention},
    {"qk_norm", "QK norm", kAttention},
    {"qk_norm_weight", "QK norm weight", kAttention},
    {"attn_output_gate", "Output gate", kAttention},
    {"attention_sinks", "Attention sinks", kAttention},
    {"sliding_window", "Sliding window", kAttention},
    {"attention_chunk_size", "Attention chunk", kAttention},
    {"attention_dropout", "Attention dropout", kAttention},
    {"intermediate_size", "FFN size", kMlp},
    {"hidden_act", "Activation", kMlp},
    {"gated_mlp", "Gated MLP", kMlp},
    {"mlp_bias", "MLP bias", kMlp},
    {"hidden_dropout", "Hidden dropout", kMlp},
    {"num_experts", "Experts", kMoe},
    {"num_experts_per_tok", "Experts per token", kMoe, experts},
    {"num_shared_experts", "Shared experts", kMoe, experts},
    {"moe_intermediate_size", "Expert FFN size", kMoe, experts},
    {"shared_expert_intermediate_size", "Shared expert FFN size", kMoe, experts},
    {"first_k_dense_replace", "Leading dense layers", kMoe, experts},
    {"moe_layer_freq", "MoE layer frequency", kMoe, experts},
    {"mlp_layer_types", "MLP per layer", kMoe, experts},
    {"router_bias", "Router bias", kMoe, experts},
    {"shared_expert_gate", "Shared expert gate", kMoe, experts},
    {"n_group", "Expert groups", kMoe, experts},
    {"topk_group", "Groups per token", kMoe, experts},
    {"q_lora_rank", "Query latent rank", kMla, mla},
    {"kv_lora_rank", "KV latent rank", kMla},
    {"qk_rope_head_dim", "RoPE head dim", kMla, mla},
    {"qk_nope_head_dim", "No-RoPE head dim", kMla, mla},
    {"v_head_dim", "Value head dim", kMla, mla},
    {"linear_num_key_heads", "Key heads", kLinear, linear},
    {"linear_key_head_dim", "Key head dim", kLinear, linear},
    {"linear_num_value_heads", "Value heads", kLinear, linear},
    {"linear_value_head_dim", "Value head dim", kLinear, linear},
    {"linear_conv_kernel_dim", "Conv kernel", kLinear, linear},
    {"vision_hidden_size", "Hidden size", kVision},
    {"vision_depth", "Blocks", kVision, vision},
    {"vision_num_heads", "Heads", kVision, vision},
    {"vision_intermediate_size", "FFN size", kVision, vision},
    {"vision_out_hidden_size", "Output size", kVision, vision},
    {"vision_patch_size", "Patch size", kVision, vision},
    {"vision_temporal_patch_size", "Temporal patch", kVision, vision},
    {"vision_in_channels", "Input channels", kVision, vision},
    {"vision_spatial_merge_size", "Spatial merge", kVision, vision},
    {"vision_gated_mlp", "Gated MLP", kVision, vision},
    {"vision_bias", "Biases", kVision, vision},
    {"vision_norm", "Norm", kVision, vision},
    {"vision_window_size", "Window", kVision, vision},
    {"vision_full_attention_blocks", "Full-attention blocks", kVision, vision},
    {"vision_projector", "Projector", kVision, vision},
    {"vision_position_embeddings", "Learned positions", kVision, vision},
    {"vision_patch_bias", "Patch bias", kVision, vision},
    {"vision_outer_norms", "Norms outside blocks", kVision, vision},
    {"vision_class_token", "Class token", kVision, vision},
    {"vision_projector_width", "Projector width", kVision, vision},
    {"unpriced_keys", "Keys not priced", kOther},
};

const Entry kCluster[] = {
    {"devices", "Devices", nullptr},
    {"nodes", "Nodes", nullptr},
    {"devices_per_node", "Devices per node", nullptr},
    {"rank_order", "Rank order", nullptr},
    {"nvlink_domain", "NVLink domain", nullptr},
    {"leaf_devices", "Devices per leaf switch", nullptr},
    {"oversubscription", "Oversubscription", nullptr},
    {"nics_per_device", "NICs per device", nullptr},
    {"rank_speed_spread", "Device speed spread", nullptr},
    {"calibration", "Calibration file", nullptr},
    {"memory", "Device memory", nullptr},
    {"peak_tflops", "Peak TFLOP/s", nullptr},
    {"hbm_bandwidth_gbps", "HBM bandwidth", nullptr},
    {"intra_node_bandwidth_gbps", "Intra-node bandwidth", nullptr},
    {"inter_node_bandwidth_gbps", "Inter-node bandwidth", nullptr},
    {"host_link_gbps", "Host link", nullptr},
    {"host_memory_gbps", "Host memory bandwidth", nullptr},
    {"sms", "SMs", nullptr},
    {"name", "Name", nullptr},
};

template <std::size_t N>
const Entry* find(const Entry (&table)[N], const QString& key) {
    for (const Entry& e : table)
        if (key == QLatin1String(e.key)) return &e;
    return nullptr;
}

QString words(const QString& key) {
    QString out = key;
    out.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!out.isEmpty()) out[0] = out[0].toUpper();
    return out;
}

const core::Value* at(const core::Value& map, const char* key) { return map.isMap() ? map.find(key) : nullptr; }

std::int64_t integerAt(const core::Value* section, const char* key) {
    const core::Value* v = section ? at(*section, key) : nullptr;
    return v && v->kind() == core::Value::Kind::Int ? v->asInt() : 0;
}

}  // namespace

FieldLook fieldLook(const QString& section, const QString& key) {
    const Entry* e = section == QLatin1String("exec")      ? find(kExec, key)
                     : section == QLatin1String("model")   ? find(kModel, key)
                     : section == QLatin1String("cluster") ? find(kCluster, key)
                                                           : nullptr;
    if (!e) return {words(key), QString(), nullptr};
    return {QObject::tr(e->label), e->group ? QObject::tr(e->group) : QString(), e->applies};
}

QStringList fieldGroups(const QString& section) {
    if (section == QLatin1String("exec"))
        return {QObject::tr(kParallelism), QObject::tr(kBatch), QObject::tr(kRecompute), QObject::tr(kSharding),
                QObject::tr(kPrecision),   QObject::tr(kSchedule), QObject::tr(kOverlap),  QObject::tr(kAdvanced)};
    if (section == QLatin1String("model"))
        return {QObject::tr(kShape), QObject::tr(kAttention), QObject::tr(kMlp),    QObject::tr(kMoe),
                QObject::tr(kMla),   QObject::tr(kLinear),    QObject::tr(kVision), QObject::tr(kOther)};
    return {};
}

Applies appliesOf(const core::Value& document, const core::Value* resolvedModel) {
    const core::Value* model = resolvedModel ? resolvedModel : at(document, "model");
    const core::Value* exec = at(document, "exec");
    Applies a;
    a.experts = integerAt(model, "num_experts") > 1;  // as core isMoe: one expert is a dense MLP
    a.mla = integerAt(model, "kv_lora_rank") > 0;
    a.visionTower = integerAt(model, "vision_hidden_size") > 0;
    a.mtp = integerAt(model, "mtp_depth") > 0;
    if (const core::Value* types = model ? at(*model, "layer_types") : nullptr; types && types->isList())
        for (const core::Value& t : types->items())
            if (t.kind() == core::Value::Kind::String && t.asString().find("linear") != std::string::npos) a.linearAttention = true;
    a.interleaved = integerAt(exec, "vpp") > 1;
    const core::Value* dtype = exec ? at(*exec, "compute_dtype") : nullptr;
    a.fp8 = dtype && dtype->kind() == core::Value::Kind::String && dtype->asString().find("fp8") != std::string::npos;
    return a;
}

}  // namespace tessera::ui
