#include "pipeline/closedform.h"

#include <algorithm>

namespace tessera::core {

std::int64_t inFlightChunkForwards(const PipelineShape& sh, int stage, int chunk) {
    const std::int64_t p = sh.stages, v = sh.chunks, m = sh.microBatches;
    switch (sh.schedule) {
    case Schedule::GPipe: return m;
    case Schedule::OneFOneB: return std::max<std::int64_t>(1, std::min<std::int64_t>(p - stage, m));
    case Schedule::Interleaved: {
        const std::int64_t held = std::min(m * v, 2 * (p - stage - 1) + (v - 1) * p + 1);
        // Forwards k = 0 .. held-1 cycle through the chunks in blocks of p.
        const std::int64_t cycles = held / (p * v), rest = held % (p * v);
        return cycles * p + std::clamp<std::int64_t>(rest - chunk * p, 0, p);
    }
    }
    return 1;
}

double pipelineMakespan(const PipelineShape& sh, double sumX, double maxX, double sumF, double maxF, double sumB,
                        double maxB) {
    const double m = sh.microBatches;
    if (sh.stages == 1) return m * maxX;
    switch (sh.schedule) {
    case Schedule::OneFOneB: return sumX + (m - 1) * maxX;
    case Schedule::Interleaved: return m * maxX + (sumX - maxX) / sh.chunks;
    case Schedule::GPipe: return sumF + (m - 1) * maxF + sumB + (m - 1) * maxB;
    }
    return 0;
}

}  // namespace tessera::core
