#pragma once
// Writes a spec's stated fields into a mapping by visiting its field table, in
// table order, leaving unstated fields out (never writing null), so a written
// file reads back to the same spec and looks like a hand-written one.
#include "doc/document.h"
#include "spec/clusterspec.h"
#include "spec/execspec.h"
#include "spec/modelspec.h"
#include "spec/searchspec.h"

namespace tessera::core {

class SpecWriter {
public:
    template <class Spec>
    static Value write(const Spec& spec) {
        SpecWriter writer;
        visit(spec, writer);
        return std::move(writer.m_map);
    }

    void integer(Field f, const std::optional<std::int64_t>& v, IntRange) { if (v) put(f, Value::integer(*v)); }
    void real(Field f, const std::optional<double>& v, RealRange) { if (v) put(f, Value::number(*v)); }
    void flag(Field f, const std::optional<bool>& v) { if (v) put(f, Value::boolean(*v)); }
    void text(Field f, const std::optional<std::string>& v) { if (v) put(f, Value::string(*v)); }
    void choice(Field f, const std::optional<std::string>& v, Choices) { if (v) put(f, Value::string(*v)); }
    void textList(Field f, const std::optional<std::vector<std::string>>& v, Choices);
    void memory(Field f, const std::optional<Bytes>& v, Bytes) { if (v) put(f, Value::string(memoryText(*v))); }
    void numberMap(Field f, const std::optional<std::map<std::string, double>>& v, Choices keys, RealRange);
    void stageCounts(Field f, const std::optional<StageCounts>& v, StageForms, IntRange);
    void ranges(Field f, const std::optional<std::vector<RecomputeRange>>& v);

private:
    void put(Field f, Value v) { m_map.set(std::string(f.key), std::move(v)); }
    Value m_map = Value::map();
};

Value stageCountsValue(const StageCounts& counts);

}  // namespace tessera::core
