#include "io/specwriter.h"

namespace tessera::core {

namespace {
Value intList(const std::vector<std::int64_t>& items) {
    Value list = Value::list();
    for (std::int64_t n : items) list.push(Value::integer(n));
    return list;
}
}  // namespace

Value stageCountsValue(const StageCounts& counts) {
    return std::visit(
        [](const auto& x) -> Value {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>) return Value::boolean(x);
            else if constexpr (std::is_same_v<T, std::int64_t>) return Value::integer(x);
            else if constexpr (std::is_same_v<T, StageCounts::Flat>) return intList(x);
            else {
                Value rows = Value::list();
                for (const auto& row : x) rows.push(intList(row));
                return rows;
            }
        },
        counts.value);
}

void SpecWriter::textList(Field f, const std::optional<std::vector<std::string>>& v, Choices) {
    if (!v) return;
    Value list = Value::list();
    for (const std::string& s : *v) list.push(Value::string(s));
    put(f, std::move(list));
}

void SpecWriter::numberMap(Field f, const std::optional<std::map<std::string, double>>& v, Choices keys, RealRange) {
    if (!v) return;
    Value map = Value::map();
    for (std::string_view key : keys)  // the table's order, not the map's
        if (auto it = v->find(std::string(key)); it != v->end()) map.set(it->first, Value::number(it->second));
    put(f, std::move(map));
}

void SpecWriter::stageCounts(Field f, const std::optional<StageCounts>& v, StageForms, IntRange) {
    if (v) put(f, stageCountsValue(*v));
}

void SpecWriter::ranges(Field f, const std::optional<std::vector<RecomputeRange>>& v) {
    if (!v) return;
    Value list = Value::list();
    for (const RecomputeRange& r : *v) {
        Value item = Value::map();
        item.set("first", Value::integer(r.first));
        if (r.count) item.set("count", Value::integer(*r.count));
        item.set("option", Value::string(r.option));
        if (r.ops) {
            Value ops = Value::map();
            for (const auto& [op, state] : *r.ops) ops.set(op, Value::string(state));
            item.set("ops", std::move(ops));
        }
        list.push(std::move(item));
    }
    put(f, std::move(list));
}

}  // namespace tessera::core
