// The two front ends of parseDocument: yaml-cpp for YAML and nlohmann_json's SAX
// parser for JSON, both building the same positioned Value tree under the limits
// of document.h.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <sstream>
#include <nlohmann/json.hpp>

#include "doc/document.h"

namespace tessera::core {

namespace {

class Budget {
public:
    explicit Budget(std::string name) : m_name(std::move(name)) {}
    void enter(const Mark& mark) {
        if (++m_depth > kMaxDepth)
            throw LoadError(mark, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    void leave() { --m_depth; }
    void count(const Mark& mark) {
        if (++m_nodes > kMaxNodes)
            throw LoadError(mark, "the document holds more than " + std::to_string(kMaxNodes) +
                                      " values (are aliases expanding?)");
    }
    const std::string& name() const { return m_name; }

private:
    std::string m_name;
    int m_depth = 0;
    std::size_t m_nodes = 0;
};

void addEntry(Value& map, std::string key, Mark keyMark, Value value) {
    if (const Value::Entry* first = map.findEntry(key))
        throw LoadError(keyMark, "duplicate key '" + key + "' (first at line " + std::to_string(first->keyMark.line) + ")");
    map.set(std::move(key), std::move(value), std::move(keyMark));
}

// ---- YAML ------------------------------------------------------------------------

Mark yamlMark(const YAML::Node& node, const std::string& name) {
    const YAML::Mark m = node.Mark();
    return Mark{name, m.line + 1, m.column + 1};
}

// The path of a value below `parent`: "model.hidden_size", "exec.recompute[0]".
std::string childPath(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }
std::string itemPath(const std::string& parent, std::size_t i) { return parent + "[" + std::to_string(i) + "]"; }

Value convertYaml(const YAML::Node& node, Budget& budget, const std::string& path) {
    const Mark mark = yamlMark(node, budget.name());
    budget.count(mark);
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return Value::null(mark);
    case YAML::NodeType::Scalar: {
        const std::string& tag = node.Tag();
        if (tag == "!" || tag == "tag:yaml.org,2002:str") return Value::string(node.Scalar(), mark);
        if (tag == "?" || tag.empty() || tag.starts_with("tag:yaml.org,2002:")) {
            try {
                return typePlainScalar(node.Scalar(), mark);
            } catch (const LoadError& e) {  // say which value: "model.num_hidden_layers: integer ... out of range"
                throw LoadError(e.mark(), e.message(), path);
            }
        }
        throw LoadError(mark, "unsupported tag " + tag);
    }
    case YAML::NodeType::Sequence: {
        budget.enter(mark);
        Value list = Value::list(mark);
        for (const YAML::Node& item : node) list.push(convertYaml(item, budget, itemPath(path, list.items().size())));
        budget.leave();
        return list;
    }
    case YAML::NodeType::Map: {
        budget.enter(mark);
        Value map = Value::map(mark);
        for (const auto& pair : node) {
            const Mark keyMark = yamlMark(pair.first, budget.name());
            if (!pair.first.IsScalar()) throw LoadError(keyMark, "a key must be plain text, not a list or mapping");
            addEntry(map, pair.first.Scalar(), keyMark, convertYaml(pair.second, budget, childPath(path, pair.first.Scalar())));
        }
        budget.leave();
        return map;
    }
    }
    return Value::null(mark);
}

// yaml-cpp 0.7 (Debian 12) never returns from LoadAll on some malformed text: when
// no rule consumes the token at the top of a document (a stray ','), the parser
// reports an empty document without moving on, again and again, and LoadAll keeps
// each one until memory runs out (jbeder/yaml-cpp#1040; fuzz_scenario found it with
// the one-byte input ","). So the documents are counted first with the event
// parser, each by where its first node is: a document that starts where the one
// before it started is that stuck token. Only then is the one document built, with
// Load, which reads a single document and stops.
class DocumentStarts : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> starts;  // the first node of each document

    void OnDocumentStart(const YAML::Mark&) override { m_first = true; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& mark) {
        if (m_first) starts.push_back(mark);
        m_first = false;
    }
    bool m_first = false;
};

Value parseYaml(std::string_view text, const std::string& name) {
    YAML::Node doc;
    try {
        std::istringstream in{std::string(text)};
        YAML::Parser parser(in);
        DocumentStarts documents;
        while (parser.HandleNextDocument(documents)) {
            const std::vector<YAML::Mark>& at = documents.starts;
            if (at.size() >= 2 && at.back().pos == at[at.size() - 2].pos) {
                const auto pos = static_cast<std::size_t>(at.back().pos);
                const bool printable = pos < text.size() && std::isprint(static_cast<unsigned char>(text[pos]));
                throw LoadError(Mark{name, at.back().line + 1, at.back().column + 1},
                                "YAML syntax: unexpected " +
                                    (printable ? "'" + std::string(1, text[pos]) + "'" : std::string("character")));
            }
        }
        const std::vector<YAML::Mark>& at = documents.starts;
        if (at.empty()) return Value::null(Mark{name, 1, 1});
        if (at.size() > 1)
            throw LoadError(Mark{name, at[1].line + 1, at[1].column + 1},
                            "the file holds " + std::to_string(at.size()) + " YAML documents; a scenario is one document");
        doc = YAML::Load(std::string(text));
    } catch (const YAML::DeepRecursion& e) {
        throw LoadError(Mark{name, e.mark.line + 1, e.mark.column + 1},
                        "nesting is too deep (yaml-cpp stopped at depth " + std::to_string(e.depth()) + ")");
    } catch (const YAML::Exception& e) {
        throw LoadError(Mark{name, e.mark.line + 1, e.mark.column + 1}, "YAML syntax: " + e.msg);
    }
    Budget budget(name);
    return convertYaml(doc, budget, "");
}

// ---- JSON ------------------------------------------------------------------------

// nlohmann's SAX events carry no positions, so the input iterator records how far
// the lexer has read; each event then walks back over its token to find where the
// token began.
struct Cursor {
    const char* base = nullptr;
    std::size_t offset = 0;
};

class TrackingIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    TrackingIterator() = default;
    TrackingIterator(const char* p, Cursor* cursor) : m_p(p), m_cursor(cursor) {}
    reference operator*() const { return *m_p; }
    TrackingIterator& operator++() {
        ++m_p;
        if (m_cursor) m_cursor->offset = static_cast<std::size_t>(m_p - m_cursor->base);
        return *this;
    }
    TrackingIterator operator++(int) {
        TrackingIterator old = *this;
        ++*this;
        return old;
    }
    bool operator==(const TrackingIterator& other) const { return m_p == other.m_p; }

private:
    const char* m_p = nullptr;
    Cursor* m_cursor = nullptr;
};

class JsonBuilder : public nlohmann::json_sax<nlohmann::json> {
public:
    JsonBuilder(std::string_view text, const std::string& name, const Cursor& cursor)
        : m_text(text), m_cursor(cursor), m_budget(name) {
        m_lineStarts.push_back(0);
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') m_lineStarts.push_back(i + 1);
    }

    Value take() { return std::move(m_root); }

    Mark markAt(std::size_t offset) const {
        auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
        const std::size_t line = static_cast<std::size_t>(it - m_lineStarts.begin());
        return Mark{m_budget.name(), static_cast<int>(line), static_cast<int>(offset - m_lineStarts[line - 1] + 1)};
    }

    bool null() override { return put(Value::null(tokenMark())); }
    bool boolean(bool v) override { return put(Value::boolean(v, tokenMark())); }
    bool number_integer(number_integer_t v) override { return put(Value::integer(v, tokenMark())); }
    bool number_unsigned(number_unsigned_t v) override {
        const Mark mark = tokenMark();
        if (v > static_cast<number_unsigned_t>(std::numeric_limits<std::int64_t>::max()))
            throw LoadError(mark, "integer " + std::to_string(v) + " is out of range (the largest whole number is 2^63-1)", valuePath());
        return put(Value::integer(static_cast<std::int64_t>(v), mark));
    }
    bool number_float(number_float_t v, const string_t& raw) override {
        const Mark mark = tokenMark();
        // nlohmann reads an integer too large for 64 bits as a double; refuse it
        // rather than round it.
        if (raw.find_first_of(".eE") == std::string::npos)
            throw LoadError(mark, "integer " + raw + " is out of range (the largest whole number is 2^63-1)", valuePath());
        return put(Value::number(v, mark));
    }
    bool string(string_t& v) override { return put(Value::string(v, tokenMark())); }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(Value::map(tokenMark())); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(Value::list(tokenMark())); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        m_pendingKey = k;
        m_pendingKeyMark = tokenMark();
        return true;
    }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) override {
        // A number past the double range (1e999) is nlohmann's out_of_range.406; say it
        // as the YAML loader does, not as "[json.exception.out_of_range.406] ...".
        if (ex.id == 406)
            throw LoadError(markAt(position > token.size() ? position - token.size() : 0), "number " + token + " is out of range",
                            valuePath());
        std::string message = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
        if (auto at = message.find("column "); at != std::string::npos) {
            if (auto colon = message.find(": ", at); colon != std::string::npos) message = message.substr(colon + 2);
        }
        throw LoadError(markAt(position > 0 ? position - 1 : 0), "JSON syntax: " + message);
    }

private:
    // The path of the value being read: its container's, then its key or index.
    std::string valuePath() const {
        if (m_stack.empty()) return {};
        return m_stack.back()->isMap() ? childPath(m_paths.back(), m_pendingKey)
                                       : itemPath(m_paths.back(), m_stack.back()->items().size());
    }

    // Where the token that ended at the cursor began.
    Mark tokenMark() const {
        std::size_t end = std::min(m_cursor.offset, m_text.size());
        if (end == 0) return markAt(0);
        std::size_t p = end - 1;
        auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; };
        if (m_text[p] == '"') {
            // Back to the opening quote, one not escaped by an odd run of backslashes.
            while (p > 0) {
                --p;
                if (m_text[p] != '"') continue;
                std::size_t slashes = 0;
                while (p >= slashes + 1 && m_text[p - slashes - 1] == '\\') ++slashes;
                if (slashes % 2 == 0) break;
            }
            return markAt(p);
        }
        if (m_text[p] == '{' || m_text[p] == '[') return markAt(p);
        if (!isWord(m_text[p]) && p > 0) --p;  // the lexer read one character past a number
        while (p > 0 && isWord(m_text[p - 1])) --p;
        return markAt(p);
    }

    bool put(Value v) {
        m_budget.count(v.mark());
        if (m_stack.empty()) {
            m_root = std::move(v);
        } else if (m_stack.back()->isMap()) {
            addEntry(*m_stack.back(), m_pendingKey, m_pendingKeyMark, std::move(v));
        } else {
            m_stack.back()->push(std::move(v));
        }
        return true;
    }
    bool open(Value v) {
        m_budget.enter(v.mark());
        m_paths.push_back(valuePath());
        put(std::move(v));
        m_stack.push_back(m_stack.empty() ? &m_root : &m_stack.back()->back());
        return true;
    }
    bool close() {
        m_budget.leave();
        m_stack.pop_back();
        m_paths.pop_back();
        return true;
    }

    std::string_view m_text;
    const Cursor& m_cursor;
    Budget m_budget;
    std::vector<std::size_t> m_lineStarts;
    Value m_root;
    std::vector<Value*> m_stack;
    std::vector<std::string> m_paths;  // of each open container, beside m_stack
    std::string m_pendingKey;
    Mark m_pendingKeyMark;
};

Value parseJson(std::string_view text, const std::string& name) {
    Cursor cursor{text.data(), 0};
    JsonBuilder builder(text, name, cursor);
    TrackingIterator first(text.data(), &cursor), last(text.data() + text.size(), nullptr);
    nlohmann::json::sax_parse(first, last, &builder);
    return builder.take();
}

}  // namespace

Value parseDocument(std::string_view text, const std::string& name, Format format) {
    if (text.size() > kMaxFileBytes)
        throw LoadError(Mark{name}, "the text is " + std::to_string(text.size()) + " bytes; the limit is " +
                                        std::to_string(kMaxFileBytes));
    return format == Format::Json ? parseJson(text, name) : parseYaml(text, name);
}

}  // namespace tessera::core
