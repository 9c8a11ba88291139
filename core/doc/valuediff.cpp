#include "doc/valuediff.h"

namespace tessera::core {

std::string ValueChange::text() const { return path + " " + before + " → " + after; }

namespace {

std::string joined(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

void collect(const Value& a, const Value& b, const std::string& path, const ValueText& text, std::vector<ValueChange>& out) {
    if (!a.isMap() || !b.isMap()) {
        if (!a.sameAs(b)) out.push_back({path, text(a), text(b)});
        return;
    }
    for (const Value::Entry& e : a.entries()) {
        if (const Value* other = b.find(e.key)) collect(e.value, *other, joined(path, e.key), text, out);
        else out.push_back({joined(path, e.key), text(e.value), "absent"});
    }
    for (const Value::Entry& e : b.entries())
        if (!a.find(e.key)) out.push_back({joined(path, e.key), "absent", text(e.value)});
}

}  // namespace

std::vector<ValueChange> valueChanges(const Value& before, const Value& after, const std::string& prefix,
                                      const ValueText& text) {
    std::vector<ValueChange> out;
    collect(before, after, prefix, text ? text : ValueText([](const Value& v) { return v.describe(); }), out);
    return out;
}

}  // namespace tessera::core
