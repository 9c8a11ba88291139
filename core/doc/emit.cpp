#include "doc/emit.h"

#include <cmath>

#include "units/units.h"

namespace tessera::core {

namespace {

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
                out += buffer;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

bool plainSafe(const std::string& s) {
    if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
    const std::string_view first = "-?:,[]{}#&*!|>'\"%@`";
    if (first.find(s.front()) != std::string_view::npos) return false;
    for (unsigned char c : s)
        if (c < 0x20 || c == '#' || c == ':' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}') return false;
    try {
        return typePlainScalar(s, {}).kind() == Value::Kind::String;  // "true", "8", "null" need quotes
    } catch (const LoadError&) {
        return false;
    }
}

std::string scalarText(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return v.asBool() ? "true" : "false";
    case Value::Kind::Int: return std::to_string(v.asInt());
    case Value::Kind::Float: {
        const double d = v.asDouble();
        if (std::isnan(d)) return ".nan";
        if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
        std::string t = numberText(d);
        // YAML 1.1 readers (PyYAML, the trainer's) take a float only with a dot:
        // "3e-04" would read back as text, so write "3.0e-04".
        const std::size_t e = t.find_first_of("eE");
        if (t.find('.') == std::string::npos) t.insert(e == std::string::npos ? t.size() : e, ".0");
        return t;
    }
    case Value::Kind::String: return plainSafe(v.asString()) ? v.asString() : quoted(v.asString());
    default: return "";
    }
}

bool isFlowable(const Value& v) {
    if (v.isScalar()) return true;
    if (v.isList()) {
        for (const Value& item : v.items())
            if (!isFlowable(item) || item.isMap()) return false;
        return true;
    }
    return v.entries().empty();
}

std::string flow(const Value& v) {
    if (v.isMap()) return "{}";
    if (!v.isList()) return scalarText(v);
    std::string out = "[";
    for (std::size_t i = 0; i < v.items().size(); ++i) out += (i ? ", " : "") + flow(v.items()[i]);
    return out + "]";
}

void emitNode(const Value& v, int indent, const std::string& path, const CommentFor& comment, std::string& out);

void emitMap(const Value& v, int indent, const std::string& path, const CommentFor& comment, std::string& out,
             bool firstInline) {
    bool first = true;
    for (const Value::Entry& e : v.entries()) {
        if (!(first && firstInline)) out += std::string(static_cast<std::size_t>(indent), ' ');
        first = false;
        const std::string at = path.empty() ? e.key : path + "." + e.key;
        out += (plainSafe(e.key) ? e.key : quoted(e.key)) + ":";
        const std::string note = comment ? comment(at) : std::string();
        if (isFlowable(e.value)) {
            out += " " + flow(e.value);
            if (!note.empty()) out += "  # " + note;
            out += "\n";
        } else {
            if (!note.empty()) out += "  # " + note;
            out += "\n";
            emitNode(e.value, indent + 2, at, comment, out);
        }
    }
}

void emitNode(const Value& v, int indent, const std::string& path, const CommentFor& comment, std::string& out) {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    if (isFlowable(v)) {
        out += pad + flow(v) + "\n";
    } else if (v.isMap()) {
        emitMap(v, indent, path, comment, out, false);
    } else {
        for (std::size_t i = 0; i < v.items().size(); ++i) {
            const Value& item = v.items()[i];
            const std::string at = path + "[" + std::to_string(i) + "]";
            if (item.isMap() && !item.entries().empty()) {
                out += pad + "- ";
                emitMap(item, indent + 2, at, comment, out, true);
            } else if (isFlowable(item)) {
                out += pad + "- " + flow(item) + "\n";
            } else {
                out += pad + "-\n";
                emitNode(item, indent + 2, at, comment, out);
            }
        }
    }
}

}  // namespace

std::string toYaml(const Value& value, const CommentFor& comment) {
    std::string out;
    emitNode(value, 0, "", comment, out);
    return out;
}

nlohmann::ordered_json toJson(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Null: return nullptr;
    case Value::Kind::Bool: return v.asBool();
    case Value::Kind::Int: return v.asInt();
    case Value::Kind::Float: return v.asDouble();
    case Value::Kind::String: return v.asString();
    case Value::Kind::List: {
        auto array = nlohmann::ordered_json::array();
        for (const Value& item : v.items()) array.push_back(toJson(item));
        return array;
    }
    case Value::Kind::Map: {
        auto object = nlohmann::ordered_json::object();
        for (const Value::Entry& e : v.entries()) object[e.key] = toJson(e.value);
        return object;
    }
    }
    return nullptr;
}

}  // namespace tessera::core
