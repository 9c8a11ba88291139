#pragma once
// The order in which each stage runs its work, per schedule (schedule.h says where
// each order comes from). Internal to core/pipeline: the simulation walks these
// orders, the tests read them through simulatePipeline's events.
#include <memory>
#include <vector>

#include "pipeline/schedule.h"

namespace tessera::core::pipeline_detail {

enum class Kind { Gpipe, OneFOneB, Interleaved, ZbH1, Zbv, DualPipe, DualPipeV, SeqPipe, VHalf, VMin, ZbH2, SeqSmartVpp };

// How a micro-batch walks the (stage, chunk) slots:
//   Linear       stage 0, 1, .., p-1 (one chunk)
//   Interleaved  chunk 0 of stages 0..p-1, then chunk 1 of stages 0..p-1, ...
//   V            chunk 0 down stages 0..p-1, then chunk 1 back up p-1..0
//   Dual         two pipelines on the same stages: chunk 0 runs 0..p-1, chunk 1
//                runs p-1..0 (DualPipe's two directions), each with its own m/2
//                micro-batches
enum class Layout { Linear, Interleaved, V, Dual };
Layout layoutOf(Kind kind);

struct Op {
    int microBatch = 0;
    int chunk = 0;
    Phase phase = Phase::Forward;
    bool withWeightGrad = false;  // a backward that runs its weight gradient inside (one box)
};

// One turn of a stage: an op, or two run as one overlapped pair (DualPipe's F&B:
// one micro-batch's forward beside another's backward).
struct Step {
    Op op;
    Op with;
    bool paired = false;
};

// Shared: V-Half's and V-Min's orders are built once per shape and kept.
using StageOrders = std::vector<std::vector<Step>>;
std::shared_ptr<const StageOrders> stageOrders(Kind kind, const PipelineInput& in);

// The steps of one thread's reused orders past which they are not kept (about 10 MB).
inline constexpr std::size_t kKeptOrderSteps = std::size_t{1} << 18;

// V-Half (half) and V-Min, every stage's order (controllable.cpp).
std::shared_ptr<const StageOrders> controllableMemoryOrders(bool half, int p, int m);
// The steps of the orders it keeps, and the most it keeps (the oldest are let go first).
std::size_t controllableStepsKept();
inline constexpr std::size_t kKeptControllableSteps = std::size_t{1} << 22;  // about 150 MB

}  // namespace tessera::core::pipeline_detail
