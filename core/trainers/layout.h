#pragma once
// Megatron-LM's --pipeline-model-parallel-layout (megatron/core/transformer/
// pipeline_parallel_layer_layout.py), both ways (internal to core/trainers): virtual
// stages split by `|`, in layer order (chunk by chunk, each over the pp ranks), each
// a run of E (embedding), t (decoder layer), m (MTP layer) and L (loss); `x*n` and
// `(...)*n` repeat, commas are cosmetic. "Et*3|t*4|t*4|t*2mL".
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::core::trainers {

using StageGrid = std::vector<std::vector<std::int64_t>>;  // [chunk][stage]: decoder and MTP layers

// The layers each virtual stage holds, or why the layout cannot be priced.
std::variant<StageGrid, std::string> parseLayout(std::string_view text, std::int64_t pp, std::int64_t decoderLayers,
                                                 std::int64_t mtpLayers);
// The layout of a partition whose last `mtpLayers` layers (in layer order) are MTP layers.
std::string layoutText(const StageGrid& grid, std::int64_t mtpLayers);

}  // namespace tessera::core::trainers
