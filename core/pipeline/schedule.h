#pragma once
// Pipeline schedules as event lists: who runs what, when.
//
// A schedule is two things: the order in which each stage runs its work, and the
// data dependencies between stages. Given both, the timeline follows by itself: an
// event starts when its stage is free and its input has arrived, so simulating is
// a longest-path walk over a DAG whose edges are "next on this stage" and "needs
// that activation/gradient". We keep the orders exactly as Megatron-LM issues them
// (megatron/core/pipeline_parallel/schedules.py), because the memory a stage holds
// is decided by the order, not by the timing:
//
//  - gpipe (Huang et al. 2019): all m forwards, then all m backwards, newest first.
//  - 1f1b (PipeDream-Flush, Narayanan et al. 2021 §2.1): stage s runs
//    min(p-s-1, m) warm-up forwards, then one forward / one backward, then drains.
//  - seqpipe: 1f1b over the sequence parts of each micro-batch (PipelineInput::seqSplit).
//  - interleaved (Narayanan et al. 2021 §2.2, Megatron's
//    forward_backward_pipelining_with_interleaving): each stage holds v chunks; the
//    model runs chunk 0 of stages 0..p-1, then chunk 1 of stages 0..p-1, ...
//    Forwards on a stage walk micro-batches in groups of p, all chunks of a group
//    before the next group (Megatron's schedule table with
//    microbatch_group_size_per_vp_stage = p, hence m % p == 0); backwards walk the
//    same table with the chunk index mirrored (v-1-c). Warm-up is
//    min(2(p-s-1) + (v-1)p, m·v) chunk-forwards (get_pp_rank_microbatches), or all of
//    them when m = p (Megatron's all_warmup_microbatches).
//  - seqsmartvpp (Seq1F1B-I, Sun et al. 2024, its interleaved variant; the thunlp/Seq1F1B repository's
//    interleaved schedule; the seed's seqsmartvpp): interleaved over the m·n sequence
//    parts as the table's units, n - 1 more warm-up parts, each chunk's backwards
//    taking a micro-batch's parts last first.
//
// A split backward (weightGrad > 0) runs its weight-gradient part right after the
// input-gradient part on the same stage. Only the input gradient travels upstream,
// so a split backward releases the previous stage a little sooner.
//
// "In flight" is what activation memory costs: a (micro-batch, chunk) forward holds
// its activations from its start until its input-gradient backward ends. Because a
// stage runs one event at a time, the count only changes at event boundaries.
//
// Closed forms, for the search (which cannot afford to simulate every candidate).
// F_s, B_s, W_s are stage s's forward, input-gradient and weight-gradient time for
// one micro-batch, summed over its chunks; M = max_s (F_s + B_s). With W = 0:
//  - gpipe:  [ΣF_s + (m-1)·max F_s] + [ΣB_s + (m-1)·max B_s]: each phase is a
//    flow shop of m identical jobs, sum of the stages plus (m-1) of the slowest
//    (Huang et al. 2019 §2.2 for equal stages). Exact for any stage times.
//  - 1f1b:   Σ(F_s+B_s) + (m-1)·M; equal stages give (m+p-1)(F+B), bubble
//    (p-1)/(m+p-1) (Narayanan et al. 2021 §2.1). Exact when the last stage is the
//    slowest; otherwise an upper bound, because the warm-up forwards of the slowest
//    stage overlap the round trip to the stages behind it.
//  - interleaved: m·M + (Σ(F_s+B_s) - M)/v; equal stages give (m + (p-1)/v)(F+B),
//    bubble (p-1)/(v·m + p-1) (Narayanan et al. 2021 §2.2). An estimate either way
//    when stages differ: Megatron's fixed order stalls on a slow middle stage.
// A split weight gradient occupies its stage once per micro-batch but never rides
// the fill or drain, since only the input gradient travels upstream: it joins the
// (m-1)·max term and adds once at the end of the drain (schedule.cpp has the path).
// p2p is ignored. With equal stages the simulation adds 2(p-1)·p2p to gpipe,
// 2(pv-1)·p2p to interleaved while p2p is small against a chunk (the doubled
// warm-up hides the rest), and (2(p-2) + 2(p-1)·m/p)·p2p to 1f1b, whose warm-up
// leaves no slack, so every steady-state step waits on the round trip.
// In flight on stage s: gpipe m; 1f1b min(p-s, m); interleaved
// min(m·v, 2(p-s-1) + (v-1)p + 1) chunk-forwards, the k-th on chunk floor(k/p) mod v
// (Megatron's get_model_chunk_id): stage 0 holds (1 + (p-1)/(p·v)) times its
// layers' activations (Narayanan et al. 2021 §2.2). With equal stages every closed
// form equals the simulation exactly (tests/core/tst_pipeline.cpp); the test also
// states how far they drift when stages differ.
#include <string>
#include <vector>

namespace tessera::core {

enum class Phase { Forward, Backward, WeightGrad };  // Backward = input gradient (or all of it when not split)

struct PipelineEvent {
    int stage = 0;
    int microBatch = 0;  // dualpipe: 0..m/2-1 run chunk 0's direction, m/2..m-1 the other
    int chunk = 0;
    Phase phase = Phase::Forward;
    double start = 0;  // seconds from the step's start
    double end = 0;
    bool withWeightGrad = false;  // a backward box that holds its weight gradient too
    bool paired = false;          // one half of an overlapped F&B pair (both halves share start and end)
    int part = 0;                 // seqpipe, seqsmartvpp: which of the micro-batch's seq_split sequence parts
    // The communication inside the box: what its stage waits for (in end - start) and
    // what runs beside its compute (under its own GEMMs, or under the pair's other half).
    double commExposed = 0, commHidden = 0;
};

struct StageTimes {  // one micro-batch through one chunk on one stage, seconds
    double forward = 0;
    double backward = 0;
    double weightGrad = 0;  // 0: the backward includes the weight gradient
    // The communication inside forward and backward (included in them) that an
    // overlapped F&B pair hides behind the other half's compute (DualPipe).
    double forwardComm = 0, backwardComm = 0;
    // Drawn, never timed: the communication the ops hide under their own compute (TP
    // under its GEMMs, the CP ring under attention, overlapped sends), for the lane
    // under each box.
    double forwardHidden = 0, backwardHidden = 0;
    // Drawn, never timed: exposed communication inside the op beside forwardComm /
    // backwardComm that no pair hides (the TP traffic of Megatron's combined 1F1B).
    double forwardUnpaired = 0, backwardUnpaired = 0;
};

struct PipelineInput {
    std::string schedule;  // kScheduleNames
    int stages = 1;        // p
    int chunks = 1;        // v: interleaved any; zbv, dualpipev 2 (the V); dualpipe 2 (the directions); else 1
    int microBatches = 1;  // m
    std::vector<std::vector<StageTimes>> times;  // [stage][chunk]
    double p2pSeconds = 0;  // activation/gradient hop between different stages
    // Optional, [stage][chunk]: bytes a chunk-forward keeps until its input gradient,
    // and what a deferred weight gradient keeps from then until it runs. Given, the
    // result carries each stage's peak of their sum over time.
    std::vector<std::vector<double>> keptBytes, weightGradBytes;
    // 1f1b and interleaved only: Megatron-LM's combined 1F1B (--overlap-moe-expert-parallel-comm,
    // megatron/core/pipeline_parallel/combined_1f1b.py): each steady-state forward runs
    // as one F&B pair with the backward issued beside it, a micro-batch apart, so the
    // communication in times' forwardComm / backwardComm hides under the other half's
    // compute. Every stage runs one warm-up chunk-forward more than unpaired, so it
    // holds one more in flight (Megatron's docs: the overlap costs memory).
    bool pairSteadyState = false;
    // An F&B pair's compute stretched by this (>= 1): the share of the SMs its overlapped
    // communication kernels hold (DeepEP's num_sms of the device's), closedform.h pairSeconds.
    double pairComputeStretch = 1;
    // seqpipe and seqsmartvpp only (Seq1F1B and Seq1F1B-I, Sun et al. 2024; the seed's
    // schedules with seq_split): each micro-batch runs the pipeline as n sequence parts,
    // forwards in sequence order (a part attends to the parts before it) and backwards
    // in reverse; 1F1B's (seqpipe) or the interleaved table's (seqsmartvpp) order over
    // the m·n parts with n - 1 more warm-up forwards (the zero-bubble repository's
    // scheduler/seq1f1b.py; thunlp/Seq1F1B's schedules.py). Then `times` and `keptBytes`
    // are per part.
    int seqSplit = 1;
    // false: only the makespan, busy times and peaks are wanted (the cost model's call,
    // once per priced candidate): no event list and no memory points are kept.
    bool keepEvents = true;
};

// The schedules simulatePipeline runs, as exec.pp_schedule spells them.
inline constexpr const char* kScheduleNames[] = {"gpipe",    "1f1b",      "interleaved", "zb-h1",  "zbv", "dualpipe",
                                                  "dualpipev", "seqpipe", "v-half",      "v-min", "zb-h2",
                                                  "seqsmartvpp"};

// One stage's memory at one moment: chunk-forwards held and weight gradients waiting.
struct MemoryPoint {
    double time = 0;
    int held = 0, waitingWeightGrads = 0;
};

struct PipelineResult {
    std::vector<PipelineEvent> events;  // stage by stage, each stage's in start order
    double makespan = 0;                // end of the last event
    std::vector<double> span;           // per stage: its first event's start to its last event's end
    double longestSpan = 0;             // the largest of span (zb-h2's step under post-validation)
    std::vector<double> busy;           // per stage: time it computes (a pair counts once)
    double bubbleFraction = 0;          // 1 - Σ busy / (stages · makespan)
    std::vector<int> peakInFlight;      // per stage: most chunk-forwards held at once
    std::vector<std::vector<int>> peakInFlightPerChunk;  // [stage][chunk] when that peak is first reached
    std::vector<int> peakWaitingWeightGrads;  // per stage: most deferred weight gradients at once
    std::vector<std::vector<MemoryPoint>> memory;  // per stage, after each change
    std::vector<double> peakBytes;  // per stage, with keptBytes given: max over time of held + waiting bytes
    // Per stage: what pairComputeStretch added to its F&B pairs (compute slowed by the SMs
    // the overlapped communication held), included in busy.
    std::vector<double> pairStretchSeconds;
};

// All four throw SpecError naming the field when the input cannot be run: an
// unknown schedule, counts below 1, a chunk count the schedule does not take,
// micro-batch counts it cannot split, times of the wrong shape, negative or
// non-finite times.
PipelineResult simulatePipeline(const PipelineInput& input);
double closedFormMakespan(const PipelineInput& input);  // zb-h2: the longest stage's span (PipelineResult::longestSpan)
std::vector<int> closedFormInFlight(const PipelineInput& input);                      // per stage
std::vector<std::vector<int>> closedFormInFlightPerChunk(const PipelineInput& input);  // [stage][chunk]

}  // namespace tessera::core
