#include "model/costinput.h"

#include <algorithm>

#include "model/efficiency.h"

namespace tessera::core {

namespace {

OpMask opBits(const std::string& op) {
    for (const auto& [name, bits] : kRecomputeOpBits)
        if (name == op) return bits;
    return 0;
}

std::uint8_t classIndex(std::vector<RecomputeClass>& classes, RecomputeClass c) {
    auto it = std::find(classes.begin(), classes.end(), c);
    if (it != classes.end()) return static_cast<std::uint8_t>(it - classes.begin());
    classes.push_back(c);
    return static_cast<std::uint8_t>(classes.size() - 1);
}

// Legacy per-stage forms (seed full_recompute / selective_recompute): true for every
// layer, or the first n layers of each stage (of each chunk, for a nested list).
void applyStageCounts(const StageCounts& counts, const Partition& partition, std::uint8_t cls,
                      std::vector<std::uint8_t>& layerClass) {
    const std::size_t chunks = partition.layers.size(), stages = partition.layers.front().size();
    std::size_t layer = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        for (std::size_t s = 0; s < stages; ++s) {
            const std::int64_t held = partition.layers[c][s];
            std::int64_t n = 0;
            if (auto* all = std::get_if<bool>(&counts.value)) n = *all ? held : 0;
            else if (auto* one = std::get_if<std::int64_t>(&counts.value)) n = *one;
            else if (auto* flat = std::get_if<StageCounts::Flat>(&counts.value)) n = s < flat->size() ? (*flat)[s] : 0;
            else if (auto* nested = std::get_if<StageCounts::Nested>(&counts.value))
                n = c < nested->size() && s < (*nested)[c].size() ? (*nested)[c][s] : 0;
            for (std::int64_t i = 0; i < std::min(n, held); ++i)
                if (layer + static_cast<std::size_t>(i) < layerClass.size()) layerClass[layer + static_cast<std::size_t>(i)] = cls;
            layer += static_cast<std::size_t>(held);
        }
    }
}

}  // namespace

ExpertGrid expertGridOf(const Strategy& s) {
    if (std::optional<ExpertGrid> grid = expertGrid(s.tp, s.cp, s.dp, s.ep, s.etp)) return *grid;
    return {s.etp, s.ep, std::max<std::int64_t>(1, s.dp * s.tp * s.cp / std::max<std::int64_t>(1, s.ep * s.etp))};
}

double expertTokenShare(const Strategy& s) {
    const double t = double(s.tp), spd = s.sp ? t : 1.0;
    return std::max(double(s.etp) / t, 1.0 / spd);
}

OpMask selectiveRuleMask(const std::string& rule, bool flash, bool sp) {
    if (rule == "hyperparallel") return kOpAttBmm | kOpAttUp;  // reference §4.7: keeps matmul/attention outputs
    if (rule == "mindformers") {
        OpMask keep = kOpAll;
        if (!flash && sp) keep &= ~kOpAttBmm;
        if (flash) keep &= ~kOpHeadCast;
        if (!flash) keep &= ~kOpSoftmax;
        if (sp) keep &= ~(kOpNorm | kOpFfAct);
        return keep;
    }
    // megatron: the attention core, QK^T, softmax, its dropout and attention over V
    // (Korthikanti et al. 2022 §4.2); Q, K and V stay as the recompute's inputs.
    return kOpAll & ~(kOpSoftmax | kOpHeadCast | kOpScoreDropout);
}

ModelShape modelShape(const ModelSpec& m) {
    ModelShape s;
    s.h = *m.hidden_size;
    s.a = *m.num_attention_heads;
    s.g = *m.num_key_value_heads;
    s.dh = m.head_dim.value_or(m.v_head_dim.value_or(s.h / s.a));
    s.f = m.intermediate_size.value_or(0);
    s.vocab = *m.vocab_size;
    s.maxPositions = m.max_position_embeddings.value_or(0);
    s.experts = m.num_experts.value_or(1);
    s.topK = m.num_experts_per_tok.value_or(1);
    s.groups = m.n_group.value_or(0);
    s.groupTopk = m.topk_group.value_or(0);
    s.expertWidth = m.moe_intermediate_size.value_or(0);
    s.sharedWidth = m.num_shared_experts.value_or(0) > 0 ? m.shared_expert_intermediate_size.value_or(0) : 0;
    s.qLora = m.q_lora_rank.value_or(0);
    s.kvLora = m.kv_lora_rank.value_or(0);
    s.ropeDim = m.qk_rope_head_dim.value_or(0);
    s.nopeDim = m.qk_nope_head_dim.value_or(0);
    s.vDim = m.v_head_dim.value_or(0);
    s.linKeyHeads = m.linear_num_key_heads.value_or(0);
    s.linKeyDim = m.linear_key_head_dim.value_or(0);
    s.linValueHeads = m.linear_num_value_heads.value_or(0);
    s.linValueDim = m.linear_value_head_dim.value_or(0);
    s.linConv = m.linear_conv_kernel_dim.value_or(0);
    s.bodyLayers = *m.num_hidden_layers;
    s.mtpLayers = m.mtp_depth.value_or(0);
    s.gated = *m.gated_mlp;
    s.layerNorm = *m.norm == "layernorm";
    s.learnedPositions = *m.position_embedding == "learned";
    s.tied = *m.tie_word_embeddings;
    s.qkNorm = *m.qk_norm;
    if (s.qkNorm) (m.qk_norm_weight == "projection" ? s.qkNormSplit : s.qkNormReplicated) = qkNormParams(m);
    s.window = m.sliding_window.value_or(0);
    s.chunk = m.attention_chunk_size.value_or(0);
    s.sinks = m.attention_sinks.value_or(false);
    s.sandwichNorms = layerNormCount(m) == 4;
    s.attnBias = *m.attention_bias;
    s.outBias = m.attention_out_bias.value_or(s.attnBias);
    s.mlpBias = *m.mlp_bias;
    s.outputGate = m.attn_output_gate.value_or(false);
    s.routerBias = m.router_bias.value_or(false);
    s.sharedGate = m.shared_expert_gate.value_or(false);
    s.attentionDropout = m.attention_dropout.value_or(0);
    s.hiddenDropout = m.hidden_dropout.value_or(0);
    for (const LayerKind& kind : layerStack(m)) {
        auto it = std::find(s.kinds.begin(), s.kinds.end(), kind);
        if (it == s.kinds.end()) {
            s.kinds.push_back(kind);
            it = s.kinds.end() - 1;
        }
        s.layerKind.push_back(static_cast<std::uint8_t>(it - s.kinds.begin()));
    }
    s.kindPrefix.assign(s.kinds.size(), std::vector<std::int32_t>(s.layerKind.size() + 1, 0));
    for (std::size_t k = 0; k < s.kinds.size(); ++k)
        for (std::size_t i = 0; i < s.layerKind.size(); ++i)
            s.kindPrefix[k][i + 1] = s.kindPrefix[k][i] + (s.layerKind[i] == k ? 1 : 0);
    return s;
}

VisionShape visionShape(const ModelSpec& m, std::int64_t visualTokens) {
    VisionShape v;
    if (!m.vision_hidden_size) return v;
    const VisionParameters p = visionParameters(m);
    v.blocks = *m.vision_depth;
    v.merge = *m.vision_spatial_merge_size * *m.vision_spatial_merge_size;
    v.patchInputs = *m.vision_in_channels * *m.vision_temporal_patch_size * *m.vision_patch_size * *m.vision_patch_size;
    v.outWidth = *m.vision_out_hidden_size;
    v.patchEmbedParams = p.patchEmbed;
    v.mergerParams = p.merger;
    v.tokens = visualTokens;
    v.fullBlocks = m.vision_full_attention_blocks.value_or(v.blocks);
    v.pooled = *m.vision_projector == "pooled_linear";
    v.outerNorms = *m.vision_outer_norms;
    v.outerNormParams = v.outerNorms * (*m.vision_norm == "layernorm" ? 2 : 1) * *m.vision_hidden_size;
    v.projectorWidth = m.vision_projector_width.value_or(0);
    if (m.vision_window_size) {
        const std::int64_t side = *m.vision_window_size / *m.vision_patch_size;
        v.windowPatches = side * side;
    }
    ModelShape& b = v.block;
    b.h = *m.vision_hidden_size;
    b.a = b.g = *m.vision_num_heads;
    b.dh = b.h / b.a;
    b.f = *m.vision_intermediate_size;
    b.bodyLayers = v.blocks;
    b.gated = *m.vision_gated_mlp;
    b.layerNorm = *m.vision_norm == "layernorm";
    b.attnBias = b.outBias = b.mlpBias = *m.vision_bias;
    b.kinds = {LayerKind{AttentionKind::Standard, AttentionSpan::Bidirectional, false, false}};
    return v;
}

const std::vector<CalibrationParameter>& calibrationParameters() {
    static const std::vector<CalibrationParameter> kParameters = {
        {"matmul_ceiling", &DeviceInfo::effMax, &CalibrationSpec::matmul_ceiling, 0.2, 1.0},
        {"matmul_knee_gflop", &DeviceInfo::effHalfGflop, &CalibrationSpec::matmul_knee_gflop, 0.0, 50.0},
        {"hbm_efficiency", &DeviceInfo::hbmEfficiency, &CalibrationSpec::hbm_efficiency, 0.3, 1.0},
        {"intra_link_efficiency", &DeviceInfo::intraLinkEfficiency, &CalibrationSpec::intra_link_efficiency, 0.2, 1.0},
        {"inter_link_efficiency", &DeviceInfo::interLinkEfficiency, &CalibrationSpec::inter_link_efficiency, 0.2, 1.0},
        {"tp_overlap", &DeviceInfo::tpOverlap, &CalibrationSpec::tp_overlap, 0.0, 1.0},
        {"tp_overlap_userbuffers", &DeviceInfo::tpOverlapUserBuffers, &CalibrationSpec::tp_overlap_userbuffers, 0.0, 1.0},
        {"param_gather_overlap", &DeviceInfo::paramGatherOverlap, &CalibrationSpec::param_gather_overlap, 0.0, 1.0},
        {"rank_speed_spread", &DeviceInfo::rankSpeedSpread, &CalibrationSpec::rank_speed_spread, 0.0, 0.15},
    };
    return kParameters;
}

void applyCalibration(const CalibrationSpec& c, DeviceInfo& dev) {
    for (const CalibrationParameter& p : calibrationParameters())
        if (const std::optional<double>& v = c.*(p.slot)) dev.*(p.field) = *v;
}

CostInput runCostInput(const ResolvedScenario& r) {
    const ModelSpec& m = r.scenario.model;
    const ExecSpec& e = r.scenario.exec;
    const DeviceSpec& d = *r.scenario.cluster.device;
    CostInput in;
    in.model = modelShape(m);
    in.vision = visionShape(m, r.scenario.exec.visual_seq_len.value_or(0));
    in.vision.frozen = r.scenario.exec.freeze_vision_tower.value_or(false);

    DeviceInfo& dev = in.device;
    dev.name = *d.name;
    dev.memory = *d.memory;
    if (*e.compute_dtype == "fp8") {
        dev.peakFlops = d.peak_tflops->at("bf16") * 1e12;
        dev.fp8PeakFlops = d.peak_tflops->at(*e.fp8_recipe == "mxfp8" ? "mxfp8" : "fp8") * 1e12;
    } else {
        dev.peakFlops = d.peak_tflops->at(*e.compute_dtype) * 1e12;
    }
    dev.hbmBytesPerSecond = *d.hbm_bandwidth_gbps * 1e9;
    dev.sms = d.sms.value_or(0);
    dev.intraBytesPerSecond = *d.intra_node_bandwidth_gbps * 1e9;
    const ClusterSpec& cl = r.scenario.cluster;
    dev.interBytesPerSecond = *d.inter_node_bandwidth_gbps * 1e9 * cl.nics_per_device.value_or(1.0);
    dev.perNode = cl.nvlink_domain.value_or(*d.devices_per_node);
    dev.leafDevices = cl.leaf_devices.value_or(dev.leafDevices);
    dev.oversubscription = cl.oversubscription.value_or(1.0);
    dev.rankSpeedSpread = cl.rank_speed_spread.value_or(0.0);  // resolve fills it from a calibration that fits it
    dev.devices = cl.devices.value_or(1);
    dev.hostLinkBytesPerSecond = d.host_link_gbps.value_or(0) * 1e9;
    dev.hostMemoryBytesPerSecond = d.host_memory_gbps.value_or(0) * 1e9;
    const EfficiencyCurve curve = efficiencyCurve(dev.name);
    dev.effMax = curve.effMax;
    dev.effHalfGflop = curve.halfGflop;
    dev.builtInEffMax = curve.effMax;
    dev.builtInEffHalfGflop = curve.halfGflop;
    if (const auto& cal = r.scenario.calibration) applyCalibration(*cal, dev);

    RunSettings& run = in.run;
    run.paramBytes = double(*e.param_bytes);
    run.computeBytes = double(*e.compute_bytes);
    run.softmaxBytes = double(*e.softmax_bytes);
    run.gradBytes = double(*e.grad_bytes);
    run.stateBytes = double(*e.optimizer_state_bytes);
    run.mainBytes = double(*e.main_param_bytes);
    run.normBytes = double(*e.norm_bytes);
    run.dropoutBytes = double(*e.dropout_bytes);
    run.optimizerStates = *e.optimizer_states;
    run.seq = *e.seq_length;
    run.frozen = *e.frozen;
    run.lossParallel = *e.loss_parallel;
    run.groupedGemm = *e.grouped_gemm;
    run.activationFp8Input = *e.activation_func_fp8_input_store;
    run.capacityFactor = *e.grouped_gemm ? 1.0 : e.capacity_factor.value_or(1.0);  // dropless: no capacity (priced.h)
    run.sliceRecomputeInput = *e.recompute_slice_activation || *e.shard_activations;
    run.shardActivations = *e.shard_activations;
    run.gradientsHeld = e.grad_accumulation.value_or(true);  // a search's base has no strategy to derive it from
    run.deferredGradAccumulation = *e.deferred_grad_accumulation;
    run.overlappedGradReduce = *e.overlapped_grad_reduce;
    run.overlapParamGather = *e.overlap_param_gather;
    run.gradClip = *e.grad_clip;
    run.postValidation = *e.optimizer_post_validation;
    run.vocabEmbDp = *e.vocab_emb_dp;
    run.tiedTables = *e.tie_embeddings;
    run.shardMtpParams = *e.shard_mtp_param;
    run.memoryBudget = e.device_memory.value_or(dev.memory);
    run.reserve = *e.memory_reserve;
    if (const auto* all = std::get_if<std::int64_t>(&e.activation_offload->value)) run.activationOffload = *all;
    run.hostLinkOverlap = *e.host_link_overlap;
    run.optimizerOffload = *e.optimizer_offload;
    run.optimizerOffloadOverlap = *e.optimizer_offload_overlap;
    run.overlapExpertComm = *e.overlap_moe_expert_parallel_comm;
    run.twoStepDispatch = *e.moe_enable_deepep;
    run.deepepSms = *e.moe_enable_deepep ? e.moe_deepep_sms.value_or(0) : 0;
    run.seqSplit = e.seq_split.value_or(1);
    if (*e.compute_dtype == "fp8") {
        const std::string& recipe = *e.fp8_recipe;
        run.fp8 = recipe == "tensorwise" ? Fp8Recipe::Tensorwise : recipe == "blockwise" ? Fp8Recipe::Blockwise
                : recipe == "mxfp8"      ? Fp8Recipe::Mxfp8      : Fp8Recipe::Delayed;
    }
    run.fp8Attention = *e.fp8_attention;
    run.attentionOutE5m6 = *e.attention_output_e5m6;
    run.fp8Params = *e.fp8_params;
    run.fp8ReduceScatter = *e.fp8_reduce_scatter;
    Strategy& st = in.strategy;
    for (std::size_t i = 0; i < st.rankOrder.size(); ++i) {
        const std::string& dim = (*r.scenario.cluster.rank_order)[i];
        st.rankOrder[i] = dim == "tp" ? RankDim::Tp : dim == "cp" ? RankDim::Cp : dim == "ep" ? RankDim::Ep
                        : dim == "dp" ? RankDim::Dp : RankDim::Pp;
    }
    st.flash = *e.flash_attention;
    st.tpCommOverlap = *e.tp_comm_overlap;
    st.cpAlgorithm = *e.cp_algo == "ulysses_cp" ? CpAlgorithm::AllToAll
                     : *e.cp_algo == "hybrid_cp" ? CpAlgorithm::Hybrid
                                                 : CpAlgorithm::Ring;
    st.mtpOnStages = *e.mtp_in_offset;
    // Run switches a search does not vary (searchAxes() marks them unsearched).
    st.reshard = *e.reshard_params;
    st.shardSpansCp = *e.shard_spans_cp;
    return in;
}

CostInput costInput(const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    CostInput in = runCostInput(r);
    Strategy& st = in.strategy;
    st.dp = *e.dp, st.tp = *e.tp, st.pp = *e.pp, st.vpp = *e.vpp, st.cp = *e.cp, st.ep = *e.ep;
    st.etp = expertTp(e);
    st.mbs = *e.micro_batch_size, st.mbn = *e.micro_batch_num;
    st.sp = *e.sequence_parallel;
    st.optimizerSharded = *e.optimizer_parallel;
    st.gradSharded = *e.grad_shard;
    st.fsdp = *e.grad_shard_as_params;
    st.optimizerShard = st.optimizerSharded ? *e.optimizer_shard : 1;
    st.expertShard = st.optimizerSharded ? e.expert_shard.value_or(expertGridOf(st).dp) : 1;
    st.schedule = scheduleNamed(*e.pp_schedule);
    st.overlapP2p = e.overlap_p2p_comm.value_or(interleavesChunks(st.schedule));  // a search base leaves it unstated
    st.partition = r.partition.layers;
    st.visionBlocks = r.visionBlocks;
    if (const auto* perStage = std::get_if<StageCounts::Flat>(&e.activation_offload->value)) st.activationOffload = *perStage;

    // Recompute classes per layer in model order.
    const std::size_t layers = in.model.layerKind.size();
    st.layerClass.assign(layers, 0);
    const OpMask rule = selectiveRuleMask(*e.selective_rule, st.flash, st.sp);
    if (e.recompute) {
        for (const RecomputeRange& range : *e.recompute) {
            RecomputeClass c;
            if (range.option == "full") c.mode = RecomputeClass::Full;
            if (range.option == "selective") {
                c.mode = RecomputeClass::Selective;
                c.keep = rule;
                if (range.ops) {
                    c.keep = kOpAll;  // an op a range does not name is kept (seed RecomputeRange.ops)
                    for (const auto& [op, state] : *range.ops)
                        if (state == "recompute") c.keep &= ~opBits(op);
                }
            }
            const std::uint8_t cls = classIndex(st.classes, c);
            const std::size_t first = static_cast<std::size_t>(range.first);
            const std::size_t end = range.count ? first + static_cast<std::size_t>(*range.count) : layers;
            for (std::size_t i = first; i < std::min(end, layers); ++i) st.layerClass[i] = cls;
        }
    } else {
        // The seed ignores selective_recompute whenever full_recompute is stated
        // (reference §10.11); Tessera applies both, full first, so a stage's
        // remaining layers can still recompute selectively.
        if (e.selective_recompute)
            applyStageCounts(*e.selective_recompute, r.partition,
                             classIndex(st.classes, {RecomputeClass::Selective, rule}), st.layerClass);
        if (e.full_recompute)
            applyStageCounts(*e.full_recompute, r.partition, classIndex(st.classes, {RecomputeClass::Full, kOpAll}),
                             st.layerClass);
    }
    // MindFormers' selective_comm_recompute: these layers re-gather their sequence-
    // parallel inputs in backward instead of keeping them gathered (time only: what
    // they keep is the sharded input either way, layercost.h).
    if (e.selective_comm_recompute) {
        std::vector<std::uint8_t> marked(layers, 0);
        applyStageCounts(*e.selective_comm_recompute, r.partition, 1, marked);
        for (std::size_t i = 0; i < layers; ++i) {
            if (!marked[i]) continue;
            RecomputeClass c = st.classes[st.layerClass[i]];
            c.keep &= static_cast<OpMask>(~kOpGather);
            st.layerClass[i] = classIndex(st.classes, c);
        }
    }
    return in;
}

}  // namespace tessera::core
