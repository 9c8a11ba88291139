#pragma once
// Closed forms of the pipeline schedules, for the cost model and the search: how
// many micro-batches each stage holds in flight, and how long the pipeline takes
// given each stage's time per micro-batch. No allocation; the event simulation
// (schedule.h) is their test.
//
// In flight (forwards whose backward has not finished), stage s of p, v chunks, m
// micro-batches:
//   gpipe        m                                   (Huang et al. 2019)
//   1f1b         min(p - s, m)                       (Narayanan et al. 2021 §2.2)
//   interleaved  min(m·v, 2(p - s - 1) + (v - 1)p + 1) chunk-forwards, the k-th
//                belonging to chunk floor(k / p) mod v (Megatron-LM
//                get_model_chunk_id); stage 0 then holds L(1 + (p-1)/(pv))
//                layers' worth (published.md §1).
// Makespan with X_s = F_s + B_s (one micro-batch, all chunks of stage s), M = max X:
//   1f1b         sum X + (m - 1) M                   (warm-up and cool-down, then the straggler)
//   interleaved  m M + (sum X - M) / v               (bubble (p-1)/v of a stage's time, Narayanan et al. 2021)
//   gpipe        sum F + (m - 1) max F + sum B + (m - 1) max B
#include <cstdint>

namespace tessera::core {

enum class Schedule : std::uint8_t { OneFOneB, Interleaved, GPipe };

struct PipelineShape {
    Schedule schedule = Schedule::OneFOneB;
    int stages = 1, chunks = 1, microBatches = 1;
};

std::int64_t inFlightChunkForwards(const PipelineShape& shape, int stage, int chunk);
double pipelineMakespan(const PipelineShape& shape, double sumX, double maxX, double sumF, double maxF, double sumB,
                        double maxB);

}  // namespace tessera::core
