#pragma once
// Where two documents differ, key by key: what a stale search names as the change
// since it ran ("model.num_layers 80 → 40"). Maps are compared key by key (a key on
// one side only is a change from or to absent); lists and scalars as wholes.
#include <functional>
#include <string>
#include <vector>

#include "doc/document.h"

namespace tessera::core {

struct ValueChange {
    std::string path;    // "exec.tp"; "model" when a whole section appears or goes
    std::string before;  // Value::describe(), or "absent"
    std::string after;
    std::string text() const;  // "exec.tp 8 → 4"
};

// `text` writes each side's value (Value::describe() when not given).
using ValueText = std::function<std::string(const Value&)>;
std::vector<ValueChange> valueChanges(const Value& before, const Value& after, const std::string& prefix = {},
                                      const ValueText& text = {});

}  // namespace tessera::core
