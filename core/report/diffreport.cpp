#include "report/diffreport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "doc/emit.h"
#include "doc/valuediff.h"
#include "io/scenarioio.h"
#include "report/estimatereport.h"
#include "units/units.h"

namespace tessera::core {

namespace {

// A value as a reviewer reads it in a column: text bare, lists and maps as one line of JSON.
std::string valueText(const Value& v) {
    if (v.kind() == Value::Kind::String) return v.asString();
    if (v.isList() || v.isMap()) {
        std::string text = toJson(v).dump();
        return text.size() > 60 ? text.substr(0, 57) + "..." : text;
    }
    return v.describe();
}

std::string sourceOf(const ResolvedScenario& r, const std::string& path, const std::string& value) {
    if (value == "absent") return {};
    // A field of a section filled as a whole (a preset model) is filled with it.
    for (std::string at = path;;) {
        if (const auto it = r.filled.find(at); it != r.filled.end()) return it->second.text();
        const std::size_t dot = at.rfind('.');
        if (dot == std::string::npos) return "stated";
        at.resize(dot);
    }
}

struct Figures {
    std::vector<FigureDifference>& out;
    int& unchanged;
    void add(std::string key, std::string unit, std::optional<double> a, std::optional<double> b) {
        if (a == b) ++unchanged;
        else out.push_back({std::move(key), std::move(unit), a, b});
    }
};

std::string figureText(const std::string& unit, double x) {
    if (unit == "s") return formatSeconds(x);
    if (unit == "bytes") return gibNumber(Bytes(std::clamp(x, -0x1p62, 0x1p62)), 2) + " GiB";
    if (unit == "%") return formatText("%.1f %%", x);
    if (unit == "days") return formatDays(x);
    return countText(x) + (unit == "count" ? "" : " " + unit);
}

std::string changeText(const FigureDifference& f) {
    if (!f.a || !f.b) return f.a ? "gone" : "new";
    const double d = *f.b - *f.a;
    const std::string sign = d >= 0 ? "+" : "−";
    std::string text = sign + figureText(f.unit, std::abs(d));
    if (f.unit == "%") text = sign + formatText("%.1f pt", std::abs(d));
    if (*f.a != 0 && f.unit != "%") text += formatText(" (%s%.1f %%)", sign.c_str(), std::abs(d / *f.a) * 100);
    return text;
}

std::string pad(const std::string& text, std::size_t width) {
    // Columns count characters, not bytes: "−" and "·" are one column each.
    std::size_t columns = 0;
    for (unsigned char c : text) columns += (c & 0xC0) != 0x80;
    return text + std::string(width > columns ? width - columns : 1, ' ');
}

}  // namespace

ScenarioDiff diffScenarios(const DiffSide& a, const DiffSide& b) {
    ScenarioDiff d;
    for (const ValueChange& c : valueChanges(scenarioValue(a.resolved->scenario), scenarioValue(b.resolved->scenario), {}, valueText))
        d.fields.push_back({c.path, c.before, c.after, sourceOf(*a.resolved, c.path, c.before), sourceOf(*b.resolved, c.path, c.after)});

    const Estimate &x = *a.estimate, &y = *b.estimate;
    d.aFits = x.fits, d.bFits = y.fits;
    Figures f{d.figures, d.figuresUnchanged};
    f.add("peak memory", "bytes", double(x.peakMemory), double(y.peakMemory));
    f.add("device memory", "bytes", double(x.deviceMemory), double(y.deviceMemory));
    f.add("step time", "s", x.stepSeconds, y.stepSeconds);
    f.add("tokens/s", "tokens/s", x.tokensPerSecond, y.tokensPerSecond);
    f.add("MFU", "%", x.mfu * 100, y.mfu * 100);
    f.add("bubble", "%", x.bubbleFraction * 100, y.bubbleFraction * 100);
    f.add("step: compute", "s", x.breakdown.compute, y.breakdown.compute);
    f.add("step: recompute", "s", x.breakdown.recompute, y.breakdown.recompute);
    f.add("step: exposed communication", "s", x.breakdown.communicationExposed, y.breakdown.communicationExposed);
    f.add("step: bubble", "s", x.breakdown.bubble, y.breakdown.bubble);
    f.add("step: optimizer", "s", x.breakdown.optimizer, y.breakdown.optimizer);
    f.add("GPU-hours per trillion tokens", "GPU-h", x.gpuHoursPerTrillionTokens, y.gpuHoursPerTrillionTokens);
    f.add("days to train", "days", x.trainDays, y.trainDays);
    f.add("parameters", "count", double(x.totalParameters), double(y.totalParameters));
    const std::size_t stages = std::max(x.stages.size(), y.stages.size());
    for (std::size_t s = 0; s < stages; ++s) {
        const StageMemory* m = s < x.stages.size() ? &x.stages[s].memory : nullptr;
        const StageMemory* n = s < y.stages.size() ? &y.stages[s].memory : nullptr;
        auto bytes = [](const StageMemory* at, Bytes StageMemory::*term) {
            return at ? std::optional<double>(double(at->*term)) : std::nullopt;
        };
        // The terms in the words the memory table and the chart's legend use ("master copy",
        // not the JSON key main_parameters).
        for (const MemoryTerm& term : kMemoryTerms) {
            std::string words = term.name;
            words[0] = char(std::tolower(static_cast<unsigned char>(words[0])));
            f.add("stage " + std::to_string(s) + " " + words, "bytes", bytes(m, term.bytes), bytes(n, term.bytes));
        }
        f.add("stage " + std::to_string(s) + " total", "bytes", m ? std::optional<double>(double(m->total())) : std::nullopt,
              n ? std::optional<double>(double(n->total())) : std::nullopt);
    }
    return d;
}

std::string diffText(const DiffSide& a, const DiffSide& b, const ScenarioDiff& d) {
    std::string out;
    auto verdict = [](const Estimate& e) { return e.fits ? std::string("fits") : std::string("DOES NOT FIT"); };
    out += "A: " + a.name + "\n   " + headline(*a.resolved) + " · " + verdict(*a.estimate) + "\n   " + strategyLine(*a.resolved) + "\n";
    out += "B: " + b.name + "\n   " + headline(*b.resolved) + " · " + verdict(*b.estimate) + "\n   " + strategyLine(*b.resolved) + "\n\n";
    std::size_t keyWidth = 30, valueWidth = 14;
    for (const FieldDifference& f : d.fields)
        keyWidth = std::max(keyWidth, f.path.size() + 2), valueWidth = std::max(valueWidth, std::max(f.a.size(), f.b.size()) + 2);
    valueWidth = std::min<std::size_t>(valueWidth, 40);
    if (d.fields.empty()) {
        out += "No field differs: the two resolve to the same scenario.\n";
    } else {
        out += formatText("Fields that differ (%zu)\n", d.fields.size());
        out += "  " + pad("field", keyWidth) + pad("A", valueWidth) + pad("B", valueWidth) + "where each came from (A / B)\n";
        for (const FieldDifference& f : d.fields)
            out += "  " + pad(f.path, keyWidth) + pad(f.a, valueWidth) + pad(f.b, valueWidth) +
                   (f.aSource.empty() ? "-" : f.aSource) + " / " + (f.bSource.empty() ? "-" : f.bSource) + "\n";
    }
    out += "\n";
    if (d.figures.empty()) {
        out += formatText("No figure moves (%d compared).\n", d.figuresUnchanged);
        return out;
    }
    out += formatText("Figures that move (%zu; %d unchanged)\n", d.figures.size(), d.figuresUnchanged);
    out += "  " + pad("figure", keyWidth) + pad("A", 16) + pad("B", 16) + "B - A\n";
    bool stagesStarted = false;
    for (const FigureDifference& f : d.figures) {
        if (!stagesStarted && f.key.starts_with("stage ")) {
            stagesStarted = true;
            out += "  memory per device, by stage:\n";
        }
        out += "  " + pad(f.key, keyWidth) + pad(f.a ? figureText(f.unit, *f.a) : "absent", 16) +
               pad(f.b ? figureText(f.unit, *f.b) : "absent", 16) + changeText(f) + "\n";
    }
    if (d.aFits != d.bFits) out += std::string("\nThe verdict changes: A ") + (*d.aFits ? "fits" : "does not fit") + ", B " +
                                   (*d.bFits ? "fits" : "does not fit") + ".\n";
    return out;
}

std::string diffJson(const DiffSide& a, const DiffSide& b, const ScenarioDiff& d) {
    using json = nlohmann::ordered_json;
    json out;
    out["a"] = {{"name", a.name}, {"strategy", strategyLine(*a.resolved)}, {"fits", a.estimate->fits}};
    out["b"] = {{"name", b.name}, {"strategy", strategyLine(*b.resolved)}, {"fits", b.estimate->fits}};
    json fields = json::array();
    for (const FieldDifference& f : d.fields)
        fields.push_back({{"path", f.path}, {"a", f.a}, {"b", f.b}, {"a_source", f.aSource}, {"b_source", f.bSource}});
    out["fields"] = fields;
    json figures = json::array();
    auto number = [](const std::optional<double>& x) { return x ? json(*x) : json(nullptr); };
    for (const FigureDifference& f : d.figures)
        figures.push_back({{"figure", f.key}, {"unit", f.unit}, {"a", number(f.a)}, {"b", number(f.b)},
                           {"change", f.a && f.b ? json(*f.b - *f.a) : json(nullptr)}});
    out["figures"] = figures;
    out["figures_unchanged"] = d.figuresUnchanged;
    return out.dump(2) + "\n";
}

}  // namespace tessera::core
