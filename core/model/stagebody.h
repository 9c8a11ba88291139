#pragma once
// What one pipeline stage holds and costs apart from its in-flight activations:
// its layers (all chunks), the embedding or output layer it carries, its static
// memory, buffers and working set, its time per micro-batch, and its once-per-step
// gradient reduction and optimizer step. Internal to estimate.cpp, which multiplies
// each chunk's saved activations by the micro-batches the schedule keeps in flight
// and reuses one body for the identical middle stages of an even split.
#include <array>
#include <cstdint>

#include "model/estimate.h"
#include "model/layercost.h"

namespace tessera::core::detail {

inline constexpr std::size_t kMaxPairs = 64;   // layer kinds x recompute classes
inline constexpr std::size_t kMaxChunks = 64;  // virtual pipeline chunks per stage (resolve refuses more)

// Per-evaluation constants and the (kind, class) layer costs, computed on first use.
class StageContext {
public:
    explicit StageContext(const CostInput& in);
    const LayerCost& cost(std::size_t pair);
    std::int64_t chunkLayers(std::int64_t chunk, std::int64_t stage) const;
    std::int64_t chunkStart(std::int64_t chunk, std::int64_t stage) const;
    // Layers per (kind, class) pair in [start, start + n).
    void countPairs(std::int64_t start, std::int64_t n, std::int64_t* counts) const;

    const CostInput& in;
    GroupLinks links;
    std::size_t kinds, classes, pairs;
    std::int64_t placed;  // layers the partition places (body, and MTP when in the offset)
    double vocab;         // padded for the tensor-parallel split

private:
    // Raw storage: value-initialising 64 LayerCosts per call was half the evaluation's time.
    alignas(LayerCost) unsigned char m_storage[kMaxPairs * sizeof(LayerCost)];
    std::array<bool, kMaxPairs> m_have{};
};

struct StageBody {
    std::int64_t layers = 0;
    std::array<double, kMaxChunks> kept;  // saved activations of one micro-batch, per chunk
    double embeddingKept = 0, outputKept = 0;  // per micro-batch, on chunk 0 / the last chunk
    double params = 0, expertParams = 0;       // elements on one device
    StageMemory memory;                        // all but activations
    StageTime time;
    double modelFlopsForward = 0;              // this stage's share, whole micro-batch
};

StageBody stageBody(StageContext& ctx, std::int64_t stage);

}  // namespace tessera::core::detail
