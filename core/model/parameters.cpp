#include "model/parameters.h"

#include <algorithm>

namespace tessera::core {

namespace {

std::int64_t normParams(const ModelSpec& m, std::int64_t width) { return *m.norm == "layernorm" ? 2 * width : width; }

// An MLP of width w: gate/up/down (gated) or up/down (plain), with biases.
std::int64_t mlpParams(const ModelSpec& m, std::int64_t width) {
    const std::int64_t h = *m.hidden_size;
    const std::int64_t inputs = *m.gated_mlp ? 2 : 1;
    std::int64_t p = (inputs + 1) * h * width;
    if (*m.mlp_bias) p += inputs * width + h;
    return p;
}

}  // namespace

std::int64_t qkNormParams(const ModelSpec& m) {
    const std::int64_t a = *m.num_attention_heads, g = *m.num_key_value_heads, d = *m.head_dim;
    const std::string weight = m.qk_norm_weight.value_or("head");  // a copy: a view of value_or's temporary dangles
    if (weight == "none") return 0;
    if (weight == "projection") return normParams(m, a * d) + normParams(m, g * d);
    return 2 * normParams(m, d);  // one norm of a head's width for queries, one for keys
}

std::int64_t layerNormCount(const ModelSpec& m) { return m.norm_placement.value_or("pre") == "sandwich" ? 4 : 2; }

namespace {

std::int64_t standardAttention(const ModelSpec& m) {
    const std::int64_t h = *m.hidden_size, a = *m.num_attention_heads, g = *m.num_key_value_heads, d = *m.head_dim;
    const std::int64_t q = a * d * (m.attn_output_gate.value_or(false) ? 2 : 1);
    std::int64_t p = h * q + 2 * h * g * d + a * d * h;
    if (*m.attention_bias) p += q + 2 * g * d;
    if (m.attention_out_bias.value_or(*m.attention_bias)) p += h;
    if (*m.qk_norm) p += qkNormParams(m);
    if (m.attention_sinks.value_or(false)) p += a;  // one sink logit per head
    return p;
}

// DeepSeek-V2/V3 multi-head latent attention (Transformers' DeepseekV3Attention).
std::int64_t mlaAttention(const ModelSpec& m) {
    const std::int64_t h = *m.hidden_size, a = *m.num_attention_heads;
    const std::int64_t cq = *m.q_lora_rank, ckv = *m.kv_lora_rank, rope = *m.qk_rope_head_dim,
                       nope = *m.qk_nope_head_dim, v = *m.v_head_dim;
    const bool bias = *m.attention_bias;
    std::int64_t p = 0;
    if (cq > 0) p += h * cq + (bias ? cq : 0) + normParams(m, cq) + cq * a * (nope + rope);
    else p += h * a * (nope + rope);
    p += h * (ckv + rope) + (bias ? ckv + rope : 0) + normParams(m, ckv) + ckv * a * (nope + v);
    p += a * v * h + (bias ? h : 0);
    return p;
}

// Gated DeltaNet (Transformers' Qwen3NextGatedDeltaNet).
std::int64_t linearAttention(const ModelSpec& m) {
    const std::int64_t h = *m.hidden_size, nk = *m.linear_num_key_heads, dk = *m.linear_key_head_dim,
                       nv = *m.linear_num_value_heads, dv = *m.linear_value_head_dim, conv = *m.linear_conv_kernel_dim;
    const std::int64_t keyDim = nk * dk, valueDim = nv * dv;
    return h * (2 * keyDim + 2 * valueDim)  // in_proj_qkvz
           + h * 2 * nv                      // in_proj_ba
           + (2 * keyDim + valueDim) * conv  // depthwise conv1d, no bias
           + 2 * nv                          // dt_bias, A_log
           + dv                              // gated RMSNorm over a value head
           + valueDim * h;                   // out_proj
}

}  // namespace

std::string LayerKind::name() const {
    std::string out = mtp ? "mtp_" : "";
    if (attention == AttentionKind::Linear) out += "linear_";
    if (span == AttentionSpan::Sliding) out += "sliding_";
    if (span == AttentionSpan::Chunked) out += "chunked_";
    if (span == AttentionSpan::Bidirectional) out += "vision_";
    return out + (moe ? "moe" : "dense");
}

std::vector<LayerKind> layerStack(const ModelSpec& m) {
    std::vector<LayerKind> stack;
    const std::int64_t layers = *m.num_hidden_layers;
    const bool moe = m.num_experts.value_or(1) > 1;
    const AttentionKind full = m.kv_lora_rank ? AttentionKind::Mla : AttentionKind::Standard;
    for (std::int64_t i = 0; i < layers; ++i) {
        LayerKind kind;
        const std::size_t at = static_cast<std::size_t>(i);
        const std::string_view type = m.layer_types ? std::string_view((*m.layer_types)[at]) : "full_attention";
        kind.attention = type == "linear_attention" ? AttentionKind::Linear : full;
        if (type == "sliding_attention") kind.span = AttentionSpan::Sliding;
        if (type == "chunked_attention") kind.span = AttentionSpan::Chunked;
        // Stated per layer, else DeepSeek's placement: MoE from first_k_dense_replace on,
        // every moe_layer_freq-th layer.
        if (m.mlp_layer_types) kind.moe = moe && (*m.mlp_layer_types)[at] == "moe";
        else kind.moe = moe && i >= m.first_k_dense_replace.value_or(0) && i % m.moe_layer_freq.value_or(1) == 0;
        stack.push_back(kind);
    }
    // MTP layers repeat the last body layer's kind (seed AP/_layer_stack.py).
    for (std::int64_t i = 0; i < m.mtp_depth.value_or(0); ++i) {
        LayerKind kind = stack.empty() ? LayerKind{} : stack.back();
        kind.mtp = true;
        stack.push_back(kind);
    }
    return stack;
}

LayerParameters layerParameters(const ModelSpec& m, const LayerKind& kind) {
    const std::int64_t h = *m.hidden_size;
    LayerParameters p;
    switch (kind.attention) {
    case AttentionKind::Standard: p.attention = standardAttention(m); break;
    case AttentionKind::Mla: p.attention = mlaAttention(m); break;
    case AttentionKind::Linear: p.attention = linearAttention(m); break;
    }
    if (kind.moe) {
        const std::int64_t e = *m.num_experts;
        p.router = h * e + (*m.router_bias ? e : 0);
        p.routedExperts = e * mlpParams(m, *m.moe_intermediate_size);
        if (*m.num_shared_experts > 0)
            p.sharedExperts = mlpParams(m, *m.shared_expert_intermediate_size) + (*m.shared_expert_gate ? h : 0);
    } else {
        p.mlp = mlpParams(m, *m.intermediate_size);
    }
    p.norms = layerNormCount(m) * normParams(m, h);
    if (kind.mtp) p.mtpExtra = 2 * normParams(m, h) + 2 * h * h + normParams(m, h);  // enorm, hnorm, eh_proj, final norm
    return p;
}

VisionParameters visionParameters(const ModelSpec& m) {
    VisionParameters p;
    if (!m.vision_hidden_size) return p;
    const std::int64_t hv = *m.vision_hidden_size, f = *m.vision_intermediate_size, merged = hv * *m.vision_spatial_merge_size *
                                                                                          *m.vision_spatial_merge_size;
    const bool bias = *m.vision_bias;
    const std::int64_t norm = *m.vision_norm == "layernorm" ? 2 * hv : hv;
    // Patch embedding (a convolution over channels · frames · patch² inputs), its bias
    // (SigLIP) and a learned position table (SigLIP's, Gemma 3).
    p.patchEmbed = *m.vision_in_channels * *m.vision_temporal_patch_size * *m.vision_patch_size * *m.vision_patch_size * hv +
                   (*m.vision_patch_bias ? hv : 0) + *m.vision_position_embeddings * hv + (*m.vision_class_token ? hv : 0);
    const std::int64_t inputs = *m.vision_gated_mlp ? 2 : 1;
    p.perBlock = 2 * norm + 3 * hv * hv + hv * hv + (inputs + 1) * hv * f + (bias ? 3 * hv + hv + inputs * f + hv : 0);
    p.blocks = *m.vision_depth;
    const std::int64_t out = *m.vision_out_hidden_size;
    if (*m.vision_projector == "pooled_linear") {  // Gemma3MultiModalProjector: RMSNorm(hv), then hv -> out, no bias
        p.merger = hv + hv * out;
    } else if (*m.vision_projector == "shuffle_mlp") {  // Llama4VisionMLP2 merged -> w -> w, then linear_1 w -> out
        const std::int64_t w = *m.vision_projector_width;
        p.merger = merged * w + w * w + w * out;
    } else {  // PatchMerger: a norm over hv, then merged -> merged -> out
        p.merger = norm + merged * merged + merged * out + (bias ? merged + out : 0);
    }
    // Norms outside the blocks (SigLIP's post_layernorm; Llama 4's pre and post), counted
    // with the patch embedding: whole on every TP rank, as it is (the merger splits over TP).
    p.patchEmbed += *m.vision_outer_norms * norm;
    return p;
}

ParameterCount countParameters(const ModelSpec& m) {
    ParameterCount c;
    const std::int64_t h = *m.hidden_size, v = *m.vocab_size;
    c.embedding = v * h;
    if (*m.position_embedding == "learned") c.positions = *m.max_position_embeddings * h;
    c.norms = normParams(m, h);  // final norm
    c.output = *m.tie_word_embeddings ? 0 : v * h;
    std::int64_t activeExperts = 0;
    for (const LayerKind& kind : layerStack(m)) {
        const LayerParameters p = layerParameters(m, kind);
        if (kind.mtp) {
            c.mtp += p.total();
        } else {
            c.attention += p.attention;
            c.mlp += p.mlp;
            c.router += p.router;
            c.routedExperts += p.routedExperts;
            c.sharedExperts += p.sharedExperts;
            c.norms += p.norms;
            if (kind.moe) activeExperts += p.routedExperts / *m.num_experts * *m.num_experts_per_tok;
        }
        auto it = std::find_if(c.byLayerKind.begin(), c.byLayerKind.end(), [&](const KindCount& k) { return k.kind == kind; });
        if (it == c.byLayerKind.end()) c.byLayerKind.push_back({kind, 1, p.total()});
        else ++it->layers;
    }
    c.vision = visionParameters(m).total();
    c.active = c.body() - c.routedExperts + activeExperts;
    return c;
}

}  // namespace tessera::core
