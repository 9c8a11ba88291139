#pragma once
// Value trees out as text: YAML (block style, flow style for short lists of
// scalars, optional end-of-line comments per map entry) and JSON.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "doc/document.h"

namespace tessera::core {

// Comment for the entry at `path` ("exec.tp"), or empty for none.
using CommentFor = std::function<std::string(const std::string& path)>;

std::string toYaml(const Value& value, const CommentFor& comment = {});
nlohmann::ordered_json toJson(const Value& value);

}  // namespace tessera::core
