#pragma once
// TOML (torchtitan's job configuration) as a positioned value tree, with the
// document loaders' guard rails (internal to core/trainers). Throws LoadError with
// file:line:column for text that does not parse.
#include <string>
#include <string_view>

#include "doc/document.h"

namespace tessera::core::trainers {

Value parseToml(std::string_view text, const std::string& name);
// Whether the text parses as TOML with at least one [table] (a YAML or JSON file never does).
bool looksLikeToml(std::string_view text);

}  // namespace tessera::core::trainers
