#include "io/specreader.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::core {

std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

namespace {

std::string joinKeys(const std::vector<std::string_view>& keys) {
    std::string out;
    for (std::string_view k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}

}  // namespace

std::string rangeText(IntRange range) {
    if (range.max == std::numeric_limits<std::int64_t>::max()) return "a whole number of at least " + std::to_string(range.min);
    return "a whole number from " + std::to_string(range.min) + " to " + std::to_string(range.max);
}

std::string choicesText(Choices choices) {
    std::string out;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
        out += choices[i];
    }
    return out;
}

std::optional<std::int64_t> readInteger(const Value& v, IntRange range, const std::string& path, Diagnostics& d) {
    if (v.kind() == Value::Kind::Int && v.asInt() >= range.min && v.asInt() <= range.max) return v.asInt();
    d.add(v.mark(), path, "expected " + rangeText(range) + ", got " + v.describe());
    return std::nullopt;
}

std::optional<double> readReal(const Value& v, RealRange range, const std::string& path, Diagnostics& d) {
    if (v.kind() != Value::Kind::Int && v.kind() != Value::Kind::Float) {
        d.add(v.mark(), path, "expected a number, got " + v.describe());
        return std::nullopt;
    }
    const double x = v.asDouble();
    if (!std::isfinite(x)) {
        d.add(v.mark(), path, "expected a finite number, got " + v.describe());
        return std::nullopt;
    }
    const bool low = range.minOpen ? x <= range.min : x < range.min;
    const bool high = range.maxOpen ? x >= range.max : x > range.max;
    if (low || high) {
        std::string expected = "a number ";
        expected += range.minOpen ? "above " : "of at least ";
        expected += numberText(range.min);
        if (range.max < 1e6) expected += std::string(range.maxOpen ? " and below " : " and at most ") + numberText(range.max);
        d.add(v.mark(), path, "expected " + expected + ", got " + v.describe());
        return std::nullopt;
    }
    return x;
}

void refuseUnknownKeys(const Value& map, const std::vector<std::string_view>& known, const std::string& section,
                       Diagnostics& d) {
    for (const Value::Entry& e : map.entries()) {
        if (std::find(known.begin(), known.end(), e.key) != known.end()) continue;
        std::string message = "unknown key '" + e.key + "'";
        std::string_view best;
        std::size_t bestDistance = 3;
        for (std::string_view k : known) {
            const std::size_t distance = editDistance(e.key, k);
            if (distance < bestDistance) bestDistance = distance, best = k;
        }
        if (!best.empty()) message += " (did you mean '" + std::string(best) + "'?)";
        message += "; the keys of " + (section.empty() ? std::string("a scenario") : section) + " are: " + joinKeys(known);
        d.add(e.keyMark, section.empty() ? e.key : section + "." + e.key, message);
    }
}

SpecReader::SpecReader(const Value& map, std::string section, Diagnostics& diagnostics)
    : m_map(map), m_section(std::move(section)), m_diagnostics(diagnostics) {}

std::string SpecReader::pathOf(std::string_view key) const { return m_section + "." + std::string(key); }

const Value* SpecReader::take(std::string_view key) {
    m_known.push_back(key);
    const Value* v = m_map.find(key);
    return v && !v->isNull() ? v : nullptr;  // `key:` with nothing after it is unstated
}

void SpecReader::refuse(const Value& value, const std::string& path, const std::string& expected) {
    m_diagnostics.add(value.mark(), path, "expected " + expected + ", got " + value.describe());
}

void SpecReader::finish() { refuseUnknownKeys(m_map, m_known, m_section, m_diagnostics); }

void SpecReader::integer(Field f, std::optional<std::int64_t>& out, IntRange range) {
    if (const Value* v = take(f.key)) out = readInteger(*v, range, pathOf(f.key), m_diagnostics);
}

void SpecReader::real(Field f, std::optional<double>& out, RealRange range) {
    if (const Value* v = take(f.key)) out = readReal(*v, range, pathOf(f.key), m_diagnostics);
}

void SpecReader::flag(Field f, std::optional<bool>& out) {
    const Value* v = take(f.key);
    if (!v) return;
    if (v->kind() == Value::Kind::Bool) out = v->asBool();
    else refuse(*v, pathOf(f.key), "true or false");
}

void SpecReader::text(Field f, std::optional<std::string>& out) {
    const Value* v = take(f.key);
    if (!v) return;
    if (v->kind() == Value::Kind::String) out = v->asString();
    else refuse(*v, pathOf(f.key), "text");
}

void SpecReader::choice(Field f, std::optional<std::string>& out, Choices choices) {
    const Value* v = take(f.key);
    if (!v) return;
    if (v->kind() == Value::Kind::String && std::find(choices.begin(), choices.end(), v->asString()) != choices.end())
        out = v->asString();
    else refuse(*v, pathOf(f.key), "one of " + choicesText(choices));
}

void SpecReader::textList(Field f, std::optional<std::vector<std::string>>& out, Choices choices) {
    const Value* v = take(f.key);
    if (!v) return;
    // No choices: any non-empty text (names, not values from a set).
    const std::string what = choices.empty() ? std::string("non-empty text") : "one of " + choicesText(choices);
    if (!v->isList()) return refuse(*v, pathOf(f.key), "a list of " + (choices.empty() ? what : choicesText(choices)));
    std::vector<std::string> items;
    bool ok = true;
    for (std::size_t i = 0; i < v->items().size(); ++i) {
        const Value& item = v->items()[i];
        const bool allowed = item.kind() == Value::Kind::String &&
                             (choices.empty() ? !item.asString().empty()
                                              : std::find(choices.begin(), choices.end(), item.asString()) != choices.end());
        if (allowed) {
            items.push_back(item.asString());
        } else {
            refuse(item, pathOf(f.key) + "[" + std::to_string(i) + "]", what);
            ok = false;
        }
    }
    if (ok) out = std::move(items);
}

void SpecReader::memory(Field f, std::optional<Bytes>& out, Bytes least) {
    const Value* v = take(f.key);
    if (!v) return;
    std::optional<Bytes> bytes;
    if (v->kind() == Value::Kind::String) bytes = parseMemory(v->asString());
    else if (v->kind() == Value::Kind::Int && v->asInt() >= least) bytes = v->asInt();
    // A bare number is bytes: one under a mebibyte (device_memory: 40) is a unit left out,
    // and would price a budget nothing fits.
    const bool unitless = v->kind() == Value::Kind::Int && bytes && *bytes > 0 && *bytes < MiB;
    if (bytes && *bytes >= least && !unitless) out = bytes;
    else refuse(*v, pathOf(f.key), std::string("an amount of memory such as \"80 GiB\" (binary units; GB means GiB") +
                                       (unitless ? "; a bare number is bytes, and " + std::to_string(*bytes) + " bytes is too little to be meant)"
                                                 : ")") +
                                       (least == 0 ? ", or 0" : ""));
}

void SpecReader::numberMap(Field f, std::optional<std::map<std::string, double>>& out, Choices keys, RealRange range) {
    const Value* v = take(f.key);
    if (!v) return;
    if (!v->isMap()) return refuse(*v, pathOf(f.key), "a mapping of " + choicesText(keys) + " to numbers");
    std::map<std::string, double> values;
    const std::size_t before = m_diagnostics.size();
    for (std::string_view key : keys) {
        if (const Value* item = v->find(key); item && !item->isNull()) {
            if (auto x = readReal(*item, range, pathOf(f.key) + "." + std::string(key), m_diagnostics))
                values[std::string(key)] = *x;
        }
    }
    refuseUnknownKeys(*v, {keys.begin(), keys.end()}, pathOf(f.key), m_diagnostics);
    if (m_diagnostics.size() == before) out = std::move(values);
}

void SpecReader::stageCounts(Field f, std::optional<StageCounts>& out, StageForms forms, IntRange range) {
    const Value* v = take(f.key);
    if (!v) return;
    const std::string path = pathOf(f.key);
    std::string expected;
    auto add = [&](unsigned form, const char* words) {
        if (forms & form) expected += std::string(expected.empty() ? "" : ", or ") + words;
    };
    add(kFormBool, "true or false");
    add(kFormInt, "a whole number");
    add(kFormList, "a list of whole numbers (one per stage)");
    add(kFormNested, "a list of such lists (one per chunk)");
    auto wholeList = [&](const Value& list, const std::string& at) -> std::optional<StageCounts::Flat> {
        StageCounts::Flat items;
        for (std::size_t i = 0; i < list.items().size(); ++i) {
            auto n = readInteger(list.items()[i], range, at + "[" + std::to_string(i) + "]", m_diagnostics);
            if (!n) return std::nullopt;
            items.push_back(*n);
        }
        return items;
    };
    if (v->kind() == Value::Kind::Bool && (forms & kFormBool)) {
        out = StageCounts{v->asBool()};
    } else if (v->kind() == Value::Kind::Int && (forms & kFormInt)) {
        if (auto n = readInteger(*v, range, path, m_diagnostics))
            out = StageCounts{*n};
    } else if (v->isList() && !v->items().empty() && v->items().front().isList() && (forms & kFormNested)) {
        StageCounts::Nested rows;
        for (std::size_t i = 0; i < v->items().size(); ++i) {
            const Value& row = v->items()[i];
            if (!row.isList()) return refuse(row, path + "[" + std::to_string(i) + "]", "a list of whole numbers");
            auto flat = wholeList(row, path + "[" + std::to_string(i) + "]");
            if (!flat) return;
            rows.push_back(std::move(*flat));
        }
        out = StageCounts{std::move(rows)};
    } else if (v->isList() && (forms & kFormList)) {
        if (v->items().empty()) return refuse(*v, path, expected + ", not an empty list");
        if (auto flat = wholeList(*v, path)) out = StageCounts{std::move(*flat)};
    } else {
        refuse(*v, path, expected);
    }
}

void SpecReader::ranges(Field f, std::optional<std::vector<RecomputeRange>>& out) {
    const Value* v = take(f.key);
    if (!v) return;
    const std::string path = pathOf(f.key);
    if (!v->isList()) return refuse(*v, path, "a list of recompute ranges ({first, count, option, ops})");
    std::vector<RecomputeRange> ranges;
    const std::size_t before = m_diagnostics.size();
    std::int64_t end = 0;
    for (std::size_t i = 0; i < v->items().size(); ++i) {
        const Value& item = v->items()[i];
        const std::string at = path + "[" + std::to_string(i) + "]";
        if (!item.isMap()) {
            refuse(item, at, "a recompute range ({first, count, option, ops})");
            continue;
        }
        RecomputeRange range;
        if (const Value* first = item.find("first"); first && !first->isNull())
            range.first = readInteger(*first, IntRange{0}, at + ".first", m_diagnostics).value_or(0);
        if (const Value* count = item.find("count"); count && !count->isNull())
            range.count = readInteger(*count, IntRange{1}, at + ".count", m_diagnostics);
        if (const Value* option = item.find("option"); option && !option->isNull()) {
            if (option->kind() == Value::Kind::String &&
                std::find(std::begin(kRecomputeOptions), std::end(kRecomputeOptions), option->asString()) != std::end(kRecomputeOptions))
                range.option = option->asString();
            else refuse(*option, at + ".option", "one of " + choicesText(kRecomputeOptions));
        }
        if (const Value* ops = item.find("ops"); ops && !ops->isNull()) {
            if (range.option != "selective") {
                m_diagnostics.add(ops->mark(), at + ".ops", "only a selective range states ops, not a '" + range.option + "' one");
            } else if (!ops->isMap()) {
                refuse(*ops, at + ".ops", "a mapping of ops to keep or recompute");
            } else {
                range.ops.emplace();
                for (const Value::Entry& e : ops->entries()) {
                    if (std::find(std::begin(kRecomputeOps), std::end(kRecomputeOps), e.key) == std::end(kRecomputeOps))
                        continue;  // refused below by name
                    if (e.value.kind() != Value::Kind::String ||
                        std::find(std::begin(kOpStates), std::end(kOpStates), e.value.asString()) == std::end(kOpStates))
                        refuse(e.value, at + ".ops." + e.key, "keep or recompute");
                    else range.ops->emplace_back(e.key, e.value.asString());
                }
                refuseUnknownKeys(*ops, {std::begin(kRecomputeOps), std::end(kRecomputeOps)}, at + ".ops", m_diagnostics);
            }
        }
        refuseUnknownKeys(item, {"first", "count", "option", "ops"}, at, m_diagnostics);
        if (range.first < end)
            m_diagnostics.add(item.mark(), at, "recompute ranges must run in model order without overlap: layer " +
                                                   std::to_string(range.first) + " is covered already");
        if (!range.count && i + 1 != v->items().size())
            m_diagnostics.add(item.mark(), at, "only the last recompute range may run to the last layer (state its count)");
        // Saturating: first + count can pass 2^63-1 (both are any whole number), and
        // nothing can follow a range that runs that far anyway.
        if (__builtin_add_overflow(range.first, range.count.value_or(0), &end)) end = std::numeric_limits<std::int64_t>::max();
        ranges.push_back(std::move(range));
    }
    if (m_diagnostics.size() == before) out = std::move(ranges);
}

}  // namespace tessera::core
