#pragma once
// SearchSpec: the space a strategy search walks and what it optimises. Each axis
// names an exec key and lists its candidate values, or is `auto` (every valid
// value, bounded as the seed's search bounds them). The search itself arrives
// with issue 4; this is the section's shape and its validation.
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
};
// Every exec key a search may vary, with the type of its candidates.
std::span<const AxisInfo> searchAxes();

struct SearchSpec {
    std::vector<SearchAxis> space;
    std::optional<double> memory_limit_gb;
    std::optional<std::int64_t> global_batch_size;
    std::optional<std::string> objective;
    std::optional<std::int64_t> keep;
    bool operator==(const SearchSpec&) const = default;
};

}  // namespace tessera::core
