#pragma once
// Reads a spec out of a mapping by visiting its field table (spec/field.h). Every
// problem becomes a Diagnostic with the value's position and the field's path; the
// field is then left unstated and reading goes on, so one pass reports every
// mistake. Keys the table does not know are refused by name, with the known keys
// listed and the closest one suggested.
#include <string>
#include <vector>

#include "doc/document.h"
#include "spec/clusterspec.h"
#include "spec/execspec.h"
#include "spec/modelspec.h"
#include "spec/searchspec.h"

namespace tessera::core {

// Levenshtein distance: how "did you mean" picks the nearest known name.
std::size_t editDistance(std::string_view a, std::string_view b);

class SpecReader {
public:
    SpecReader(const Value& map, std::string section, Diagnostics& diagnostics);

    template <class Spec>
    void read(Spec& spec) {
        visit(spec, *this);
        finish();
    }

    void integer(Field f, std::optional<std::int64_t>& out, IntRange range);
    void real(Field f, std::optional<double>& out, RealRange range);
    void flag(Field f, std::optional<bool>& out);
    void text(Field f, std::optional<std::string>& out);
    void choice(Field f, std::optional<std::string>& out, Choices choices);
    void textList(Field f, std::optional<std::vector<std::string>>& out, Choices choices);
    void memory(Field f, std::optional<Bytes>& out, Bytes least);
    void numberMap(Field f, std::optional<std::map<std::string, double>>& out, Choices keys, RealRange range);
    void stageCounts(Field f, std::optional<StageCounts>& out, StageForms forms, IntRange range);
    void ranges(Field f, std::optional<std::vector<RecomputeRange>>& out);

    // A key the section holds that another reader takes (a nested section, a preset
    // or file reference): not refused as unknown.
    void allow(std::string_view key) { m_known.push_back(key); }
    // Refuse every key not visited or allowed.
    void finish();

private:
    const Value* take(std::string_view key);
    std::string pathOf(std::string_view key) const;
    void refuse(const Value& value, const std::string& path, const std::string& expected);

    const Value& m_map;
    std::string m_section;
    Diagnostics& m_diagnostics;
    std::vector<std::string_view> m_known;
};

// Shared scalar checks, for readers of other sections.
std::optional<std::int64_t> readInteger(const Value& v, IntRange range, const std::string& path, Diagnostics& d);
std::optional<double> readReal(const Value& v, RealRange range, const std::string& path, Diagnostics& d);
std::string rangeText(IntRange range);
std::string choicesText(Choices choices);
// Refuse every key of `map` not in `known`, naming the closest known key.
void refuseUnknownKeys(const Value& map, const std::vector<std::string_view>& known, const std::string& section,
                       Diagnostics& d);

}  // namespace tessera::core
