// Model resolution: family defaults, derivations HF configs imply, and the rules
// a model must keep whatever it is run with (reference/hyperparallel.md §2.3-2.4).
#include <algorithm>
#include <cstdio>
#include <tuple>
#include <utility>

#include "io/presets.h"
#include "resolve/resolver.h"

namespace tessera::core::detail {

namespace {

// Family keys that mean nothing for a model without the feature they describe.
const std::vector<std::string_view> kMoeKeys = {"num_shared_experts", "first_k_dense_replace", "moe_layer_freq",
                                                "router_bias", "shared_expert_gate", "n_group",
                                                "topk_group"};
const std::vector<std::string_view> kMlaKeys = {"v_head_dim"};
const std::vector<std::string_view> kLinearKeys = {"attn_output_gate"};

std::string num(std::int64_t n) { return std::to_string(n); }

// Model sizes come from files as any whole number up to 2^63-1, and the cost model
// multiplies them in int64: hidden_size 2^62 was counted as a negative number of
// parameters (tests/data/fuzz/guardrails/hidden-size-2e62.yaml), and 4·hidden_size
// and num_shared_experts · moe_intermediate_size overflow here first. So every size
// is capped far above any real model (2^31-1, which keeps a product of two in
// int64), the layers at 2^20 (the cost model keeps a table entry per layer), and the
// parameter count - bounded from above in double before anything counts it
// exactly - at 2^53, where int64 and double both stay exact.
constexpr std::int64_t kMaxModelSize = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kMaxLayers = std::int64_t{1} << 20;
constexpr double kMaxParameters = 9007199254740992.0;  // 2^53

// Refuses every integer field of a model above kMaxModelSize (a field-table visitor).
struct SizeCap {
    Resolver& r;
    void integer(Field f, const std::optional<std::int64_t>& v, IntRange) {
        if (v && *v > kMaxModelSize)
            r.refuse("model." + std::string(f.key), "at most " + withThousands(kMaxModelSize) + " is modelled, got " + num(*v));
    }
    template <class... A> void real(Field, A&&...) {}
    template <class... A> void flag(Field, A&&...) {}
    template <class... A> void text(Field, A&&...) {}
    template <class... A> void choice(Field, A&&...) {}
    template <class... A> void textList(Field, A&&...) {}
    template <class... A> void memory(Field, A&&...) {}
    template <class... A> void numberMap(Field, A&&...) {}
    template <class... A> void stageCounts(Field, A&&...) {}
    template <class... A> void ranges(Field, A&&...) {}
};

// More than model/parameters.cpp counts, whatever the layer kinds: every layer as if
// it held each attention form's widest matrix and every MLP at once. Each matrix is
// at most W·W for the widest width W, and a layer holds fewer than 40 + 8·experts of
// them (biases and norms included, each at most W); the tables are V·h (twice when
// untied) and positions·h.
double parameterBound(const ModelSpec& m) {
    auto d = [](const std::optional<std::int64_t>& v) { return double(v.value_or(0)); };
    const double h = d(m.hidden_size), a = d(m.num_attention_heads), g = d(m.num_key_value_heads), dh = d(m.head_dim);
    const double rope = d(m.qk_rope_head_dim), nope = d(m.qk_nope_head_dim), v = d(m.v_head_dim);
    const double keys = d(m.linear_num_key_heads) * d(m.linear_key_head_dim);
    const double values = d(m.linear_num_value_heads) * d(m.linear_value_head_dim);
    const double widths[] = {h, d(m.intermediate_size), d(m.moe_intermediate_size), d(m.shared_expert_intermediate_size),
                             2 * a * dh, g * dh, d(m.q_lora_rank), d(m.kv_lora_rank) + rope, a * (nope + rope),
                             a * (nope + v), 2 * keys + 2 * values + 2 * d(m.linear_num_value_heads),
                             d(m.linear_conv_kernel_dim)};
    const double w = *std::max_element(std::begin(widths), std::end(widths));
    const double layers = d(m.num_hidden_layers) + d(m.mtp_depth), experts = std::max(1.0, d(m.num_experts));
    // The vision tower: its blocks, patch embedding and merger, each matrix at most its widest width squared.
    const double merge = d(m.vision_spatial_merge_size) * d(m.vision_spatial_merge_size);
    const double vw = std::max({d(m.vision_hidden_size) * merge, d(m.vision_intermediate_size), d(m.vision_out_hidden_size),
                                d(m.vision_in_channels) * d(m.vision_temporal_patch_size) * d(m.vision_patch_size) * d(m.vision_patch_size)});
    return layers * (40 + 8 * experts) * w * w + (2 * d(m.vocab_size) + d(m.max_position_embeddings) + 2) * h +
           (d(m.vision_depth) + 4) * 40 * vw * vw + d(m.vision_position_embeddings) * d(m.vision_hidden_size) +
           3 * d(m.vision_projector_width) * (d(m.vision_projector_width) + vw);
}

}  // namespace

// A window or chunk size is stated exactly when some layer uses it. sliding_window
// without layer_types windows every layer, as Transformers' Mistral and Phi-3 read it.
void Resolver::resolveAttentionSpans(ModelSpec& m) {
    auto uses = [&](std::string_view type) {
        return m.layer_types && std::find(m.layer_types->begin(), m.layer_types->end(), type) != m.layer_types->end();
    };
    if (m.sliding_window && !m.layer_types)
        fill("model.layer_types", m.layer_types,
             std::vector<std::string>(static_cast<std::size_t>(*m.num_hidden_layers), "sliding_attention"), Origin::Derived,
             "sliding_window without layer_types: every layer attends within the window (Transformers' Mistral, Phi-3)");
    for (auto [type, key, size] : {std::tuple{"sliding_attention", "sliding_window", &m.sliding_window},
                                   {"chunked_attention", "attention_chunk_size", &m.attention_chunk_size}}) {
        if (uses(type) && !*size) refuse(std::string("model.") + key, std::string("required: layer_types has ") + type + " layers");
        else if (!uses(type) && *size)
            refuse(std::string("model.") + key, std::string("is stated, but no layer of layer_types is ") + type);
    }
}

// A vision tower is stated whole or not at all; the two inputs every image has are
// filled (one frame per patch, three colour channels) and shown as filled.
void Resolver::resolveVision(ModelSpec& m) {
    const std::pair<const char*, bool> fields[] = {
        {"vision_hidden_size", m.vision_hidden_size.has_value()}, {"vision_depth", m.vision_depth.has_value()},
        {"vision_num_heads", m.vision_num_heads.has_value()}, {"vision_intermediate_size", m.vision_intermediate_size.has_value()},
        {"vision_out_hidden_size", m.vision_out_hidden_size.has_value()}, {"vision_patch_size", m.vision_patch_size.has_value()},
        {"vision_spatial_merge_size", m.vision_spatial_merge_size.has_value()},
        {"vision_gated_mlp", m.vision_gated_mlp.has_value()}, {"vision_bias", m.vision_bias.has_value()},
        {"vision_norm", m.vision_norm.has_value()}};
    const bool any = std::any_of(std::begin(fields), std::end(fields), [](const auto& f) { return f.second; }) ||
                     m.vision_temporal_patch_size || m.vision_in_channels || m.vision_window_size ||
                     m.vision_full_attention_blocks || m.vision_projector || m.vision_position_embeddings ||
                     m.vision_patch_bias || m.vision_outer_norms || m.vision_class_token || m.vision_projector_width;
    if (!any) return;
    for (auto [key, stated] : fields)
        if (!stated) refuse(std::string("model.") + key, "required: the model states a vision tower (vision_* fields)");
    fill("model.vision_temporal_patch_size", m.vision_temporal_patch_size, std::int64_t{1}, Origin::Default, "one frame per patch");
    fill("model.vision_in_channels", m.vision_in_channels, std::int64_t{3}, Origin::Default, "RGB images");
    // The shape of the towers priced first (Qwen2-VL, Qwen2.5-VL), each said as filled.
    fill("model.vision_projector", m.vision_projector, std::string("merger"), Origin::Default, "Qwen2-VL's PatchMerger");
    fill("model.vision_position_embeddings", m.vision_position_embeddings, std::int64_t{0}, Origin::Default,
         "no learned position table (rotary positions, as Qwen2-VL)");
    fill("model.vision_patch_bias", m.vision_patch_bias, false, Origin::Default, "patch embedding without bias (Qwen2-VL)");
    fill("model.vision_outer_norms", m.vision_outer_norms, std::int64_t{0}, Origin::Default, "no norm outside the blocks (Qwen2-VL)");
    fill("model.vision_class_token", m.vision_class_token, false, Origin::Default, "no class token (Qwen2-VL)");
    if (m.vision_projector && (*m.vision_projector == "shuffle_mlp") != m.vision_projector_width.has_value())
        refuse("model.vision_projector_width", m.vision_projector_width ? "is stated, but vision_projector is not shuffle_mlp"
                                                                        : "required: vision_projector shuffle_mlp has an MLP of this width");
    if (m.vision_hidden_size && m.vision_num_heads && *m.vision_hidden_size % *m.vision_num_heads != 0)
        refuse("model.vision_num_heads", "must divide vision_hidden_size (" + num(*m.vision_hidden_size) + "), got " +
                                             num(*m.vision_num_heads));
    // Windowed blocks: the window and how many blocks stay full come together.
    if (m.vision_window_size.has_value() != m.vision_full_attention_blocks.has_value())
        refuse(m.vision_window_size ? "model.vision_full_attention_blocks" : "model.vision_window_size",
               "windowed vision blocks need both vision_window_size and vision_full_attention_blocks");
    if (m.vision_full_attention_blocks && m.vision_depth && *m.vision_full_attention_blocks > *m.vision_depth)
        refuse("model.vision_full_attention_blocks", "must be at most vision_depth (" + num(*m.vision_depth) + "), got " +
                                                         num(*m.vision_full_attention_blocks));
    if (m.vision_window_size && m.vision_patch_size && *m.vision_window_size % *m.vision_patch_size != 0)
        refuse("model.vision_window_size", "must be a multiple of vision_patch_size (" + num(*m.vision_patch_size) + "), got " +
                                               num(*m.vision_window_size));
    if (m.vision_out_hidden_size && m.hidden_size && *m.vision_out_hidden_size != *m.hidden_size)
        refuse("model.vision_out_hidden_size", "the merger's tokens enter the language model: must equal hidden_size (" +
                                                   num(*m.hidden_size) + "), got " + num(*m.vision_out_hidden_size));
}

void Resolver::resolveModel() {
    ModelSpec& m = model();
    // The four sizes every model states (seed ModelSpec rule 1); no family gives them,
    // so they are asked for whether or not the family is known.
    bool sized = true;
    for (auto [key, field] : {std::pair{"hidden_size", &m.hidden_size}, {"num_hidden_layers", &m.num_hidden_layers},
                              {"num_attention_heads", &m.num_attention_heads}, {"vocab_size", &m.vocab_size}}) {
        if (!*field) refuse(std::string("model.") + key, "required: every model states it"), sized = false;
    }
    if (!m.arch) {
        std::string families;
        for (std::string_view f : modelFamilies()) families += (families.empty() ? "" : ", ") + std::string(f);
        refuse("model.arch", "required: the architecture family whose defaults fill unstated fields (" + families + ")");
        return;
    }
    const bool moe = isMoe(m);
    std::vector<std::string_view> skip;
    if (!moe) skip.insert(skip.end(), kMoeKeys.begin(), kMoeKeys.end());
    if (!isMla(m)) skip.insert(skip.end(), kMlaKeys.begin(), kMlaKeys.end());
    const bool hasLinear = m.layer_types && std::find(m.layer_types->begin(), m.layer_types->end(), "linear_attention") != m.layer_types->end();
    if (!hasLinear) skip.insert(skip.end(), kLinearKeys.begin(), kLinearKeys.end());
    if (moe && !m.num_shared_experts.value_or(0) && !m.shared_expert_intermediate_size) skip.push_back("shared_expert_gate");
    if (m.qk_norm == false) skip.push_back("qk_norm_weight");
    // A stated per-layer MLP layout places every MoE layer: DeepSeek's two keys say
    // nothing more, and stating them beside it is refused rather than reconciled.
    if (m.mlp_layer_types) {
        for (auto [key, stated] : {std::pair{"first_k_dense_replace", m.first_k_dense_replace.has_value()},
                                   {"moe_layer_freq", m.moe_layer_freq.has_value()}})
            if (stated) refuse(std::string("model.") + key, "is stated beside mlp_layer_types, which places every layer's MLP; state one");
        skip.insert(skip.end(), {"first_k_dense_replace", "moe_layer_freq"});
    }
    if (std::optional<Value> family = familyDefaults(*m.arch))
        fillFrom(m, *family, "model", Origin::Family, "family " + *m.arch, skip);

    // What the family should give; a family that does not must be answered by the file.
    auto needFlag = [&](const char* key, bool present) {
        if (!present)
            refuse(std::string("model.") + key, "required: neither the file nor family " + *m.arch + " states it");
    };
    needFlag("hidden_act", m.hidden_act.has_value());
    needFlag("gated_mlp", m.gated_mlp.has_value());
    needFlag("norm", m.norm.has_value());
    needFlag("position_embedding", m.position_embedding.has_value());
    needFlag("attention_bias", m.attention_bias.has_value());
    needFlag("mlp_bias", m.mlp_bias.has_value());
    needFlag("tie_word_embeddings", m.tie_word_embeddings.has_value());
    needFlag("qk_norm", m.qk_norm.has_value());
    if (m.qk_norm == true) fill("model.qk_norm_weight", m.qk_norm_weight, std::string("head"), Origin::Derived, "one head's width (Qwen3's q_norm and k_norm)");
    else if (m.qk_norm_weight) refuse("model.qk_norm_weight", "is stated, but qk_norm is false");
    fill("model.norm_placement", m.norm_placement, std::string("pre"), Origin::Derived, "a norm before each sublayer");
    fill("model.attention_sinks", m.attention_sinks, false, Origin::Derived, "no sink logits stated");
    if (!sized) return;
    // Sizes first: the rules and derivations below multiply them.
    const std::size_t before = diagnostics().size();
    SizeCap cap{*this};
    visit(std::as_const(m), cap);
    if (diagnostics().size() != before) return;
    if (*m.num_hidden_layers + m.mtp_depth.value_or(0) > kMaxLayers) {  // both under 2^31 now
        refuse("model.num_hidden_layers", "at most " + withThousands(kMaxLayers) + " layers (body and MTP) are modelled, got " +
                                              num(*m.num_hidden_layers + m.mtp_depth.value_or(0)));
        return;
    }
    const std::int64_t h = *m.hidden_size, a = *m.num_attention_heads, layers = *m.num_hidden_layers;

    if (m.attention_bias) fill("model.attention_out_bias", m.attention_out_bias, *m.attention_bias, Origin::Derived, "attention_bias");
    fill("model.num_key_value_heads", m.num_key_value_heads, a, Origin::Derived,
         "num_attention_heads (multi-head attention, as Transformers reads an unstated num_key_value_heads)");
    if (a % *m.num_key_value_heads != 0)
        refuse("model.num_key_value_heads", "must divide num_attention_heads (" + num(a) + "), got " + num(*m.num_key_value_heads));

    if (isMla(m)) {
        if (!m.q_lora_rank) refuse("model.q_lora_rank", "required for MLA (state 0 to project queries directly)");
        if (!m.qk_rope_head_dim) refuse("model.qk_rope_head_dim", "required for MLA: the rotary part of a query/key head");
        if (!m.qk_nope_head_dim) refuse("model.qk_nope_head_dim", "required for MLA: the non-rotary part of a query/key head");
        if (!m.v_head_dim) refuse("model.v_head_dim", "required for MLA: the value head width");
    } else if (!m.head_dim) {
        if (h % a != 0)
            refuse("model.head_dim", "required: hidden_size (" + num(h) + ") is not a multiple of num_attention_heads (" + num(a) + ")");
        else fill("model.head_dim", m.head_dim, h / a, Origin::Derived, "hidden_size / num_attention_heads");
    }

    if (m.position_embedding == "learned" && !m.max_position_embeddings)
        refuse("model.max_position_embeddings", "required: learned positions need a table of this many rows");

    if (m.layer_types) {
        if (static_cast<std::int64_t>(m.layer_types->size()) != layers)
            refuse("model.layer_types", "lists " + num(static_cast<std::int64_t>(m.layer_types->size())) +
                                            " layers, but num_hidden_layers is " + num(layers));
        if (hasLinear) {
            for (auto [key, field] : {std::pair{"linear_num_key_heads", &m.linear_num_key_heads},
                                      {"linear_key_head_dim", &m.linear_key_head_dim},
                                      {"linear_num_value_heads", &m.linear_num_value_heads},
                                      {"linear_value_head_dim", &m.linear_value_head_dim},
                                      {"linear_conv_kernel_dim", &m.linear_conv_kernel_dim}})
                if (!*field) refuse(std::string("model.") + key, "required: layer_types has linear_attention layers");
        }
    }
    resolveAttentionSpans(m);
    resolveVision(m);
    if (m.mlp_layer_types && static_cast<std::int64_t>(m.mlp_layer_types->size()) != layers)
        refuse("model.mlp_layer_types", "lists " + num(static_cast<std::int64_t>(m.mlp_layer_types->size())) +
                                            " layers, but num_hidden_layers is " + num(layers));

    bool denseLayers = !moe;
    if (moe) {
        const std::int64_t e = *m.num_experts;
        if (!m.num_experts_per_tok) refuse("model.num_experts_per_tok", "required for a mixture of experts: the top-k");
        else if (*m.num_experts_per_tok > e)
            refuse("model.num_experts_per_tok", "must be at most num_experts (" + num(e) + "), got " + num(*m.num_experts_per_tok));
        if (!m.moe_intermediate_size) {
            if (m.intermediate_size)
                fill("model.moe_intermediate_size", m.moe_intermediate_size, *m.intermediate_size, Origin::Derived,
                     "intermediate_size (experts run at the dense width, as in Mixtral)");
            else refuse("model.moe_intermediate_size", "required: state moe_intermediate_size, or intermediate_size if the experts run at the dense width");
        }
        fill("model.num_shared_experts", m.num_shared_experts, std::int64_t{0}, Origin::Derived, "no shared experts stated");
        if (m.mlp_layer_types) {
            denseLayers = std::find(m.mlp_layer_types->begin(), m.mlp_layer_types->end(), "dense") != m.mlp_layer_types->end();
        } else {
            fill("model.first_k_dense_replace", m.first_k_dense_replace, std::int64_t{0}, Origin::Derived, "no leading dense layers stated");
            fill("model.moe_layer_freq", m.moe_layer_freq, std::int64_t{1}, Origin::Derived, "every layer after the dense ones is MoE");
            if (*m.first_k_dense_replace > layers)
                refuse("model.first_k_dense_replace", "must be at most num_hidden_layers (" + num(layers) + "), got " + num(*m.first_k_dense_replace));
            denseLayers = *m.first_k_dense_replace > 0 || *m.moe_layer_freq > 1;
        }
        if (*m.num_shared_experts > 0 && !m.shared_expert_intermediate_size && m.moe_intermediate_size)
            fill("model.shared_expert_intermediate_size", m.shared_expert_intermediate_size,
                 *m.num_shared_experts * *m.moe_intermediate_size, Origin::Derived, "num_shared_experts · moe_intermediate_size");
        if (m.shared_expert_intermediate_size && *m.num_shared_experts == 0) {
            const auto from = m_out.filled.find("model.num_shared_experts");
            refuse("model.shared_expert_intermediate_size",
                   "is stated, but the model has no shared experts (num_shared_experts: 0" +
                       (from == m_out.filled.end() ? std::string() : ", " + from->second.text()) + ")");
        }
        fill("model.router_bias", m.router_bias, false, Origin::Derived, "a plain linear router");
        // Group-limited routing: both or neither; a group holds whole experts.
        if (m.n_group.has_value() != m.topk_group.has_value())
            refuse(m.n_group ? "model.topk_group" : "model.n_group",
                   "group-limited routing needs both n_group and topk_group, got only " + std::string(m.n_group ? "n_group" : "topk_group"));
        else if (m.n_group) {
            if (e % *m.n_group != 0)
                refuse("model.n_group", "must divide num_experts (" + num(e) + ") so every group holds whole experts, got " + num(*m.n_group));
            if (*m.topk_group > *m.n_group)
                refuse("model.topk_group", "must be at most n_group (" + num(*m.n_group) + "), got " + num(*m.topk_group));
            else if (m.num_experts_per_tok && *m.topk_group * (e / *m.n_group) < *m.num_experts_per_tok)
                refuse("model.topk_group", "its " + num(*m.topk_group) + " groups hold " + num(*m.topk_group * (e / *m.n_group)) +
                                               " experts, fewer than num_experts_per_tok (" + num(*m.num_experts_per_tok) + ")");
        }
        if (m.num_shared_experts.value_or(0) > 0) fill("model.shared_expert_gate", m.shared_expert_gate, false, Origin::Derived, "no gate stated");
    } else {
        if (m.mlp_layer_types && std::find(m.mlp_layer_types->begin(), m.mlp_layer_types->end(), "moe") != m.mlp_layer_types->end())
            refuse("model.mlp_layer_types", "lists moe layers, but the model has no routed experts (num_experts " +
                                                std::string(m.num_experts ? "is 1)" : "is not stated)"));
        for (auto [key, stated] : {std::pair{"num_experts_per_tok", m.num_experts_per_tok.has_value()},
                                   {"n_group", m.n_group.has_value()}, {"topk_group", m.topk_group.has_value()}})
            if (stated)
                refuse(std::string("model.") + key, "is stated, but the model has no routed experts (num_experts " +
                                                        std::string(m.num_experts ? "is 1)" : "is not stated)"));
    }
    if (denseLayers && !m.intermediate_size) {
        if (*m.arch == "gpt") fill("model.intermediate_size", m.intermediate_size, 4 * h, Origin::Derived, "4 · hidden_size (GPT)");
        else refuse("model.intermediate_size", "required: the model has dense MLP layers");
    }
    if (const double bound = parameterBound(m); diagnostics().empty() && !(bound <= kMaxParameters)) {
        char about[32];
        std::snprintf(about, sizeof about, "%.2g", bound);
        refuse("model", std::string("its sizes allow up to ") + about + " parameters; Tessera counts models of up to 2^53 (" +
                            withThousands(std::int64_t(kMaxParameters)) + ")");
    }
}

}  // namespace tessera::core::detail
