#pragma once
// Parameter counts, exact to the element, from a resolved ModelSpec.
//
// Counted as the Hugging Face Transformers modules hold them: every projection's
// weight, its bias when the model has one, norm weights (and biases for
// LayerNorm), the embedding table, learned positions, the final norm and the
// output layer unless tied. MoE layers count the router (plus DeepSeek-V3's
// per-expert score-correction bias), every routed expert and the shared experts
// (plus Qwen2-MoE's shared-expert gate). MLA counts both low-rank projections and
// their latent norms. Gated DeltaNet (linear attention) layers count their fused
// input projections, short convolution, per-head decay and gate parameters, the
// gated norm and the output projection (Transformers' Qwen3NextGatedDeltaNet).
// Windowed layers count as full ones (the window changes what is computed, not the
// weights); gpt-oss's attention sinks add one logit per head, Gemma's sandwich norms
// two more norms a layer, OLMo-2's query/key norms span the whole projection.
// An MTP module counts its transformer block plus its two input norms, its 2h->h
// projection and its output norm; it shares the embedding and output tables with
// the body (DeepSeek-V3 report §2.2), so they are not counted twice.
#include <cstdint>
#include <string>
#include <vector>

#include "spec/modelspec.h"

namespace tessera::core {

enum class AttentionKind { Standard, Mla, Linear };
// Which keys a query of a softmax-attention layer sees: every earlier one (Full), the
// last sliding_window (Sliding), or those of its attention_chunk_size chunk (Chunked);
// a vision block's query sees every key, after it too (Bidirectional).
enum class AttentionSpan : std::uint8_t { Full, Sliding, Chunked, Bidirectional };

struct LayerKind {
    AttentionKind attention = AttentionKind::Standard;
    AttentionSpan span = AttentionSpan::Full;
    bool moe = false;
    bool mtp = false;
    std::string name() const;  // "dense", "moe", "linear_moe", "sliding_dense", "mtp_moe", ...
    bool operator==(const LayerKind&) const = default;
};

// The layer stack in model order: body layers, then MTP layers.
std::vector<LayerKind> layerStack(const ModelSpec& resolved);

struct LayerParameters {
    std::int64_t attention = 0;   // projections, their biases, q/k and latent norms, linear-attention extras
    std::int64_t mlp = 0;         // dense MLP
    std::int64_t router = 0;
    std::int64_t routedExperts = 0;
    std::int64_t sharedExperts = 0;  // and their gate
    std::int64_t norms = 0;          // the per-layer norms (two, or four sandwiched)
    std::int64_t mtpExtra = 0;       // MTP: input norms, projection, output norm
    std::int64_t total() const { return attention + mlp + router + routedExperts + sharedExperts + norms + mtpExtra; }
};

LayerParameters layerParameters(const ModelSpec& resolved, const LayerKind& kind);
// The query/key norms' weights of one standard-attention layer (qk_norm_weight).
std::int64_t qkNormParams(const ModelSpec& resolved);
// Norms per layer: 2, or 4 under norm_placement sandwich.
std::int64_t layerNormCount(const ModelSpec& resolved);

// A vision tower (Transformers' Qwen2VisionTransformerPretrainedModel and its Qwen2.5-VL
// successor): the patch embedding (a bias-free Conv3d over channels x frames x patch²),
// per block two norms, fused qkv and output projections and the MLP (biases under
// vision_bias), and the merger: a norm over one patch, then two linear layers from
// merge² patches to merge² patches and on to out_hidden_size.
struct VisionParameters {
    std::int64_t patchEmbed = 0;
    std::int64_t perBlock = 0;  // one block, norms included
    std::int64_t blocks = 0;
    std::int64_t merger = 0;
    std::int64_t total() const { return patchEmbed + blocks * perBlock + merger; }
};
// Zero when the model has no vision tower.
VisionParameters visionParameters(const ModelSpec& resolved);

struct KindCount {
    LayerKind kind;
    std::int64_t layers = 0;
    std::int64_t perLayer = 0;
};

struct ParameterCount {
    std::int64_t embedding = 0;
    std::int64_t positions = 0;
    std::int64_t attention = 0;  // body layers only; MTP layers are under mtp
    std::int64_t mlp = 0;
    std::int64_t router = 0;
    std::int64_t routedExperts = 0;
    std::int64_t sharedExperts = 0;
    std::int64_t norms = 0;  // body layer norms and the final norm
    std::int64_t output = 0;
    std::int64_t mtp = 0;
    std::int64_t vision = 0;  // the vision tower, whole
    std::vector<KindCount> byLayerKind;
    // Without the MTP modules (how model totals are usually quoted: "671B"); with the vision tower.
    std::int64_t body() const {
        return embedding + positions + attention + mlp + router + routedExperts + sharedExperts + norms + output + vision;
    }
    std::int64_t total() const { return body() + mtp; }
    // Parameters one token passes through: top-k routed experts instead of all.
    std::int64_t active = 0;
};

ParameterCount countParameters(const ModelSpec& resolved);

}  // namespace tessera::core
