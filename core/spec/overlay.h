#pragma once
// overlay(base, top): every field `top` states replaces base's, through the spec's
// field table, so a new field is overlaid without anyone listing it here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "spec/field.h"

namespace tessera::core {

struct RecomputeRange;  // spec/execspec.h; complete wherever an ExecSpec is overlaid

namespace detail {

// Collects a pointer to every field, in table order.
template <class... Fields>
struct FieldPointers {
    using Pointer = std::variant<Fields*...>;
    std::vector<Pointer> fields;
    template <class T, class... Rest> void integer(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T, class... Rest> void real(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T> void flag(Field, T& f) { fields.emplace_back(&f); }
    template <class T> void text(Field, T& f) { fields.emplace_back(&f); }
    template <class T, class... Rest> void choice(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T, class... Rest> void textList(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T, class... Rest> void memory(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T, class... Rest> void numberMap(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T, class... Rest> void stageCounts(Field, T& f, Rest&&...) { fields.emplace_back(&f); }
    template <class T> void ranges(Field, T& f) { fields.emplace_back(&f); }
};

}  // namespace detail

template <class Spec>
void overlay(Spec& base, const Spec& top) {
    Spec copy = top;  // visit() takes both specs the same way; pointers into a copy are fine
    using Pointers = detail::FieldPointers<std::optional<std::int64_t>, std::optional<double>, std::optional<bool>,
                                           std::optional<std::string>, std::optional<std::vector<std::string>>,
                                           std::optional<std::map<std::string, double>>, std::optional<StageCounts>,
                                           std::optional<std::vector<RecomputeRange>>>;
    Pointers to, from;
    visit(base, to);
    visit(copy, from);
    for (std::size_t i = 0; i < to.fields.size(); ++i)
        std::visit(
            [&](auto* target) {
                auto* source = std::get<std::remove_pointer_t<decltype(target)>*>(from.fields[i]);
                if (*source) *target = *source;
            },
            to.fields[i]);
}

}  // namespace tessera::core
