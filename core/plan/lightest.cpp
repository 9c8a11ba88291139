#include "plan/lightest.h"

#include "model/stagebody.h"

namespace tessera::core::plan {

std::vector<std::int64_t> lightestTotals(const std::vector<Rounds>& walks, std::int64_t p, std::int64_t v, std::int64_t placed,
                                         const LightestStage& lightest) {
    std::vector<std::int64_t> totals;
    std::vector<Rounds::Series> series;
    Bytes bestWorst = detail::kMaxCountedBytes;
    for (const Rounds& rounds : walks) {
        // Per (stage, running total, residues): the least worst stage of a partial plan that
        // ends there, and where its last stage began.
        const std::size_t hs = rounds.states(), cols = std::size_t(placed + 1) * hs;
        std::vector<Bytes> worst(std::size_t(p) * cols, detail::kMaxCountedBytes);
        std::vector<std::pair<std::int64_t, std::size_t>> from(worst.size(), {0, 0});  // (total, index) before
        auto cellOf = [&](std::int64_t s, std::int64_t j, std::size_t h) {
            return std::size_t(s) * cols + std::size_t(j) * hs + h;
        };
        for (std::int64_t s = 0; s < p; ++s) {
            const std::int64_t jFirst = s == p - 1 ? placed : (s + 1) * v, jLast = placed - (p - 1 - s) * v;
            for (std::size_t h2 = s == p - 1 ? rounds.endFirst() : 0; h2 < hs; ++h2)
                for (std::int64_t j = rounds.firstTotal(s, h2, jFirst), jEnd = rounds.lastTotal(h2, jLast); j <= jEnd;
                     j += rounds.totalStep(h2)) {
                    Bytes& w = worst[cellOf(s, j, h2)];
                    if (s == 0) series.assign(1, {rounds.initial(), j, 1});
                    else rounds.series(j, h2, series);
                    for (const Rounds::Series& before : series) {
                        const std::size_t h = before.from;
                        if (s == 0 && rounds.after(0, h, j) != h2) continue;
                        for (std::int64_t n = before.first; s == 0 ? n == j : j - n >= s * v; n += before.step) {
                            const std::int64_t i = j - n;
                            if (s > 0 && worst[cellOf(s - 1, i, h)] == detail::kMaxCountedBytes) continue;
                            const Bytes here = lightest(s, rounds, i, h, n);
                            // A stage holding more layers needs no less: past the best, stop.
                            if (here >= w) break;
                            const Bytes x = s == 0 ? here : std::max(here, worst[cellOf(s - 1, i, h)]);
                            if (x < w) w = x, from[cellOf(s, j, h2)] = {i, h};
                            if (s == 0) break;
                        }
                    }
                }
        }
        std::size_t end = rounds.endFirst();
        for (std::size_t h = end; h <= rounds.endLast(); ++h)
            if (worst[cellOf(p - 1, placed, h)] < worst[cellOf(p - 1, placed, end)]) end = h;
        if (worst[cellOf(p - 1, placed, end)] >= bestWorst) continue;
        bestWorst = worst[cellOf(p - 1, placed, end)];
        totals.assign(std::size_t(p), 0);
        for (std::int64_t s = p - 1, j = placed, h = std::int64_t(end); s >= 0; --s) {
            const auto [i, before] = s == 0 ? std::pair<std::int64_t, std::size_t>{0, 0} : from[cellOf(s, j, std::size_t(h))];
            totals[std::size_t(s)] = j - i;
            j = i, h = std::int64_t(before);
        }
    }
    return totals;
}

}  // namespace tessera::core::plan
