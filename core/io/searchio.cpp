// The search section: space (exec keys to candidate lists or `auto`),
// constraints, objective and keep.
#include <algorithm>
#include <set>

#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "spec/execspec.h"

namespace tessera::core {

namespace {

Choices choicesFor(AxisType type) {
    switch (type) {
    case AxisType::Recompute: return kSearchRecompute;
    case AxisType::Schedule: return kPipelineSchedules;
    case AxisType::SelectiveRule: return kSelectiveRules;
    case AxisType::CpAlgorithm: return kCpAlgorithms;
    case AxisType::Partition: return kSearchPartition;
    default: return {};
    }
}

std::optional<SearchValue> readCandidate(const Value& v, AxisType type, const std::string& path, Diagnostics& d) {
    if (type == AxisType::Count) {
        if (auto n = readInteger(v, IntRange{1, 1 << 24}, path, d)) return SearchValue{*n};
        return std::nullopt;
    }
    if (type == AxisType::Flag) {
        if (v.kind() == Value::Kind::Bool) return SearchValue{v.asBool()};
        d.add(v.mark(), path, "expected true or false, got " + v.describe());
        return std::nullopt;
    }
    const Choices choices = choicesFor(type);
    if (v.kind() == Value::Kind::String && std::find(choices.begin(), choices.end(), v.asString()) != choices.end())
        return SearchValue{v.asString()};
    d.add(v.mark(), path, "expected one of " + choicesText(choices) + ", got " + v.describe());
    return std::nullopt;
}

Value candidateValue(const SearchValue& v) {
    if (auto* n = std::get_if<std::int64_t>(&v)) return Value::integer(*n);
    if (auto* b = std::get_if<bool>(&v)) return Value::boolean(*b);
    return Value::string(std::get<std::string>(v));
}

}  // namespace

SearchSpec readSearch(const Value& map, Diagnostics& d) {
    SearchSpec s;
    if (const Value* space = map.find("space"); space && !space->isNull()) {
        if (!space->isMap()) {
            d.add(space->mark(), "search.space", "expected a mapping of exec keys to candidate lists or auto, got " + space->describe());
        } else {
            std::vector<std::string_view> known;
            for (const AxisInfo& axis : searchAxes()) {
                known.push_back(axis.key);
                const Value* v = space->find(axis.key);
                if (!v || v->isNull()) continue;
                const std::string path = "search.space." + std::string(axis.key);
                if (v->kind() == Value::Kind::String && v->asString() == "auto") {
                    s.space.push_back({std::string(axis.key), std::nullopt});
                    continue;
                }
                // One named choice stands for a list of it (recompute: per_layer).
                if (v->kind() == Value::Kind::String && !choicesFor(axis.type).empty()) {
                    if (auto c = readCandidate(*v, axis.type, path, d)) s.space.push_back({std::string(axis.key), std::vector<SearchValue>{*c}});
                    continue;
                }
                if (!v->isList() || v->items().empty()) {
                    d.add(v->mark(), path, "expected auto or a non-empty list of candidates, got " + v->describe());
                    continue;
                }
                std::vector<SearchValue> values;
                // A set, not a search of `values`: checking a list of 100,000 candidates
                // pairwise took seconds (the guard-rail test tst_fuzzregress found it).
                std::set<SearchValue> seen;
                for (std::size_t i = 0; i < v->items().size(); ++i) {
                    auto c = readCandidate(v->items()[i], axis.type, path + "[" + std::to_string(i) + "]", d);
                    if (!c) continue;
                    if (!seen.insert(*c).second)
                        d.add(v->items()[i].mark(), path, "candidate " + v->items()[i].describe() + " is listed twice");
                    else values.push_back(*c);
                }
                s.space.push_back({std::string(axis.key), std::move(values)});
            }
            refuseUnknownKeys(*space, known, "search.space", d);
        }
    }
    if (const Value* constraints = map.find("constraints"); constraints && !constraints->isNull()) {
        if (!constraints->isMap()) d.add(constraints->mark(), "search.constraints", "expected a mapping, got " + constraints->describe());
        else SpecReader(*constraints, "search.constraints", d).read(s.constraints);
    }
    SpecReader section(map, "search", d);
    section.allow("space");
    section.allow("constraints");
    section.read(s);
    return s;
}

Value searchValue(const SearchSpec& s) {
    Value out = Value::map();
    if (!s.space.empty()) {
        Value space = Value::map();
        for (const SearchAxis& axis : s.space) {
            if (!axis.values) {
                space.set(axis.key, Value::string("auto"));
                continue;
            }
            Value list = Value::list();
            for (const SearchValue& v : *axis.values) list.push(candidateValue(v));
            space.set(axis.key, std::move(list));
        }
        out.set("space", std::move(space));
    }
    if (Value constraints = SpecWriter::write(s.constraints); !constraints.entries().empty())
        out.set("constraints", std::move(constraints));
    const Value fields = SpecWriter::write(s);  // (a temporary's entries() would dangle in the loop)
    for (const Value::Entry& e : fields.entries()) out.set(e.key, e.value);
    return out;
}

}  // namespace tessera::core
