#pragma once
// ModelSpec: what an architecture is, whatever it is trained with. Keys are
// Hugging Face config.json names where one exists, and the members keep those
// names (snake_case) so the code, the files and HF configs read alike.
//
// Absent is not zero: every field is optional, and an unstated field is never
// read as 0. A field the file leaves out may be filled by the family (`arch`, see
// resources/families/) or derived (resolve.h), and `tessera show` marks which.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/field.h"

namespace tessera::core {

inline constexpr std::string_view kNorms[] = {"rmsnorm", "layernorm"};
// How a vision tower's patches become language-model tokens: Qwen2-VL's PatchMerger
// (a norm, then an MLP over merge² concatenated patches), Gemma 3's projector (merge²
// patches averaged, an RMSNorm, one linear layer without bias), or Llama 4's (a pixel
// shuffle concatenating merge² patches, a two-layer MLP of vision_projector_width, then
// one linear layer to the language model; no biases).
inline constexpr std::string_view kVisionProjectors[] = {"merger", "pooled_linear", "shuffle_mlp"};
inline constexpr std::string_view kPositionEmbeddings[] = {"rope", "learned", "none"};
inline constexpr std::string_view kActivations[] = {"silu", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "swish"};
// Transformers' layer_types spellings: full causal attention, a sliding window of the
// last sliding_window keys (gpt-oss, Gemma 2/3, Mistral), chunks of attention_chunk_size
// attended within (Llama 4's RoPE layers), Gated DeltaNet (Qwen3-Next).
inline constexpr std::string_view kLayerTypes[] = {"full_attention", "sliding_attention", "chunked_attention",
                                                   "linear_attention"};
inline constexpr std::string_view kMlpLayerTypes[] = {"dense", "moe"};
// Where each layer's norms sit: before each sublayer (Llama), after it (OLMo-2: the
// sublayer's output is normed before the residual add), or both (Gemma 2/3's four norms).
inline constexpr std::string_view kNormPlacements[] = {"pre", "post", "sandwich"};
// The learned weight of the query/key norms: one head's width shared by the heads (Qwen3,
// Gemma 3), the whole projection's width (OLMo-2), or none (Llama 4's L2 norm).
inline constexpr std::string_view kQkNormWeights[] = {"head", "projection", "none"};

struct ModelSpec {
    std::optional<std::string> name;
    std::optional<std::string> arch;
    std::optional<std::int64_t> hidden_size;
    std::optional<std::int64_t> num_hidden_layers;
    std::optional<std::int64_t> num_attention_heads;
    std::optional<std::int64_t> num_key_value_heads;
    std::optional<std::int64_t> head_dim;
    std::optional<std::int64_t> intermediate_size;
    std::optional<std::int64_t> vocab_size;
    std::optional<std::int64_t> max_position_embeddings;
    std::optional<std::string> hidden_act;
    std::optional<bool> gated_mlp;
    std::optional<std::string> norm;
    std::optional<std::string> position_embedding;
    std::optional<bool> attention_bias;
    std::optional<bool> attention_out_bias;
    std::optional<bool> mlp_bias;
    std::optional<bool> tie_word_embeddings;
    std::optional<double> attention_dropout;
    std::optional<double> hidden_dropout;
    std::optional<bool> qk_norm;
    std::optional<std::string> qk_norm_weight;
    std::optional<std::string> norm_placement;
    std::optional<bool> attn_output_gate;
    std::optional<bool> attention_sinks;
    std::optional<std::int64_t> sliding_window;
    std::optional<std::int64_t> attention_chunk_size;
    // Mixture of experts.
    std::optional<std::int64_t> num_experts;
    std::optional<std::int64_t> num_experts_per_tok;
    std::optional<std::int64_t> num_shared_experts;
    std::optional<std::int64_t> moe_intermediate_size;
    std::optional<std::int64_t> shared_expert_intermediate_size;
    std::optional<std::int64_t> first_k_dense_replace;
    std::optional<std::int64_t> moe_layer_freq;
    std::optional<std::vector<std::string>> mlp_layer_types;
    std::optional<bool> router_bias;
    std::optional<bool> shared_expert_gate;
    std::optional<std::int64_t> n_group, topk_group;  // group-limited routing (HF DeepseekV3Config)
    // Multi-head latent attention and multi-token prediction.
    std::optional<std::int64_t> q_lora_rank;
    std::optional<std::int64_t> kv_lora_rank;
    std::optional<std::int64_t> qk_rope_head_dim;
    std::optional<std::int64_t> qk_nope_head_dim;
    std::optional<std::int64_t> v_head_dim;
    std::optional<std::int64_t> mtp_depth;
    // Hybrid linear attention (Gated DeltaNet, Qwen3-Next / Qwen3.5).
    std::optional<std::vector<std::string>> layer_types;
    std::optional<std::int64_t> linear_num_key_heads;
    std::optional<std::int64_t> linear_key_head_dim;
    std::optional<std::int64_t> linear_num_value_heads;
    std::optional<std::int64_t> linear_value_head_dim;
    std::optional<std::int64_t> linear_conv_kernel_dim;
    // A vision tower (Qwen2-VL / Qwen2.5-VL's ViT): patch embedding, vision_depth blocks
    // of bidirectional attention and an MLP, then the merger that folds
    // vision_spatial_merge_size² patches into one language-model token. Stated or all absent.
    std::optional<std::int64_t> vision_hidden_size, vision_depth, vision_num_heads, vision_intermediate_size;
    std::optional<std::int64_t> vision_out_hidden_size, vision_patch_size, vision_temporal_patch_size;
    std::optional<std::int64_t> vision_in_channels, vision_spatial_merge_size;
    std::optional<bool> vision_gated_mlp, vision_bias;
    std::optional<std::string> vision_norm;
    std::optional<std::int64_t> vision_window_size, vision_full_attention_blocks;
    // SigLIP and Llama 4 towers: a learned position table, a biased patch embedding,
    // norms outside the blocks, a class token, and their projectors. Filled as Qwen's
    // when unstated.
    std::optional<std::string> vision_projector;
    std::optional<std::int64_t> vision_position_embeddings, vision_outer_norms, vision_projector_width;
    std::optional<bool> vision_patch_bias, vision_class_token;
    // What an import found and Tessera does not price, carried with the model so every
    // report shows it (never dropped in silence).
    std::optional<std::vector<std::string>> unpriced_keys;

    bool operator==(const ModelSpec&) const = default;
};

// The architecture families `arch` may name (resources/families/<name>.yaml).
std::span<const std::string_view> modelFamilies();

template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, ModelSpec>
void visit(Spec& m, V& v) {
    // clang-format off: one row per field
    const IntRange positive{1}, whole{0};
    v.text({"name", "Display name of the model"}, m.name);
    v.choice({"arch", "Architecture family whose documented defaults fill unstated fields"}, m.arch, modelFamilies());
    v.integer({"hidden_size", "Width of the residual stream (h)", "elements"}, m.hidden_size, positive);
    v.integer({"num_hidden_layers", "Transformer layers in the body, MTP layers excluded (L)"}, m.num_hidden_layers, positive);
    v.integer({"num_attention_heads", "Query heads per attention layer (a)"}, m.num_attention_heads, positive);
    v.integer({"num_key_value_heads", "Key/value heads (g): a for MHA, 1 for MQA, between for GQA"}, m.num_key_value_heads, positive);
    v.integer({"head_dim", "Width of one attention head; hidden_size / heads when unstated", "elements"}, m.head_dim, positive);
    v.integer({"intermediate_size", "Width of a dense MLP (f)", "elements"}, m.intermediate_size, positive);
    v.integer({"vocab_size", "Vocabulary size (V)", "tokens"}, m.vocab_size, positive);
    v.integer({"max_position_embeddings", "Longest sequence the positions cover", "tokens"}, m.max_position_embeddings, positive);
    v.choice({"hidden_act", "MLP activation function"}, m.hidden_act, kActivations);
    v.flag({"gated_mlp", "Gated MLP (SwiGLU: gate, up and down matrices) rather than two matrices"}, m.gated_mlp);
    v.choice({"norm", "Normalisation: rmsnorm (a weight) or layernorm (weight and bias)"}, m.norm, kNorms);
    v.choice({"position_embedding", "Rotary, learned absolute table, or none"}, m.position_embedding, kPositionEmbeddings);
    v.flag({"attention_bias", "Biases on the query, key and value projections"}, m.attention_bias);
    v.flag({"attention_out_bias", "Bias on the attention output projection; attention_bias when unstated"}, m.attention_out_bias);
    v.flag({"mlp_bias", "Biases on the MLP projections"}, m.mlp_bias);
    v.flag({"tie_word_embeddings", "Output layer shares the embedding table"}, m.tie_word_embeddings);
    v.real({"attention_dropout", "Dropout probability on attention scores"}, m.attention_dropout, RealRange{0, 1, false, true});
    v.real({"hidden_dropout", "Dropout probability on the residual branches"}, m.hidden_dropout, RealRange{0, 1, false, true});
    v.flag({"qk_norm", "Per-head RMSNorm on queries and keys (Qwen3)"}, m.qk_norm);
    v.choice({"qk_norm_weight", "What the query/key norms learn: one head's width (head), the whole projection (projection, "
              "OLMo-2) or nothing (none, Llama 4's L2 norm)"}, m.qk_norm_weight, kQkNormWeights);
    v.choice({"norm_placement", "Norms before each sublayer (pre), after it (post, OLMo-2) or both (sandwich, Gemma 2/3)"},
             m.norm_placement, kNormPlacements);
    v.flag({"attn_output_gate", "Gated attention output (doubles the query projection; Qwen3.5)"}, m.attn_output_gate);
    v.flag({"attention_sinks", "A learned sink logit per head in the softmax (gpt-oss)"}, m.attention_sinks);
    v.integer({"sliding_window", "Keys a sliding_attention layer attends to: the query's own and those before it", "tokens"},
              m.sliding_window, positive);
    v.integer({"attention_chunk_size", "Tokens per chunk of a chunked_attention layer (Llama 4); a query attends within "
               "its chunk", "tokens"}, m.attention_chunk_size, positive);
    v.integer({"num_experts", "Routed experts per MoE layer (E); 1 is dense"}, m.num_experts, positive);
    v.integer({"num_experts_per_tok", "Routed experts each token visits (top-k)"}, m.num_experts_per_tok, positive);
    v.integer({"num_shared_experts", "Shared experts every token visits"}, m.num_shared_experts, whole);
    v.integer({"moe_intermediate_size", "Width of one routed expert", "elements"}, m.moe_intermediate_size, positive);
    v.integer({"shared_expert_intermediate_size", "Width of the shared expert(s) together", "elements"}, m.shared_expert_intermediate_size, positive);
    v.integer({"first_k_dense_replace", "Leading layers with a dense MLP instead of experts"}, m.first_k_dense_replace, whole);
    v.integer({"moe_layer_freq", "Every n-th layer after the dense ones is MoE"}, m.moe_layer_freq, positive);
    v.textList({"mlp_layer_types", "MLP kind of each body layer (dense or moe), where the layout is not DeepSeek's "
                "leading dense layers (Llama 4 Maverick's alternation)"}, m.mlp_layer_types, kMlpLayerTypes);
    v.flag({"router_bias", "The router keeps a per-expert bias (DeepSeek-V3's score correction)"}, m.router_bias);
    v.flag({"shared_expert_gate", "A sigmoid gate scales the shared expert (Qwen2-MoE)"}, m.shared_expert_gate);
    v.integer({"n_group", "Groups the routed experts split into for group-limited routing (DeepSeek's node-limited "
               "routing; Megatron-LM --moe-router-num-groups); a group's experts sit on one node"}, m.n_group, positive);
    v.integer({"topk_group", "Groups a token may route to (DeepSeek-V3: 4 of 8, so at most 4 nodes; Megatron-LM "
               "--moe-router-group-topk)"}, m.topk_group, positive);
    v.integer({"q_lora_rank", "MLA query latent rank; 0 projects queries directly"}, m.q_lora_rank, whole);
    v.integer({"kv_lora_rank", "MLA key/value latent rank; stating it makes attention MLA"}, m.kv_lora_rank, positive);
    v.integer({"qk_rope_head_dim", "MLA rotary part of each query/key head", "elements"}, m.qk_rope_head_dim, positive);
    v.integer({"qk_nope_head_dim", "MLA non-rotary part of each query/key head", "elements"}, m.qk_nope_head_dim, positive);
    v.integer({"v_head_dim", "MLA value head width", "elements"}, m.v_head_dim, positive);
    v.integer({"mtp_depth", "Multi-token-prediction layers after the body"}, m.mtp_depth, whole);
    v.textList({"layer_types", "Attention kind of each body layer (hybrid and windowed models)"}, m.layer_types, kLayerTypes);
    v.integer({"linear_num_key_heads", "Linear-attention key heads"}, m.linear_num_key_heads, positive);
    v.integer({"linear_key_head_dim", "Linear-attention key head width", "elements"}, m.linear_key_head_dim, positive);
    v.integer({"linear_num_value_heads", "Linear-attention value heads"}, m.linear_num_value_heads, positive);
    v.integer({"linear_value_head_dim", "Linear-attention value head width", "elements"}, m.linear_value_head_dim, positive);
    v.integer({"linear_conv_kernel_dim", "Linear-attention short convolution width"}, m.linear_conv_kernel_dim, positive);
    v.integer({"vision_hidden_size", "Vision tower: width of its blocks (Qwen2.5-VL vision_config.hidden_size; Qwen2-VL "
               "embed_dim); stating it gives the model a vision tower on the first stage", "elements"}, m.vision_hidden_size, positive);
    v.integer({"vision_depth", "Vision tower: blocks (vision_config.depth)"}, m.vision_depth, positive);
    v.integer({"vision_num_heads", "Vision tower: attention heads per block"}, m.vision_num_heads, positive);
    v.integer({"vision_intermediate_size", "Vision tower: MLP width", "elements"}, m.vision_intermediate_size, positive);
    v.integer({"vision_out_hidden_size", "Vision tower: the merger's output width (the language model's hidden_size)",
               "elements"}, m.vision_out_hidden_size, positive);
    v.integer({"vision_patch_size", "Vision tower: patch side", "pixels"}, m.vision_patch_size, positive);
    v.integer({"vision_temporal_patch_size", "Vision tower: frames per patch (2 for Qwen2-VL's video patches)"},
              m.vision_temporal_patch_size, positive);
    v.integer({"vision_in_channels", "Vision tower: image channels"}, m.vision_in_channels, positive);
    v.integer({"vision_spatial_merge_size", "Vision tower: the merger folds this squared many patches into one token"},
              m.vision_spatial_merge_size, positive);
    v.flag({"vision_gated_mlp", "Vision tower: gated MLP (Qwen2.5-VL) rather than two matrices (Qwen2-VL)"}, m.vision_gated_mlp);
    v.flag({"vision_bias", "Vision tower: biases on its projections and MLP"}, m.vision_bias);
    v.choice({"vision_norm", "Vision tower: its norms (rmsnorm for Qwen2.5-VL, layernorm for Qwen2-VL)"}, m.vision_norm, kNorms);
    v.integer({"vision_window_size", "Vision tower: side of the square window its windowed blocks attend within (Qwen2.5-VL "
               "window_size, 112)", "pixels"}, m.vision_window_size, positive);
    v.integer({"vision_full_attention_blocks", "Vision tower: blocks that attend over the whole image, the rest within their "
               "window (Qwen2.5-VL: len(fullatt_block_indexes), 4 of 32)"}, m.vision_full_attention_blocks, whole);
    v.choice({"vision_projector", "Vision tower: how patches become tokens: merger (Qwen2-VL PatchMerger: norm, then an MLP over "
              "spatial_merge_size² concatenated patches) or pooled_linear (Gemma 3: those patches averaged, RMSNorm, one "
              "linear layer)"}, m.vision_projector, kVisionProjectors);
    v.integer({"vision_position_embeddings", "Vision tower: rows of its learned position table (SigLIP: (image_size / "
               "patch_size)², 4096 for Gemma 3); 0 for rotary positions (Qwen2-VL)"}, m.vision_position_embeddings, whole);
    v.flag({"vision_patch_bias", "Vision tower: a bias on the patch embedding (SigLIP's Conv2d; Qwen2-VL's Conv3d has none)"},
           m.vision_patch_bias);
    v.integer({"vision_outer_norms", "Vision tower: norms over every patch outside its blocks (SigLIP post_layernorm: 1; "
               "Llama 4 layernorm_pre and layernorm_post: 2)"}, m.vision_outer_norms, IntRange{0, 2});
    v.flag({"vision_class_token", "Vision tower: a learned class token (Llama 4's class_embedding); its parameters are "
            "counted, its one extra position among a tile's patches is not priced apart"}, m.vision_class_token);
    v.integer({"vision_projector_width", "Vision tower: the width of Llama 4's projector MLP (projector_input_dim = "
               "projector_output_dim = vision_output_dim, 4096); only with vision_projector shuffle_mlp", "elements"},
              m.vision_projector_width, positive);
    v.textList({"unpriced_keys", "Keys of the imported config.json that Tessera does not price, as the import listed them"},
               m.unpriced_keys, Choices{});
    // clang-format on
}

}  // namespace tessera::core
