#pragma once
// Hugging Face Transformers config.json -> Tessera model section.
//
// The text tower is `text_config` when there is one (vision-language models),
// else the whole config. The family comes from model_type, else from the first
// of `architectures` (Kimi-K2 is DeepseekV3ForCausalLM under model_type kimi_k2).
// Each model key is copied from the first of its HF aliases that is present
// (reference/hyperparallel.md §2.7, plus the families' own spellings), keeping
// the value's position in the config so a bad value is reported at its line in
// config.json. What a family states in its own terms is derived as its
// Transformers configuration class does (layer_types from full_attention_interval,
// sliding_window_pattern or no_rope_layers; per-layer MLP kinds from
// decoder_sparse_step or interleave_moe_layer_step; hfimport_layout.cpp).
//
// No key is dropped in silence: every key of the config is either read, or known
// to change neither memory nor time (token ids, rope frequencies, norm epsilons,
// initialisation, runtime switches), or listed as not priced - in the model
// section's `unpriced_keys` (so every report shows it) and in the import's output.
#include <string>
#include <vector>

#include "doc/document.h"

namespace tessera::core {

struct HfImport {
    Value model;                        // the model section (a mapping)
    std::vector<std::string> unpriced;  // keys that may matter and are not priced (also in model.unpriced_keys)
    std::vector<std::string> noEffect;  // keys read and known not to change memory or time
    // Sizes the config leaves out and its Transformers configuration class fills (Gemma 3
    // 27B's config.json has no vocab_size: Gemma3TextConfig's 262,208): key -> where from.
    // Filled, never silently: the import's header and output say each.
    std::vector<std::pair<std::string, std::string>> classDefaults;
};

bool isHfConfig(const Value& doc);
// Problems go to `d`.
HfImport importHf(const Value& config, Diagnostics& d);
// The model section alone.
Value importHfConfig(const Value& config, Diagnostics& d);

namespace hf {
// The layer layouts a family states in its own terms, as its Transformers
// configuration derives them: sets layer_types / mlp_layer_types / sliding_window /
// attention_chunk_size on `out` and adds each key it read to `read`.
void deriveLayout(const std::string& family, const std::string& modelType, const Value& tower, Value& out,
                  std::vector<std::string>& read, Diagnostics& d);
// The vision tower of a Qwen2-VL / Qwen2.5-VL / Gemma 3 / Llama 4 config as vision_* model fields
// (hfimport_vision.cpp); false, touching nothing, for another family's vision_config.
// `root` is the whole config (Gemma 3 states its tokens per image there); keys read from
// it go to `rootRead`, the tower's own to `read`.
bool visionTower(const std::string& modelType, const Value& root, const Value& visionConfig, Value& out,
                 std::vector<std::string>& read, std::vector<std::string>& rootRead, Diagnostics& d);
// Keys that change neither memory nor time, whatever their value.
bool hasNoEffect(std::string_view key);
}  // namespace hf

}  // namespace tessera::core
