#include "io/dtype.h"

#include <algorithm>
#include <cctype>

namespace tessera::core {

std::optional<DtypeWidth> dtypeOf(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.starts_with("torch.")) lower = lower.substr(6);
    if (lower == "bfloat16" || lower == "bf16") return DtypeWidth{"bf16", 2};
    if (lower == "float16" || lower == "fp16" || lower == "half") return DtypeWidth{"fp16", 2};
    if (lower == "float32" || lower == "fp32" || lower == "float") return DtypeWidth{"fp32", 4};
    return std::nullopt;
}

}  // namespace tessera::core
