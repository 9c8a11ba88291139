#pragma once
// SearchSpec: the space a strategy search walks and what it optimises. Each axis
// names an exec key (or, dp_shard, a set of them) and lists its candidate values,
// or is `auto` (every valid value, bounded as the seed's search bounds them: search/space.h). A scenario whose
// search section names no axis searches the default space (defaultSearchSpace).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "spec/field.h"

namespace tessera::core {

using SearchValue = std::variant<std::int64_t, bool, std::string>;

struct SearchAxis {
    std::string key;
    std::optional<std::vector<SearchValue>> values;  // nullopt: auto
    bool operator==(const SearchAxis&) const = default;
};

inline constexpr std::string_view kObjectives[] = {"step_time", "memory", "tokens_per_second"};
// per_layer: the planner chooses each layer's option (plan/planner.h), as the seed's per_layer.
inline constexpr std::string_view kSearchRecompute[] = {"none", "selective", "full", "per_layer"};
// The layer placement: auto plans it for every candidate (plan/planner.h).
inline constexpr std::string_view kSearchPartition[] = {"auto"};

enum class AxisType { Count, Flag, Recompute, Schedule, SelectiveRule, CpAlgorithm, Partition };
struct AxisInfo {
    std::string_view key;
    AxisType type;
    // The search varies it. The others are read (a file may name them) and refused
    // by name when the search starts, so a stated axis is never dropped in silence.
    bool searched;
    // In the default space. etp, expert_tp and optimizer_shard are not: their unstated
    // value is one convention (experts at the dense tp; one shard over the whole
    // data-parallel group), so naming them by default would replace a stated value, not search it.
    bool inDefaultSpace;
    // What the axis varies, for an axis that is not one exec key (empty: exec.<key>).
    std::string_view help = {};
};
// The one list of the exec keys a search section may name, in the order forms and
// messages show them.
std::span<const AxisInfo> searchAxes();
const AxisInfo* searchAxis(std::string_view key);

// What every strategy must keep.
struct SearchConstraints {
    std::optional<double> memory_limit_gb;
    std::optional<std::int64_t> global_batch_size;
    bool operator==(const SearchConstraints&) const = default;
};

template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, SearchConstraints>
void visit(Spec& c, V& v) {
    // clang-format off: one row per field
    v.real({"memory_limit_gb", "Peak memory per device every strategy must fit; the tighter of this and the device's", "GiB"},
           c.memory_limit_gb, RealRange{0, 1e9, true, false});
    v.integer({"global_batch_size", "Sequences per step every strategy keeps; exec.global_batch_size when unstated",
               "sequences"}, c.global_batch_size, IntRange{1});
    // clang-format on
}

struct SearchSpec {
    std::vector<SearchAxis> space;  // the axes: searchAxes() is their table
    SearchConstraints constraints;
    std::optional<std::string> objective;
    std::optional<std::int64_t> keep;
    bool operator==(const SearchSpec&) const = default;
};

// The section's own fields; `space` and `constraints` are read by their tables.
template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, SearchSpec>
void visit(Spec& s, V& v) {
    // clang-format off: one row per field
    v.choice({"objective", "What the best strategy minimises: step_time, memory, or maximises: tokens_per_second"},
             s.objective, kObjectives);
    v.integer({"keep", "How many of the best strategies to keep beside the Pareto front"}, s.keep, IntRange{1, 100000});
    // clang-format on
}

// The space a scenario searches when its search section names no axis (or it has
// none): every axis in the default space `auto`, the devices, the global batch and
// whatever else the exec section states fixed; the stated constraints, objective
// and keep are kept. The CLI's search and report and the GUI's Search all use it.
SearchSpec defaultSearchSpace(const std::optional<SearchSpec>& stated);

}  // namespace tessera::core
