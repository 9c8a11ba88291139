#pragma once
// A parsed YAML or JSON document as a plain tree that remembers where each value
// stood (file, line, column, 1-based), so every later refusal can point at the
// text. Both loaders refuse hostile input before it can hurt: files over
// kMaxFileBytes, nesting deeper than kMaxDepth, more than kMaxNodes values (YAML
// aliases can otherwise expand exponentially), integers outside int64, duplicate
// keys and non-scalar keys. Scalars are typed by the YAML 1.2 core schema
// (true/false, ~/null, decimal/0x/0o integers, floats with .inf/.nan); a quoted
// scalar is always a string, so `"8"` is text, not a number.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/diagnostics.h"

namespace tessera::core {


class Value {
public:
    enum class Kind { Null, Bool, Int, Float, String, List, Map };
    struct Entry;

    Value() = default;
    static Value null(Mark mark = {});
    static Value boolean(bool b, Mark mark = {});
    static Value integer(std::int64_t i, Mark mark = {});
    static Value number(double d, Mark mark = {});
    static Value string(std::string s, Mark mark = {});
    static Value list(Mark mark = {});
    static Value map(Mark mark = {});

    Kind kind() const { return m_kind; }
    bool isNull() const { return m_kind == Kind::Null; }
    bool isMap() const { return m_kind == Kind::Map; }
    bool isList() const { return m_kind == Kind::List; }
    bool isScalar() const { return m_kind != Kind::List && m_kind != Kind::Map; }
    const Mark& mark() const { return m_mark; }
    void setMark(Mark mark) { m_mark = std::move(mark); }

    bool asBool() const { return m_bool; }
    std::int64_t asInt() const { return m_int; }
    double asDouble() const { return m_kind == Kind::Int ? static_cast<double>(m_int) : m_double; }
    const std::string& asString() const { return m_string; }

    // Lists.
    const std::vector<Value>& items() const { return m_items; }
    void push(Value v);  // defined after Entry: clang instantiates the vector here
    // The last item of a list or the last entry's value of a map (for builders).
    Value& back();

    // Maps keep the document's key order.
    const std::vector<Entry>& entries() const { return m_entries; }
    const Value* find(std::string_view key) const;
    Value* find(std::string_view key);
    const Entry* findEntry(std::string_view key) const;
    void set(std::string key, Value v, Mark keyMark = {});  // replaces or appends
    void erase(std::string_view key);

    // The same content, key order included; where values stood is not compared.
    bool sameAs(const Value& other) const;

    // How a value reads in a message: `8`, `"eight"`, `a list`, `a mapping`.
    std::string describe() const;
    // The kind in words: "a whole number", "text", ...
    static std::string kindName(Kind kind);

private:
    Kind m_kind = Kind::Null;
    Mark m_mark;
    bool m_bool = false;
    std::int64_t m_int = 0;
    double m_double = 0;
    std::string m_string;
    std::vector<Value> m_items;
    std::vector<Entry> m_entries;
};

struct Value::Entry {
    std::string key;
    Mark keyMark;
    Value value;
};

inline void Value::push(Value v) { m_items.push_back(std::move(v)); }

// A document that does not parse (syntax, a guard rail, a duplicate key): a
// SpecError with one diagnostic, "file:line:column: message". A file that cannot be
// opened or read at all is a FileError instead (loadDocument).
class LoadError : public SpecError {
public:
    // `path`: the keys down to the value, "model.num_hidden_layers", when the problem is one value's.
    LoadError(Mark mark, const std::string& message, std::string path = {});
    const Mark& mark() const { return diagnostics().front().mark; }
    const std::string& message() const { return diagnostics().front().message; }
};

inline constexpr std::size_t kMaxFileBytes = 4u << 20;  // scenarios and HF configs are kilobytes
inline constexpr int kMaxDepth = 64;                     // a scenario nests five deep
inline constexpr std::size_t kMaxNodes = 200000;

enum class Format { Yaml, Json };
// JSON when the name ends in .json, else YAML (a superset of JSON).
Format formatForName(std::string_view fileName);

// Parse text; `name` is used in marks and messages. Throws LoadError.
Value parseDocument(std::string_view text, const std::string& name, Format format);
// Read and parse a file, refusing it before reading when it is too large. Throws
// FileError when it cannot be opened or read, LoadError when it does not parse.
Value loadDocument(const std::string& path);

// Core-schema typing of one plain (unquoted) YAML scalar; throws LoadError for
// an integer outside int64.
Value typePlainScalar(const std::string& text, const Mark& mark);

}  // namespace tessera::core
