#pragma once
// Hugging Face Transformers config.json -> Tessera model section.
//
// The text tower is `text_config` when there is one (vision-language models),
// else the whole config. Each model key is copied from the first of its HF
// aliases that is present (reference/hyperparallel.md §2.7, plus GPT-2's n_embd
// family and Mixtral's num_local_experts), keeping the value's position in the
// config so a bad value is reported at its line in config.json. `arch` comes from
// model_type. Keys that do not describe the architecture are ignored: a config
// carries many (rope_theta, bos_token_id, ...). Structure Tessera cannot
// represent (interleaved dense layers not at the front) is refused, not guessed.
#include "doc/document.h"

namespace tessera::core {

bool isHfConfig(const Value& doc);
// The model section (a mapping); problems go to `d`.
Value importHfConfig(const Value& config, Diagnostics& d);

}  // namespace tessera::core
