#pragma once
// Files under resources/ compiled into the binary (resources/embed.cmake).
#include <cstddef>
#include <span>
#include <string_view>

namespace tessera::core {

struct EmbeddedFile {
    const char* path;  // relative to resources/, such as "presets/models/llama3-70b.yaml"
    const char* data;
    std::size_t size;
    std::string_view text() const { return {data, size}; }
};

std::span<const EmbeddedFile> embeddedResources();

}  // namespace tessera::core
