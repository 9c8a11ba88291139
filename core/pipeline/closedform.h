#pragma once
// Closed forms of the pipeline schedules, for the cost model and the search: how
// many micro-batches each stage holds in flight, and how long the pipeline takes
// given each stage's time per micro-batch. No allocation; the event simulation
// (schedule.h) is their test.
//
// In flight (forwards whose backward has not finished), stage s of p, v chunks, m
// micro-batches:
//   gpipe        m                                   (Huang et al. 2019)
//   1f1b, zb-h1  min(p - s, m)                       (Narayanan et al. 2021 §2.2; ZB-H1 keeps 1F1B's warm-up)
//   zb-h2        min(2(p - s) - 1, m)                (Qi et al. 2023 §3.1: (2p - 1) M_B on stage 0)
//   interleaved  min(m·v, 2(p - s - 1) + (v - 1)p + 1) chunk-forwards, the k-th
//                belonging to chunk floor(k / p) mod v (Megatron-LM
//                get_model_chunk_id); stage 0 then holds L(1 + (p-1)/(pv))
//                layers' worth (published.md §1).
//   zbv          chunk 0: 2p - 1 - s, chunk 1: s + 1 (2p chunk-forwards, 1F1B's p whole stages)
//   dualpipe     own stage: p - s, mirrored stage: s + 1 (p + 1: the DualPipe README)
//   dualpipev    chunk 0: 2p - s, chunk 1: s + 1 (2p + 1 = PP + 1 over its 2p stages)
//   seqpipe      min(p - s + n - 1, m·n) sequence parts of 1/n of a micro-batch each
//                (Seq1F1B's warm-up, n = seq_split; the seed's base - s + n - 1, §4.8)
//   seqsmartvpp  interleaved's count over the m·n parts with n - 1 more warm-up parts:
//                min(m·n·v, 2(p - s - 1) + (v - 1)p + n) chunk-parts (Seq1F1B-I, Sun et
//                al. 2024; the seed's "last chunk shifted by n - 1", §4.8)
// Interleaved and seqsmartvpp with m = p run every forward before any backward
// (Megatron-LM's all-warm-up case): m·v (m·n·v) chunk-forwards on every stage.
// Weight gradients held back (each keeps its GEMM inputs and output gradients), at the
// in-flight peak: ZB-H1 min(s, m - min(p - s, m)), ZB-H2 min(2s, m - min(2(p - s) - 1, m));
// the others run a held-back W only where a backward has just released more than it keeps.
// Makespan with X_s = F_s + B_s + W_s (one micro-batch, all chunks of stage s), M = max X:
//   1f1b         sum X + (m - 1) M                   (warm-up and cool-down, then the straggler)
//   interleaved  m M + (sum X - M) / v               (bubble (p-1)/v of a stage's time, Narayanan et al. 2021)
//   gpipe        sum F + (m - 1) max F + sum B + (m - 1) max B
//   zb-h1        m M + (p - 1) max_s (F_s + B_s - min(B_s, W_s))
//                (B the input gradient; equal stages: the DualPipe README's ZB1P row
//                (PP-1)(F + B_full - 2W), exact while W <= B)
//   zb-h2        m M + (p - 1) max(0, F + B - 2W) for equal stages once m >= 2p - 1: the
//                longest stage's span, which is the step only under optimizer post-validation
//                (Qi et al. 2023 §4); its stages start and end (p - 1) F apart. Simulated.
//   seqpipe      (sum X + (m·n - 1) M) / n: 1F1B over m·n parts of X/n (bubble (p-1)/n
//                of 1F1B's); the first part's extra warm-up only adds memory
//   seqsmartvpp  m M + (sum X - M) / (v n): interleaved over m·n parts of X/n
//   dualpipe(v)  see pipelineMakespanDual: its pairs of one direction's forward with
//                the other's backward make the time a function of the pair's length
// Exact for equal stages (tests/core/tst_pipeline.cpp holds every form to the
// simulation); the test also states how far they drift when stages differ.
#include <cstdint>
#include <string_view>

namespace tessera::core {

enum class Schedule : std::uint8_t {
    OneFOneB, Interleaved, GPipe, ZbH1, Zbv, DualPipe, DualPipeV, SeqPipe, VHalf, VMin, ZbH2, SeqSmartVpp
};

// exec.pp_schedule's spelling, both ways (an unknown name reads as 1f1b: resolve
// refuses unknown names before anything calls this).
Schedule scheduleNamed(std::string_view name);
const char* scheduleName(Schedule schedule);

// V-shaped: chunk 1 runs the stages back up, so stage 0 holds the model's first and last chunk.
inline bool isVShape(Schedule s) {
    return s == Schedule::Zbv || s == Schedule::DualPipeV || s == Schedule::VHalf || s == Schedule::VMin;
}
// Runs each stage's vpp chunks in Megatron-LM's interleaved table (vpp > 1 required).
inline bool interleavesChunks(Schedule s) { return s == Schedule::Interleaved || s == Schedule::SeqSmartVpp; }
// Runs each micro-batch as exec.seq_split sequence parts (Seq1F1B and Seq1F1B-I).
inline bool runsSequenceParts(Schedule s) { return s == Schedule::SeqPipe || s == Schedule::SeqSmartVpp; }
// Whether the schedule splits the backward into B and W and defers W.
inline bool splitsWeightGrad(Schedule s) {
    return s == Schedule::ZbH1 || s == Schedule::ZbH2 || s == Schedule::DualPipe || isVShape(s);
}
// Priced by simulating the schedule: no closed form here is exact for them (dualpipe's
// and zb-h2's drift once stages differ, the V schedules have none).
inline bool pricedBySimulation(Schedule s) { return s == Schedule::DualPipe || s == Schedule::ZbH2 || isVShape(s); }
// The schedule whose stages start and end at different times (a parallelogram), so that
// its step is the longest stage's span when the optimizer step is post-validated.
inline bool staggersStages(Schedule s) { return s == Schedule::ZbH2; }
// A price by simulation walks every event: F, B and W of each micro-batch on each chunk
// of each stage. Past this many, resolve, the search and the simulator refuse the
// strategy rather than let one estimate take gigabytes and seconds; the runs people
// plan are far below it (DeepSeek-V3 under DualPipe, pp 16, 480 micro-batches: 46,080;
// GPT-3 175B under zbv at pp 64 and 1,536 micro-batches: 589,824).
inline constexpr std::int64_t kMaxPricedEvents = std::int64_t{1} << 22;
inline std::int64_t simulatedEvents(std::int64_t stages, std::int64_t chunks, std::int64_t microBatches) {
    return 3 * stages * chunks * microBatches;
}
// What the cost model simulates to price a strategy (estimate.cpp): the schedules above,
// and 1f1b or interleaved whose steady state pairs micro-batches to hide the expert
// all-to-all (overlap_moe_expert_parallel_comm on an MoE model with ep > 1); and how many
// chunks a stage runs there (dualpipe's two directions, a V's two chunks, else vpp).
inline bool simulatedToPrice(Schedule s, bool pairsExpertComm) {
    return pricedBySimulation(s) || (pairsExpertComm && (s == Schedule::OneFOneB || s == Schedule::Interleaved));
}
inline std::int64_t simulatedChunks(Schedule s, std::int64_t vpp) { return s == Schedule::DualPipe || isVShape(s) ? 2 : vpp; }
inline bool tooLongToSimulate(Schedule s, bool pairsExpertComm, std::int64_t stages, std::int64_t vpp, std::int64_t microBatches) {
    return simulatedToPrice(s, pairsExpertComm) && simulatedEvents(stages, simulatedChunks(s, vpp), microBatches) > kMaxPricedEvents;
}
// The planner's model: one stage per device with the 1F1B family's in-flight counts
// (zb-h1's held-back weight gradients on top) and a closed-form step.
inline bool plannerBalances(Schedule s) {
    return s == Schedule::OneFOneB || s == Schedule::Interleaved || s == Schedule::GPipe || s == Schedule::ZbH1;
}

struct PipelineShape {
    Schedule schedule = Schedule::OneFOneB;
    int stages = 1, chunks = 1, microBatches = 1;
    int seqSplit = 1;  // seqpipe, seqsmartvpp: the parts each micro-batch's sequence runs the pipeline in
};

std::int64_t inFlightChunkForwards(const PipelineShape& shape, int stage, int chunk);
std::int64_t waitingWeightGrads(const PipelineShape& shape, int stage);
double pipelineMakespan(const PipelineShape& shape, double sumX, double maxX, double sumF, double maxF, double sumB,
                        double maxB);

// Per-stage sums a zero-bubble or dual form needs beyond pipelineMakespan's.
struct SplitStage {
    double f = 0, b = 0, w = 0;       // forward, input gradient, weight gradient, one micro-batch over the stage's chunks
    double fComm = 0, bComm = 0;      // communication inside f and b that a DualPipe pair hides behind the other half
};
// ZB-H1 from per-stage extremes (F, B, W of one micro-batch, B the input gradient):
//   m >= p: m·maxX + (p-1)·maxY, Y = max(F + B - min(B, W), B): exact for equal stages
//   m <  p: m·maxX + (p-1)·max(F + B) - (m-1)·min(min(B, W)): the drain has only m-1
//           weight gradients to fill it; exact for equal stages while min(B, W) <= F
struct ZbH1Stages {
    double maxX = 0, maxY = 0, maxFB = 0, minFill = 0;
};
double pipelineMakespanZbH1(const PipelineShape& shape, const ZbH1Stages& stages);
// DualPipe / DualPipeV. `stages` holds, per device, the mean of its two chunks (per
// chunk-micro-batch). With equal devices, F equal to the input gradient, W no longer
// than it, and each half's communication under the other half's compute, it is exact
// (tests/core/tst_schedules.cpp states the drift outside that):
//   N (F + B) - P (F + B - FB) + (R - 1)(FB + F - 2W)
// where B = the full backward (input and weight gradient), FB = one F&B pair, N the
// chunk-forwards a device runs (m for dualpipe, 2m for dualpipev), R the devices per
// half (p/2 for dualpipe, p for dualpipev), P = N - 2R - 1 the pairs the middle device
// runs (DualPipe.step: 2(M - 2R + r + 1) - 1 + (R - r - 1) at r = R - 1, M = N/2).
// Equal to the README's (PP/2 - 1)(F&B + B - 3W) bubble when F equals the input gradient.
// Stages that differ: each device's busy time, plus the largest device's bubble term.
double pipelineMakespanDual(const PipelineShape& shape, const SplitStage* devices, int count);
// One F&B pair: each half's communication hides behind the other half's compute.
// `stretch` (>= 1): the pair's compute slowed by the SMs its communication kernels hold.
double pairSeconds(double f, double fComm, double bFull, double bComm, double stretch = 1);

}  // namespace tessera::core
