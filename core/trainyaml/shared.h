#pragma once
// Helpers the train.yaml writer and reader share (internal to core/io).
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "doc/document.h"
#include "spec/clusterspec.h"
#include "spec/execspec.h"
#include "spec/modelspec.h"

namespace tessera::core::trainyaml {

inline std::string num(std::int64_t n) { return std::to_string(n); }

// Tessera's own pricing settings, which no trainer's file states: why each goes nowhere
// in an export (the train.yaml writer and core/trainers both say it); empty for any other key.
inline std::string_view tesseraOnlyReason(std::string_view key) {
    if (key == "device_memory") return "a memory budget Tessera prices against, not a trainer setting";
    if (key == "memory_reserve") return "the memory Tessera keeps free on every stage, not a trainer setting";
    if (key == "host_link_overlap") return "the share of compute Tessera lets a host copy hide behind, not a trainer setting";
    if (key == "selective_rule") return "whose selective recompute Tessera prices, not a trainer setting";
    return {};
}
// The trainer's name of a recompute option: HyperParallel says `off` for none.
inline std::string modeOf(const std::string& option) { return option == "none" ? "off" : option; }

// The keys of a spec's field table, in table order: which config_overrides keys
// are model fields, and the order a hand-written exec section would have.
struct KeyLister {
    std::vector<std::string_view> keys;
    template <class... A> void integer(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void real(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void flag(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void text(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void choice(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void textList(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void memory(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void numberMap(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void stageCounts(Field f, A&&...) { keys.push_back(f.key); }
    template <class... A> void ranges(Field f, A&&...) { keys.push_back(f.key); }
};

template <class Spec>
inline const std::vector<std::string_view>& fieldKeys() {
    static const std::vector<std::string_view> keys = [] {
        Spec spec;
        KeyLister lister;
        visit(spec, lister);
        return lister.keys;
    }();
    return keys;
}

// A section in its field table's order, as a hand-written one reads; a file
// reference stays in front of the fields it overrides.
template <class Spec>
inline Value inTableOrder(const Value& map) {
    Value out = Value::map(map.mark());
    if (const Value::Entry* file = map.findEntry("file")) out.set(file->key, file->value, file->keyMark);
    for (std::string_view key : fieldKeys<Spec>())
        if (const Value::Entry* e = map.findEntry(key)) out.set(e->key, e->value, e->keyMark);
    return out;
}

inline bool contains(std::span<const std::string_view> keys, std::string_view key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace tessera::core::trainyaml
