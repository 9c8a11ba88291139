#pragma once
// SearchSpec: the space a strategy search walks and what it optimises. Each axis
// names an exec key and lists its candidate values, or is `auto` (every valid
// value, bounded as the seed's search bounds them: search/space.h). A scenario whose
// search section names no axis searches the default space (defaultSearchSpace).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace tessera::core {

using SearchValue = std::variant<std::int64_t, bool, std::string>;

struct SearchAxis {
    std::string key;
    std::optional<std::vector<SearchValue>> values;  // nullopt: auto
    bool operator==(const SearchAxis&) const = default;
};

inline constexpr std::string_view kObjectives[] = {"step_time", "memory", "tokens_per_second"};
inline constexpr std::string_view kSearchRecompute[] = {"none", "selective", "full"};

enum class AxisType { Count, Flag, Recompute, Schedule, SelectiveRule, CpAlgorithm };
struct AxisInfo {
    std::string_view key;
    AxisType type;
    // The search varies it. The others are read (a file may name them) and refused
    // by name when the search starts, so a stated axis is never dropped in silence.
    bool searched;
    // In the default space. etp and optimizer_shard are not: their `auto` is one
    // convention (experts at the dense tp; one shard over the whole data-parallel
    // group), so naming them by default would replace a stated value, not search it.
    bool inDefaultSpace;
};
// The one list of the exec keys a search section may name, in the order forms and
// messages show them.
std::span<const AxisInfo> searchAxes();
const AxisInfo* searchAxis(std::string_view key);

struct SearchSpec {
    std::vector<SearchAxis> space;
    std::optional<double> memory_limit_gb;
    std::optional<std::int64_t> global_batch_size;
    std::optional<std::string> objective;
    std::optional<std::int64_t> keep;
    bool operator==(const SearchSpec&) const = default;
};

// The space a scenario searches when its search section names no axis (or it has
// none): every axis in the default space `auto`, the devices, the global batch and
// whatever else the exec section states fixed; the stated constraints, objective
// and keep are kept. The CLI's search and report and the GUI's Search all use it.
SearchSpec defaultSearchSpace(const std::optional<SearchSpec>& stated);

}  // namespace tessera::core
