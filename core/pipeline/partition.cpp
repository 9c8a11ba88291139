#include "pipeline/partition.h"

#include <numeric>

namespace tessera::core {

std::int64_t Partition::stageLayers(std::size_t stage) const {
    std::int64_t n = 0;
    for (const auto& chunk : layers) n += chunk.at(stage);
    return n;
}

namespace {

using Grid = std::vector<std::vector<std::int64_t>>;

// A per-stage or per-chunk-and-stage list as a [chunk][stage] grid.
std::variant<Grid, std::string> asGrid(const StageCounts& counts, std::int64_t pp, std::int64_t vpp, const char* what) {
    const auto p = static_cast<std::size_t>(pp), v = static_cast<std::size_t>(vpp);
    if (auto* n = std::get_if<std::int64_t>(&counts.value)) return Grid(v, std::vector<std::int64_t>(p, *n));
    if (auto* flat = std::get_if<StageCounts::Flat>(&counts.value)) {
        if (v != 1)
            return std::string(what) + " lists one count per stage, but vpp = " + std::to_string(vpp) +
                   " needs a list per chunk ([[...], ...])";
        if (flat->size() != p)
            return std::string(what) + " lists " + std::to_string(flat->size()) + " stages, but pp = " + std::to_string(pp);
        return Grid{*flat};
    }
    if (auto* nested = std::get_if<StageCounts::Nested>(&counts.value)) {
        if (nested->size() != v)
            return std::string(what) + " lists " + std::to_string(nested->size()) + " chunks, but vpp = " + std::to_string(vpp);
        for (const auto& row : *nested)
            if (row.size() != p)
                return std::string(what) + " has a chunk of " + std::to_string(row.size()) + " stages, but pp = " + std::to_string(pp);
        return *nested;
    }
    return std::string(what) + " cannot be true or false";
}

}  // namespace

std::variant<Partition, std::string> partitionLayers(std::int64_t total, std::int64_t pp, std::int64_t vpp,
                                                     const std::optional<StageCounts>& offset,
                                                     const std::optional<StageCounts>& explicitPartition,
                                                     std::int64_t textless) {
    const std::int64_t chunks = pp * vpp;
    if (total < chunks - textless)
        return std::to_string(total) + " layers cannot fill pp·vpp = " + std::to_string(chunks) +
               " chunks (each needs at least one layer)";
    if (textless > 0 && !explicitPartition) {
        // The text layers over the stages from the tower's last on, the remainder on the last ones.
        const std::int64_t held = pp - textless, base = total / held;
        std::string example;
        for (std::int64_t s = 0; s < pp; ++s)
            example += (s ? ", " : "") + std::to_string(s < textless ? 0 : base + (s >= pp - total % held ? 1 : 0));
        return "the vision tower runs on stages 0-" + std::to_string(textless) + ", so stage" +
               (textless > 1 ? "s 0-" + std::to_string(textless - 1) : std::string(" 0")) +
               " cannot hold text layers, which come after it: state pp_partition, e.g. [" + example + "]";
    }
    Grid grid;
    if (explicitPartition) {
        auto g = asGrid(*explicitPartition, pp, vpp, "pp_partition");
        if (auto* error = std::get_if<std::string>(&g)) return *error;
        grid = std::get<Grid>(g);
    } else {
        const std::int64_t base = total / chunks;
        if (!offset && total % chunks != 0)
            return std::to_string(total) + " layers do not split evenly over pp·vpp = " + std::to_string(chunks) +
                   " chunks; state offset or pp_partition";
        grid = Grid(static_cast<std::size_t>(vpp), std::vector<std::int64_t>(static_cast<std::size_t>(pp), base));
        if (offset) {
            auto g = asGrid(*offset, pp, vpp, "offset");
            if (auto* error = std::get_if<std::string>(&g)) return *error;
            const Grid& extra = std::get<Grid>(g);
            for (std::size_t c = 0; c < grid.size(); ++c)
                for (std::size_t s = 0; s < grid[c].size(); ++s) grid[c][s] += extra[c][s];
        }
    }
    std::int64_t sum = 0;
    for (std::size_t c = 0; c < grid.size(); ++c) {
        for (std::size_t s = 0; s < grid[c].size(); ++s) {
            if (std::int64_t(s) < textless && grid[c][s] != 0)
                return "stage " + std::to_string(s) + " would hold " + std::to_string(grid[c][s]) +
                       " text layers, but the vision tower (vision_partition) still runs on stage " +
                       std::to_string(textless) + " after it: 0 there";
            if (std::int64_t(s) >= textless && grid[c][s] < 1)
                return "chunk " + std::to_string(c) + " of stage " + std::to_string(s) + " would hold " +
                       std::to_string(grid[c][s]) + " layers; every chunk needs at least one";
            sum += grid[c][s];
        }
    }
    if (sum != total)
        return "the stages hold " + std::to_string(sum) + " layers, but the model has " + std::to_string(total);
    return Partition{std::move(grid)};
}

}  // namespace tessera::core
