#pragma once
// One strategy's estimate: what each pipeline stage holds in device memory, term
// by term, at the worst moment of its schedule, and how long a training step takes
// and where the time goes.
//
// Memory of stage s = static (parameters, gradients, optimizer states, master copy
// of every layer it holds, all chunks, with the embedding on the first stage and
// the output layer on the last) + activations (each chunk's saved activations times
// the micro-batches it holds in flight: core/pipeline's closed forms) + the
// backward working set of its heaviest layer + communication buffers. Exact
// integers: every term is rounded up to a whole byte once, on the stage's sum.
//
// Step time = the schedule's critical path over per-stage forward and backward
// times (closed forms of core/pipeline, checked there against the simulation) +
// the exposed data-parallel reduction and the optimizer step of the slowest stage.
// dualpipe, zbv and dualpipev have no closed form to trust (closedform.h
// pricedBySimulation): their step, and their activations' peak over time, come from
// simulating the schedule on the stages' times. So do 1f1b and interleaved when the
// run pairs their steady state to hide the expert all-to-all (pairsExpertComm).
#include <optional>
#include <vector>

#include "model/costinput.h"
#include "pipeline/schedule.h"

namespace tessera::core {

struct StageMemory {
    Bytes parameters = 0, gradients = 0, optimizerStates = 0, mainParameters = 0;
    Bytes activations = 0, buffers = 0, working = 0;
    Bytes reserve = 0;  // kept free (exec.memory_reserve): what "fits" leaves for the allocator
    Bytes total() const {
        return parameters + gradients + optimizerStates + mainParameters + activations + buffers + working + reserve;
    }
};

// A stage's memory terms in the order every table, chart and JSON shows them.
struct MemoryTerm {
    const char* key;   // the JSON key of `estimate --json`
    const char* name;  // the words a table or legend shows
    Bytes StageMemory::*bytes;
};
inline constexpr MemoryTerm kMemoryTerms[] = {
    {"parameters", "Parameters", &StageMemory::parameters},
    {"gradients", "Gradients", &StageMemory::gradients},
    {"optimizer_states", "Optimizer states", &StageMemory::optimizerStates},
    {"main_parameters", "Master copy", &StageMemory::mainParameters},
    {"activations", "Activations", &StageMemory::activations},
    {"buffers", "Buffers", &StageMemory::buffers},
    {"working", "Working set", &StageMemory::working},
    {"reserve", "Reserve", &StageMemory::reserve},
};

struct StageTime {  // one micro-batch through all the stage's chunks, seconds
    double forward = 0, backward = 0, weightGrad = 0, recompute = 0;  // backward excludes weightGrad and recompute
    double communication = 0;  // exposed collectives inside forward and backward (included above)
    double forwardComm = 0, backwardComm = 0;  // the same, forward and backward apart (communication is their sum)
    // The same by dimension (they sum to communication): tp, cp, ep, pp send/receive,
    // dp the per-micro-batch parameter gathers and gradient reduce-scatters of FSDP,
    // host the activation offload copies.
    struct ByDimension {
        double tp = 0, cp = 0, ep = 0, pp = 0, dp = 0, host = 0;
        double sum() const { return tp + cp + ep + pp + dp + host; }
    } exposed;
    double tp = 0, cp = 0, ep = 0, pp = 0;  // collectives before overlap, forward + backward
    double dp = 0, dpExposed = 0, optimizer = 0;  // once per step
    double host = 0;  // copies over the host link before overlap: activation offload per micro-batch, forward + backward
    double perMicroBatch() const { return forward + backward + weightGrad + recompute; }
};

// What a stage's figures hold of the model's vision tower (the first stage's, and under
// DualPipe the last device's mirrored copy): folded into its memory terms and times,
// and said apart so a reader sees what the tower costs.
struct VisionShare {
    double parameters = 0;         // elements on one device
    double keptPerMicroBatch = 0;  // bytes saved for backward, one micro-batch
    double forwardSeconds = 0, backwardSeconds = 0;  // one micro-batch (backward: input, weight, recompute)
    // Which of the tower's blocks: [firstBlock, endBlock) of `blocks` (all of them unless
    // exec.vision_partition splits the tower over stages).
    std::int64_t firstBlock = 0, endBlock = 0, blocks = 0;
    bool any() const { return parameters > 0; }
    VisionShare& operator+=(const VisionShare& o) {
        parameters += o.parameters, keptPerMicroBatch += o.keptPerMicroBatch;
        forwardSeconds += o.forwardSeconds, backwardSeconds += o.backwardSeconds;
        return *this;
    }
};

struct StageEstimate {
    int stage = 0;
    std::int64_t layers = 0;
    std::int64_t inFlightMicroBatches = 0;      // chunk-forwards held at the peak, over chunk count
    std::vector<std::int64_t> inFlightPerChunk;
    double parameters = 0;  // elements on one device
    StageMemory memory;
    StageTime time;
    // DualPipe: each device also runs the mirrored stage p-1-s for the other direction's
    // micro-batches, with its own copy of those parameters (memory counts both).
    bool hasMirror = false;
    StageTime mirror;
    double hiddenBySchedule = 0;  // per step: exposed communication the F&B pairs hid on this device
    VisionShare vision;           // of the figures above, the vision tower's
};

struct TimeBreakdown {
    double compute = 0, recompute = 0, communicationExposed = 0, bubble = 0, optimizer = 0;
    // Not a share of the step: the exposed communication the schedule's overlap hid on
    // top of what each layer hides (DualPipe's F&B pairs), on the busiest device.
    double communicationHiddenBySchedule = 0;
    // Of compute: how much longer the F&B pairs computed on the SMs DeepEP's kernels left
    // them (exec.moe_deepep_sms of the device's sms), on the busiest device.
    double computeSlowedBySms = 0;
    // Of compute and recompute: what the mean device waits for the run's slowest one
    // (cluster.rank_speed_spread, model/slowestdevice.h), on the busiest device.
    double computeWaitingOnSlowest = 0;
};

struct Estimate {
    std::int64_t totalParameters = 0;
    double perDeviceMaxParameters = 0;
    std::vector<StageEstimate> stages;
    Bytes peakMemory = 0, deviceMemory = 0;
    int peakStage = 0;
    bool fits = false;
    double stepSeconds = 0, bubbleFraction = 0, mfu = 0, tokensPerSecond = 0;
    double modelFlopsPerStep = 0;
    TimeBreakdown breakdown;
    double slowestDeviceFactor = 1;  // the slowest device's compute time over the mean's
    // A data-parallel ring (over dp·cp, or an optimizer shard group or its replicas) that
    // crosses the network with more than one rank in an NVLink domain: how many. It is
    // priced at one NIC per rank; NCCL can carry it on that many NICs (README, the
    // collectives), which Tessera does not price. 0 otherwise. The same for the routed
    // experts' replicas (expert data parallelism).
    std::int64_t dpRanksPerNodeOnOneNic = 0, expertDpRanksPerNodeOnOneNic = 0;
    // What a capacity review compares across clusters: GPU-hours per 10^12 tokens
    // (devices · 10^12 / tokens_per_second / 3600), and with exec.train_tokens stated the
    // run's optimizer steps and its days on this cluster at this step time.
    std::int64_t devices = 0;
    double gpuHoursPerTrillionTokens = 0;
    std::optional<std::int64_t> trainTokens, trainSteps;
    std::optional<double> trainDays;
    bool expertCommPaired = false;  // pairsExpertComm: the schedule's steady state runs F&B pairs
    int seqSplit = 1;               // seqpipe: sequence parts per micro-batch (inFlightPerChunk counts parts)
    // zb-h2 (staggersStages): the end of its last stage's pipeline work, and whether the
    // step is its longest stage's span instead (optimizer_post_validation).
    double lastStageEnd = 0;
    bool stepIsStageSpan = false;
    bool postValidationUnused = false;  // stated, under a schedule whose first stage spans the step
};

// exec.overlap_moe_expert_parallel_comm where it acts: routed experts over ep > 1 under
// 1f1b or interleaved, whose steady-state forwards then pair with the backward beside
// them (Megatron-LM's combined 1F1B) and hide the expert all-to-all under each other.
bool pairsExpertComm(const CostInput& in);
// Whether `evaluate` prices the strategy by simulating its schedule.
bool simulatedPrice(const CostInput& in);

// The evaluation a search calls per candidate: closed forms, no allocation when
// `detail` is null, except the schedules priced by their simulation (pricedBySimulation).
struct Summary {
    Bytes peakMemory = 0;
    double stepSeconds = 0;
    bool fits = false;
};
Summary evaluate(const CostInput& input, Estimate* detail = nullptr);

// One chunk's times for the simulator, from a stage's time per micro-batch over its
// `chunks` chunks: the recompute runs at the start of the backward, and the weight
// gradient is its own box when split, else inside the backward. The estimate prices
// the simulated schedules with these, and the Pipeline view draws with them.
// `expertCommOnly`: the communication a pair may hide is the expert all-to-all alone
// (Megatron's combined 1F1B), not all the exposed communication (DualPipe's pairs).
StageTimes simulatorTimes(const StageTime& t, int chunks, bool splitWeightGrad, bool expertCommOnly = false);

Estimate estimate(const ResolvedScenario& r);

}  // namespace tessera::core
