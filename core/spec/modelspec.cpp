#include "spec/modelspec.h"

namespace tessera::core {

std::span<const std::string_view> modelFamilies() {
    // One file each under resources/families/.
    static constexpr std::string_view kFamilies[] = {"gpt", "llama", "qwen", "qwen3", "mixtral", "deepseek", "qwen3_next",
                                                     "gpt_oss", "gemma2", "gemma3", "llama4", "glm4_moe", "olmo2"};
    return kFamilies;
}

}  // namespace tessera::core
