#include "doc/document.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "units/units.h"

namespace tessera::core {

LoadError::LoadError(Mark mark, const std::string& message, std::string path)
    : SpecError(Diagnostic{std::move(mark), std::move(path), message}) {}

// ---- Value -------------------------------------------------------------------

Value Value::null(Mark mark) {
    Value v;
    v.m_mark = std::move(mark);
    return v;
}
Value Value::boolean(bool b, Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::Bool;
    v.m_bool = b;
    return v;
}
Value Value::integer(std::int64_t i, Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::Int;
    v.m_int = i;
    return v;
}
Value Value::number(double d, Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::Float;
    v.m_double = d;
    return v;
}
Value Value::string(std::string s, Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::String;
    v.m_string = std::move(s);
    return v;
}
Value Value::list(Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::List;
    return v;
}
Value Value::map(Mark mark) {
    Value v = null(std::move(mark));
    v.m_kind = Kind::Map;
    return v;
}

Value& Value::back() { return m_kind == Kind::Map ? m_entries.back().value : m_items.back(); }

const Value::Entry* Value::findEntry(std::string_view key) const {
    for (const Entry& e : m_entries)
        if (e.key == key) return &e;
    return nullptr;
}

Value* Value::find(std::string_view key) {
    for (Entry& e : m_entries)
        if (e.key == key) return &e.value;
    return nullptr;
}

const Value* Value::find(std::string_view key) const {
    const Entry* e = findEntry(key);
    return e ? &e->value : nullptr;
}

void Value::set(std::string key, Value v, Mark keyMark) {
    for (Entry& e : m_entries) {
        if (e.key == key) {
            e.value = std::move(v);
            return;
        }
    }
    m_entries.push_back({std::move(key), std::move(keyMark), std::move(v)});
}

void Value::erase(std::string_view key) {
    std::erase_if(m_entries, [&](const Entry& e) { return e.key == key; });
}

bool Value::sameAs(const Value& o) const {
    if (m_kind != o.m_kind) return false;
    switch (m_kind) {
    case Kind::Null: return true;
    case Kind::Bool: return m_bool == o.m_bool;
    case Kind::Int: return m_int == o.m_int;
    case Kind::Float: return m_double == o.m_double || (std::isnan(m_double) && std::isnan(o.m_double));
    case Kind::String: return m_string == o.m_string;
    case Kind::List:
        return std::equal(m_items.begin(), m_items.end(), o.m_items.begin(), o.m_items.end(),
                          [](const Value& a, const Value& b) { return a.sameAs(b); });
    case Kind::Map:
        return std::equal(m_entries.begin(), m_entries.end(), o.m_entries.begin(), o.m_entries.end(),
                          [](const Entry& a, const Entry& b) { return a.key == b.key && a.value.sameAs(b.value); });
    }
    return false;
}

std::string Value::kindName(Kind kind) {
    switch (kind) {
    case Kind::Null: return "nothing (null)";
    case Kind::Bool: return "true or false";
    case Kind::Int: return "a whole number";
    case Kind::Float: return "a number";
    case Kind::String: return "text";
    case Kind::List: return "a list";
    case Kind::Map: return "a mapping";
    }
    return "?";
}

std::string Value::describe() const {
    switch (m_kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return m_bool ? "true" : "false";
    case Kind::Int: return std::to_string(m_int);
    case Kind::Float:
        if (std::isnan(m_double)) return ".nan";
        if (std::isinf(m_double)) return m_double > 0 ? ".inf" : "-.inf";
        return numberText(m_double);
    case Kind::String: {
        std::string s = m_string.size() > 60 ? m_string.substr(0, 57) + "..." : m_string;
        return "\"" + s + "\"";
    }
    case Kind::List: return "a list of " + std::to_string(m_items.size());
    case Kind::Map: return "a mapping";
    }
    return "?";
}

Format formatForName(std::string_view fileName) {
    std::string lower(fileName);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.ends_with(".json") ? Format::Json : Format::Yaml;
}

// ---- plain scalar typing (YAML 1.2 core schema) -----------------------------------

namespace {

bool allOf(std::string_view s, auto pred) { return !s.empty() && std::all_of(s.begin(), s.end(), pred); }

bool isDecimalFloat(std::string_view s) {
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exp = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp;
        if (exp == 0) return false;
    }
    return i == s.size();
}

}  // namespace

Value typePlainScalar(const std::string& text, const Mark& mark) {
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return Value::null(mark);
    if (text == "true" || text == "True" || text == "TRUE") return Value::boolean(true, mark);
    if (text == "false" || text == "False" || text == "FALSE") return Value::boolean(false, mark);

    std::string_view body = text;
    bool negative = false;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    int base = 0;
    std::string_view digits;
    if (allOf(body, [](unsigned char c) { return std::isdigit(c); })) {
        base = 10, digits = body;
    } else if (text.starts_with("0x") && allOf(body.substr(2), [](unsigned char c) { return std::isxdigit(c); })) {
        base = 16, digits = body.substr(2);
    } else if (text.starts_with("0o") && allOf(body.substr(2), [](unsigned char c) { return c >= '0' && c <= '7'; })) {
        base = 8, digits = body.substr(2);
    }
    if (base != 0) {
        std::uint64_t magnitude = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
        const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
        if (ec != std::errc{} || end != digits.data() + digits.size() || magnitude > limit)
            throw LoadError(mark, "integer " + text + " is out of range (the largest whole number is 2^63-1)");
        const auto value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
        return Value::integer(value, mark);
    }
    if (text == ".nan" || text == ".NaN" || text == ".NAN")
        return Value::number(std::numeric_limits<double>::quiet_NaN(), mark);
    for (const char* inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
        if (text == inf) return Value::number(std::numeric_limits<double>::infinity(), mark);
    for (const char* inf : {"-.inf", "-.Inf", "-.INF"})
        if (text == inf) return Value::number(-std::numeric_limits<double>::infinity(), mark);
    if (isDecimalFloat(text)) {
        double d = 0;
        const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
        auto [end, ec] = std::from_chars(begin, text.data() + text.size(), d);
        if (ec == std::errc::result_out_of_range) throw LoadError(mark, "number " + text + " is out of range");
        if (ec == std::errc{} && end == text.data() + text.size()) return Value::number(d, mark);
    }
    return Value::string(text, mark);
}

Value loadDocument(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw FileError(Diagnostic{Mark{path}, "", "cannot open the file"});
    const std::streamoff size = in.tellg();
    if (size < 0) throw FileError(Diagnostic{Mark{path}, "", "cannot read the file"});
    if (static_cast<std::size_t>(size) > kMaxFileBytes)
        throw LoadError(Mark{path}, "the file is " + withThousands(size) +
                                        " bytes; the limit is " + withThousands(kMaxFileBytes) +
                                        " bytes (a scenario or model config is a few kilobytes)");
    in.seekg(0);
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), size);
    if (!in) throw FileError(Diagnostic{Mark{path}, "", "cannot read the file"});
    return parseDocument(text, path, formatForName(path));
}

}  // namespace tessera::core
