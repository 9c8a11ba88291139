#pragma once
// Data types as trainers, HF configs and the seed spell them ("bfloat16",
// "torch.float32", "fp16"): Tessera's compute_dtype name and the width in bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::core {

struct DtypeWidth {
    std::string name;  // kComputeDtypes: bf16, fp16, fp32
    std::int64_t bytes;
};
// nullopt for a name that is none of them.
std::optional<DtypeWidth> dtypeOf(std::string_view name);

}  // namespace tessera::core
