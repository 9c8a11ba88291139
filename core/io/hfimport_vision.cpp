// The vision towers of Qwen2-VL and Qwen2.5-VL, as their Transformers modelling files
// build them (modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel: LayerNorm,
// fc1/fc2 MLP at embed_dim·mlp_ratio; modeling_qwen2_5_vl.py: RMSNorm, gated MLP at
// intermediate_size; both: Conv3d patch embedding without bias, fused qkv with bias,
// PatchMerger). Another family's vision_config stays listed as not priced.
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

bool visionTower(const std::string& modelType, const Value& vision, Value& out, std::vector<std::string>& read, Diagnostics& d) {
    const bool v25 = modelType == "qwen2_5_vl", v2 = modelType == "qwen2_vl";
    if (!(v25 || v2) || !vision.isMap()) return false;
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
