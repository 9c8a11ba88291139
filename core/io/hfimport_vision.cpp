// The vision towers of Qwen2-VL and Qwen2.5-VL, as their Transformers modelling files
// build them (modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel: LayerNorm,
// fc1/fc2 MLP at embed_dim·mlp_ratio; modeling_qwen2_5_vl.py: RMSNorm, gated MLP at
// intermediate_size; both: Conv3d patch embedding without bias, fused qkv with bias,
// PatchMerger), and Gemma 3's SigLIP tower (modeling_siglip.py SiglipVisionTransformer:
// Conv2d patch embedding with bias, a learned position table of (image_size/patch)²
// rows, LayerNorm, fc1/fc2 MLP with biases, post_layernorm; modeling_gemma3.py
// Gemma3MultiModalProjector: average pooling to mm_tokens_per_image tokens, RMSNorm,
// mm_input_projection_weight without bias). Another family's vision_config stays listed
// as not priced.
#include <cmath>

#include "io/hfimport.h"

namespace tessera::core::hf {

namespace {

const Value* present(const Value& map, std::string_view key) {
    const Value* v = map.find(key);
    return v && !v->isNull() ? v : nullptr;
}

// Copies the first present of `keys` to `to`; returns it.
const Value* copy(const Value& vision, Value& out, std::initializer_list<std::string_view> keys, const char* to,
                  std::vector<std::string>& read) {
    const Value* chosen = nullptr;
    for (std::string_view key : keys)
        if (const Value* v = present(vision, key)) {
            read.push_back(std::string(key));
            if (!chosen) out.set(to, *v, v->mark()), chosen = v;
        }
    return chosen;
}

}  // namespace

namespace {

// The widths a ViT-style vision_config (SigLIP's, Llama 4's) spells the usual way; returns
// its patch_size.
const Value* copyViTWidths(const Value& vision, Value& out, std::vector<std::string>& read) {
    copy(vision, out, {"hidden_size"}, "vision_hidden_size", read);
    copy(vision, out, {"num_hidden_layers"}, "vision_depth", read);
    copy(vision, out, {"num_attention_heads"}, "vision_num_heads", read);
    copy(vision, out, {"intermediate_size"}, "vision_intermediate_size", read);
    copy(vision, out, {"num_channels"}, "vision_in_channels", read);
    return copy(vision, out, {"patch_size"}, "vision_patch_size", read);
}

// Gemma 3: a SigLIP encoder without its attention-pooling head, then the pooled projector.
bool siglipTower(const Value& root, const Value& vision, Value& out, std::vector<std::string>& read,
                 std::vector<std::string>& rootRead, Diagnostics& d) {
    // vision_use_head true adds SigLIP's attention-pooling head, which Gemma 3 never uses
    // and Tessera does not price: the tower is then left out and listed, not mispriced.
    if (const Value* head = present(vision, "vision_use_head"); head && !(head->kind() == Value::Kind::Bool && !head->asBool()))
        return false;
    if (present(vision, "vision_use_head")) read.push_back("vision_use_head");
    const Value* patch = copyViTWidths(vision, out, read);
    // SiglipVisionConfig's defaults where the config leaves them out: image_size 224 (a
    // Gemma 3 config always states 896). Gemma3Config's mm_tokens_per_image defaults to 256.
    const Value* image = present(vision, "image_size");
    if (image) read.push_back("image_size");
    const Value* tokens = present(root, "mm_tokens_per_image");
    if (tokens) rootRead.push_back("mm_tokens_per_image");
    auto whole = [](const Value* v) { return v && v->kind() == Value::Kind::Int && v->asInt() > 0 ? v->asInt() : 0; };
    const std::int64_t side = whole(image) ? whole(image) : 224, p = whole(patch);
    const std::int64_t perImage = tokens ? whole(tokens) : 256;
    if (p > 0 && side % p == 0 && perImage > 0) {
        const std::int64_t patchesPerSide = side / p;
        const auto tokensPerSide = std::int64_t(std::llround(std::sqrt(double(perImage))));
        if (tokensPerSide * tokensPerSide != perImage || patchesPerSide % tokensPerSide != 0) {
            d.add(tokens ? tokens->mark() : vision.mark(), "mm_tokens_per_image",
                  "the projector pools a square of patches per token: expected a square that divides (" + std::to_string(side) +
                      " / " + std::to_string(p) + ")² patches, got " + std::to_string(perImage));
        } else {
            // Gemma3MultiModalProjector: AvgPool2d(patches_per_image / tokens_per_side).
            out.set("vision_spatial_merge_size", Value::integer(patchesPerSide / tokensPerSide, tokens ? tokens->mark() : vision.mark()));
            out.set("vision_position_embeddings", Value::integer(patchesPerSide * patchesPerSide, image ? image->mark() : vision.mark()));
        }
    } else if (p > 0) {
        d.add(image ? image->mark() : vision.mark(), "vision_config.image_size",
              "expected a whole number of patch_size (" + std::to_string(p) + ") patches per side, got " + std::to_string(side));
    }
    if (const Value* width = present(out, "hidden_size")) out.set("vision_out_hidden_size", *width, width->mark());
    out.set("vision_gated_mlp", Value::boolean(false, vision.mark()));
    out.set("vision_norm", Value::string("layernorm", vision.mark()));
    out.set("vision_bias", Value::boolean(true, vision.mark()));
    out.set("vision_patch_bias", Value::boolean(true, vision.mark()));
    out.set("vision_outer_norms", Value::integer(1, vision.mark()));  // post_layernorm
    out.set("vision_projector", Value::string("pooled_linear", vision.mark()));
    return true;
}

// Llama 4 (modeling_llama4.py Llama4VisionModel): an unfold-and-linear patch embedding
// without bias, a class token, a learned position table of (image_size/patch)² + 1 rows,
// layernorm_pre and layernorm_post, blocks of LayerNorm, biased q/k/v/o and fc1/fc2 (GELU),
// then Llama4VisionPixelShuffleMLP (pixel shuffle by pixel_shuffle_ratio, fc1 and fc2
// without bias) and Llama4MultiModalProjector (vision_output_dim -> hidden_size, no bias).
bool llama4Tower(const Value& vision, Value& out, std::vector<std::string>& read, Diagnostics& d) {
    // A projector bias, or widths Transformers' own modules would not join, are not a shape
    // Tessera prices: the tower is left out and listed.
    auto integer = [&](std::string_view key) {
        const Value* v = present(vision, key);
        return v && v->kind() == Value::Kind::Int ? v->asInt() : std::int64_t{0};
    };
    if (const Value* bias = present(vision, "multi_modal_projector_bias"); bias && !(bias->kind() == Value::Kind::Bool && !bias->asBool()))
        return false;
    const std::int64_t in = integer("projector_input_dim"), outDim = integer("projector_output_dim"), final = integer("vision_output_dim");
    if (in <= 0 || in != outDim || in != final) return false;
    const Value* ratio = present(vision, "pixel_shuffle_ratio");
    const bool numeric = ratio && (ratio->kind() == Value::Kind::Int || ratio->kind() == Value::Kind::Float);
    const double inverse = numeric && ratio->asDouble() > 0 ? 1 / ratio->asDouble() : 0;
    if (inverse < 1 || inverse != std::floor(inverse) || inverse > 64) {
        if (ratio) d.add(ratio->mark(), "vision_config.pixel_shuffle_ratio", "expected 1/n for a whole n (0.5: 2x2 patches a token), got " + ratio->describe());
        return false;
    }
    const std::int64_t merge = std::int64_t(inverse), hv = integer("hidden_size");
    if (const Value* f = present(vision, "intermediate_size"); f && hv > 0 && integer("intermediate_size") != hv * merge * merge) {
        // Llama4VisionMLP2.fc1 takes intermediate_size inputs: the shuffled patches' width.
        d.add(f->mark(), "vision_config.intermediate_size",
              "Llama 4's projector reads the shuffled patches (hidden_size / pixel_shuffle_ratio² = " +
                  std::to_string(hv * merge * merge) + " values) as intermediate_size: expected that, got " + f->describe());
        return false;
    }
    for (const char* key : {"multi_modal_projector_bias", "projector_input_dim", "projector_output_dim", "vision_output_dim",
                            "pixel_shuffle_ratio", "vision_feature_layer", "vision_feature_select_strategy"})
        if (present(vision, key)) read.push_back(key);
    out.set("vision_spatial_merge_size", Value::integer(merge, ratio->mark()));
    out.set("vision_projector", Value::string("shuffle_mlp", vision.mark()));
    out.set("vision_projector_width", Value::integer(in, vision.find("projector_input_dim")->mark()));
    const Value* patch = copyViTWidths(vision, out, read);
    const Value* image = present(vision, "image_size");
    if (image) read.push_back("image_size");
    const std::int64_t side = image && image->kind() == Value::Kind::Int ? image->asInt() : 0;
    const std::int64_t p = patch && patch->kind() == Value::Kind::Int ? patch->asInt() : 0;
    if (side <= 0 || p <= 0 || side % p != 0 || side / p > 1'000'000) {
        d.add(image ? image->mark() : vision.mark(), "vision_config.image_size",
              "Llama 4's position table has (image_size / patch_size)² + 1 rows: expected a whole number of patches a side");
    } else {
        out.set("vision_position_embeddings", Value::integer((side / p) * (side / p) + 1, image->mark()));
    }
    if (const Value* width = present(out, "hidden_size")) out.set("vision_out_hidden_size", *width, width->mark());
    out.set("vision_gated_mlp", Value::boolean(false, vision.mark()));
    out.set("vision_norm", Value::string("layernorm", vision.mark()));
    out.set("vision_bias", Value::boolean(true, vision.mark()));
    out.set("vision_patch_bias", Value::boolean(false, vision.mark()));
    out.set("vision_class_token", Value::boolean(true, vision.mark()));
    out.set("vision_outer_norms", Value::integer(2, vision.mark()));  // layernorm_pre, layernorm_post
    return true;
}

}  // namespace

bool visionTower(const std::string& modelType, const Value& root, const Value& vision, Value& out,
                 std::vector<std::string>& read, std::vector<std::string>& rootRead, Diagnostics& d) {
    if (!vision.isMap()) return false;
    if (modelType == "gemma3") return siglipTower(root, vision, out, read, rootRead, d);
    if (modelType == "llama4") return llama4Tower(vision, out, read, d);
    const bool v25 = modelType == "qwen2_5_vl", v2 = modelType == "qwen2_vl";
    if (!(v25 || v2)) return false;
    copy(vision, out, {"depth", "num_hidden_layers"}, "vision_depth", read);
    copy(vision, out, {"num_heads", "num_attention_heads"}, "vision_num_heads", read);
    copy(vision, out, {"patch_size", "spatial_patch_size"}, "vision_patch_size", read);
    copy(vision, out, {"temporal_patch_size"}, "vision_temporal_patch_size", read);
    copy(vision, out, {"in_chans", "in_channels"}, "vision_in_channels", read);
    copy(vision, out, {"spatial_merge_size"}, "vision_spatial_merge_size", read);
    if (v25) {
        copy(vision, out, {"hidden_size"}, "vision_hidden_size", read);
        copy(vision, out, {"intermediate_size"}, "vision_intermediate_size", read);
        copy(vision, out, {"out_hidden_size"}, "vision_out_hidden_size", read);
        out.set("vision_gated_mlp", Value::boolean(true, vision.mark()));
        out.set("vision_norm", Value::string("rmsnorm", vision.mark()));
        // Windowed blocks (Qwen2_5_VisionTransformerPretrainedModel.get_window_index): every
        // block not in fullatt_block_indexes attends within a window_size-pixel square.
        copy(vision, out, {"window_size"}, "vision_window_size", read);
        if (const Value* full = present(vision, "fullatt_block_indexes")) {
            read.push_back("fullatt_block_indexes");
            if (!full->isList()) d.add(full->mark(), "vision_config.fullatt_block_indexes", "expected a list of block indices, got " + full->describe());
            else out.set("vision_full_attention_blocks", Value::integer(std::int64_t(full->items().size()), full->mark()));
        }
    } else {
        // Qwen2-VL names the tower's width embed_dim and its output hidden_size.
        const Value* width = copy(vision, out, {"embed_dim"}, "vision_hidden_size", read);
        copy(vision, out, {"hidden_size"}, "vision_out_hidden_size", read);
        if (const Value* ratio = present(vision, "mlp_ratio")) {
            read.push_back("mlp_ratio");
            const bool number = ratio->kind() == Value::Kind::Int || ratio->kind() == Value::Kind::Float;
            if (!number || ratio->asDouble() <= 0) {
                d.add(ratio->mark(), "vision_config.mlp_ratio", "expected a positive number, got " + ratio->describe());
            } else if (width && width->kind() == Value::Kind::Int) {
                const double f = double(width->asInt()) * ratio->asDouble();
                if (f != std::floor(f) || f > 9e15)
                    d.add(ratio->mark(), "vision_config.mlp_ratio", "embed_dim · mlp_ratio must be a whole width, got " +
                                                                        std::to_string(f));
                else out.set("vision_intermediate_size", Value::integer(std::int64_t(f), ratio->mark()));
            }
        }
        out.set("vision_gated_mlp", Value::boolean(false, vision.mark()));
        out.set("vision_norm", Value::string("layernorm", vision.mark()));
    }
    out.set("vision_bias", Value::boolean(true, vision.mark()));
    return true;
}

}  // namespace tessera::core::hf
