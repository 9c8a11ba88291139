#include "trainers/toml.h"

#include <algorithm>
#include <sstream>
#include <toml.hpp>

namespace tessera::core::trainers {

namespace {

Mark markOf(const toml::value& v, const std::string& name) {
    const toml::source_location at = v.location();
    return Mark{name, int(at.line()), int(at.column())};
}

Value convert(const toml::value& v, const std::string& name, std::size_t& nodes) {
    if (++nodes > kMaxNodes) throw LoadError(markOf(v, name), "more than " + std::to_string(kMaxNodes) + " values");
    const Mark m = markOf(v, name);
    switch (v.type()) {
    case toml::value_t::boolean: return Value::boolean(v.as_boolean(), m);
    case toml::value_t::integer: return Value::integer(v.as_integer(), m);
    case toml::value_t::floating: return Value::number(v.as_floating(), m);
    case toml::value_t::string: return Value::string(v.as_string().str, m);
    case toml::value_t::array: {
        Value list = Value::list(m);
        for (const toml::value& item : v.as_array()) list.push(convert(item, name, nodes));
        return list;
    }
    case toml::value_t::table: {
        // toml11 keeps no key order: the file's order is where each value stands.
        std::vector<std::pair<std::string, const toml::value*>> entries;
        for (const auto& [key, value] : v.as_table()) entries.emplace_back(key, &value);
        std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
            const auto la = a.second->location(), lb = b.second->location();
            return std::pair(la.line(), la.column()) < std::pair(lb.line(), lb.column());
        });
        Value map = Value::map(m);
        for (const auto& [key, value] : entries) {
            Value child = convert(*value, name, nodes);
            const Mark km = child.mark();
            map.set(key, std::move(child), km);
        }
        return map;
    }
    default: {  // dates and times: kept as their text
        std::ostringstream s;
        s << v;
        return Value::string(s.str(), m);
    }
    }
}

}  // namespace

bool looksLikeToml(std::string_view text) {
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        const auto start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        return line[start] == '[' && line.find(']') != std::string::npos && line.find(':') == std::string::npos;
    }
    return false;
}

Value parseToml(std::string_view text, const std::string& name) {
    if (text.size() > kMaxFileBytes) throw LoadError(Mark{name, 0, 0}, "larger than " + std::to_string(kMaxFileBytes) + " bytes");
    // The parser recurses into nested arrays and inline tables: refuse deep nesting first.
    int depth = 0, line = 1, column = 0;
    char quote = 0;
    bool comment = false;
    for (char c : text) {
        ++column;
        if (c == '\n') { ++line, column = 0, comment = false; continue; }
        if (comment) continue;
        if (quote) { if (c == quote) quote = 0; continue; }
        if (c == '"' || c == '\'') quote = c;
        else if (c == '#') comment = true;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth) throw LoadError(Mark{name, line, column}, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        } else if (c == ']' || c == '}') depth = std::max(0, depth - 1);
    }
    std::istringstream in{std::string(text)};
    try {
        const toml::value root = toml::parse(in, name);
        std::size_t nodes = 0;
        return convert(root, name, nodes);
    } catch (const toml::syntax_error& e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        if (what.starts_with("[error] ")) what = what.substr(8);
        const toml::source_location at = e.location();
        throw LoadError(Mark{name, int(at.line()), int(at.column())}, what);
    } catch (const toml::exception& e) {
        std::string what = e.what();
        throw LoadError(Mark{name, int(e.location().line()), int(e.location().column())}, what.substr(0, what.find('\n')));
    }
}

}  // namespace tessera::core::trainers
