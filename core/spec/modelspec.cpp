#include "spec/modelspec.h"

namespace tessera::core {

std::span<const std::string_view> modelFamilies() {
    // One file each under resources/families/.
    static constexpr std::string_view kFamilies[] = {"gpt", "llama", "qwen", "qwen3", "mixtral", "deepseek", "qwen3_next"};
    return kFamilies;
}

}  // namespace tessera::core
