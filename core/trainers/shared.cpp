#include "trainers/shared.h"

#include <charconv>
#include <cmath>

#include "io/presets.h"
#include "io/scenarioio.h"
#include "resolve/expertgrid.h"
#include "trainyaml/shared.h"

namespace tessera::core {

std::string Unpriced::text() const {
    const std::string where = mark.text();
    return (where.empty() ? "" : where + ": ") + key + ": " + why;
}

namespace trainers {

namespace {

std::pair<std::string_view, std::string_view> split(std::string_view path) {
    const auto dot = path.find('.');
    return {path.substr(0, dot), dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1)};
}

}  // namespace

Value& Builder::section(std::string_view name) {
    if (name == "model") return m_model;
    if (name == "cluster") return m_cluster;
    return m_exec;
}

void Builder::set(std::string_view path, Value value) {
    const auto [sec, key] = split(path);
    const Mark mark = value.mark();
    section(sec).set(std::string(key), std::move(value), mark);
}

void Builder::assume(std::string_view path, Value value, std::string why) {
    set(path, std::move(value));
    m_assumed[std::string(path)] = std::move(why);
}

bool Builder::has(std::string_view path) const { return get(path) != nullptr; }

const Value* Builder::get(std::string_view path) const {
    const auto [sec, key] = split(path);
    const Value& s = sec == "model" ? m_model : sec == "cluster" ? m_cluster : m_exec;
    return s.find(key);
}

void Builder::unpriced(const Mark& mark, std::string key, std::string why) {
    m_unpriced.push_back({mark, std::move(key), std::move(why)});
}

Imported Builder::finish(ConfigFormat format, const Mark& root) {
    Imported out;
    out.format = format;
    out.scenario = Value::map(root);
    Value model = trainyaml::inTableOrder<ModelSpec>(m_model);
    if (const Value::Entry* preset = m_model.findEntry("preset")) {  // a preset stays in front of what overrides it
        Value withPreset = Value::map(m_model.mark());
        withPreset.set(preset->key, preset->value, preset->keyMark);
        for (const Value::Entry& e : model.entries()) withPreset.set(e.key, e.value, e.keyMark);
        model = std::move(withPreset);
    }
    out.scenario.set("model", std::move(model));
    out.scenario.set("exec", trainyaml::inTableOrder<ExecSpec>(m_exec));
    out.scenario.set("cluster", m_cluster);
    std::stable_sort(m_unpriced.begin(), m_unpriced.end(), [](const Unpriced& a, const Unpriced& b) {
        return std::pair(a.mark.line, a.mark.column) < std::pair(b.mark.line, b.mark.column);
    });
    out.unpriced = std::move(m_unpriced);
    out.assumed = std::move(m_assumed);
    return out;
}

std::vector<std::string> unexpressedExec(const ResolvedScenario& r, const std::set<std::string>& expressed,
                                         const std::string& trainer) {
    std::vector<std::string> out;
    const Value stated = scenarioValue(r.scenario);
    const Value* exec = stated.find("exec");
    for (std::string_view key : trainyaml::fieldKeys<ExecSpec>()) {
        const std::string k(key);
        if (expressed.contains(k) || r.filled.contains("exec." + k) || !exec || !exec->find(key)) continue;
        // Tessera's own pricing settings go nowhere; anything else the trainer cannot spell.
        const std::string_view why = trainyaml::tesseraOnlyReason(k);
        out.push_back("exec." + k + ": " + (!why.empty() ? std::string(why) : trainer + " has no spelling for it"));
    }
    return out;
}

std::optional<std::int64_t> wholeNumber(std::string_view text) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
}

std::optional<double> realNumber(std::string_view text) {
    if (text.empty()) return std::nullopt;
    try {
        std::size_t used = 0;
        const double d = std::stod(std::string(text), &used);
        if (used != text.size() || !std::isfinite(d)) return std::nullopt;
        return d;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string num(std::int64_t n) { return std::to_string(n); }

std::optional<std::int64_t> product(std::initializer_list<std::int64_t> factors) {
    std::int64_t out = 1;
    for (std::int64_t f : factors)
        if (__builtin_mul_overflow(out, f, &out)) return std::nullopt;
    return out;
}

bool isPresetModel(const ResolvedScenario& r, const std::string& presetId, std::int64_t mtpDepth) {
    try {
        Value holder = Value::map();
        if (mtpDepth < 0) {
            holder.set("model", Value::string(presetId));
        } else {
            Value model = Value::map();
            model.set("preset", Value::string(presetId));
            model.set("mtp_depth", Value::integer(mtpDepth));
            holder.set("model", std::move(model));
        }
        holder.set("exec", Value::map());
        holder.set("cluster", Value::map());
        return resolveModel(scenarioFromValue(holder, "<preset>", "")) == r.scenario.model;
    } catch (const SpecError&) {
        return false;
    }
}

std::optional<Value> statedExpertTp(std::optional<std::int64_t> stated, const Mark& mark, std::int64_t tp,
                                    const std::string& key, Diagnostics& d) {
    if (!stated || *stated == tp) return std::nullopt;  // experts at the dense tp: exec.expert_tp unstated says so
    if (*stated < 1) {
        d.add(mark, key, "expected a whole number of at least 1, got " + num(*stated));
        return std::nullopt;
    }
    return Value::integer(*stated, mark);  // exec.expert_tp: Megatron-LM's meaning (resolve/expertgrid.h)
}

std::int64_t writtenExpertTp(const ResolvedScenario& r) { return expertTp(r.scenario.exec); }

}  // namespace trainers
}  // namespace tessera::core
