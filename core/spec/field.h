#pragma once
// The field table. Each spec declares its fields once, in a `visit` function that
// calls a visitor per field with its key, its meaning, its unit and its range;
// the YAML/JSON reader, the writer, `tessera show`, the overlay and the GUI forms are
// all visitors, so a field's name, type and limits live in exactly one place.
//
// A visitor provides, for a spec S:
//   integer(Field, std::optional<std::int64_t>&, IntRange)
//   real(Field, std::optional<double>&, RealRange)
//   flag(Field, std::optional<bool>&)
//   text(Field, std::optional<std::string>&)
//   choice(Field, std::optional<std::string>&, Choices)
//   textList(Field, std::optional<std::vector<std::string>>&, Choices)
//   memory(Field, std::optional<Bytes>&, Bytes least)  (least: 1, or 0 where none is an answer)
//   numberMap(Field, std::optional<std::map<std::string, double>>&, Choices, RealRange)
//   stageCounts(Field, std::optional<StageCounts>&, StageForms, IntRange)  (range of each count)
//   ranges(Field, std::optional<std::vector<RecomputeRange>>&)
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::core {

struct Field {
    std::string_view key;
    std::string_view help;  // what it means, one sentence, for tooltips and `--help`
    std::string_view unit = {};
};

struct IntRange {
    std::int64_t min = 0;
    std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

struct RealRange {
    double min = 0;
    double max = std::numeric_limits<double>::max();
    bool minOpen = false;  // min itself is refused (a capacity factor must be > 0)
    bool maxOpen = false;
};

using Choices = std::span<const std::string_view>;

// A per-stage layer count as the seed states it: true/false for every layer, one
// count for every stage, a count per stage, or a count per chunk and stage.
struct StageCounts {
    using Flat = std::vector<std::int64_t>;
    using Nested = std::vector<std::vector<std::int64_t>>;
    std::variant<bool, std::int64_t, Flat, Nested> value;
    bool operator==(const StageCounts&) const = default;
};

// Which forms of StageCounts a field accepts (bit mask).
enum StageForm : unsigned { kFormBool = 1, kFormInt = 2, kFormList = 4, kFormNested = 8 };
using StageForms = unsigned;

}  // namespace tessera::core
