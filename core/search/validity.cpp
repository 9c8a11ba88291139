#include "search/validity.h"

#include <algorithm>
#include <limits>

#include "model/collectives.h"

namespace tessera::core {

std::string refusalText(Refusal r) {
    switch (r) {
    case Refusal::None: return "";
    case Refusal::DevicesNotDivided: return "tp·pp·cp does not divide the devices";
    case Refusal::DpNotListed: return "dp is not one of the listed candidates";
    case Refusal::HeadsNotDivided: return "tp does not divide the attention or key/value heads";
    case Refusal::SequenceParallelWithoutTp: return "sequence parallelism needs tp > 1";
    case Refusal::TpOverlapWithoutSp: return "tp_comm_overlap needs sequence parallelism";
    case Refusal::ChunksWithoutPipeline: return "virtual chunks need pp > 1";
    case Refusal::ScheduleNeedsChunks: return "the interleaved and seqsmartvpp schedules need vpp > 1";
    case Refusal::ChunksNeedInterleaved: return "vpp > 1 needs the interleaved schedule (or seqsmartvpp, zbv, dualpipev)";
    case Refusal::VShapeChunks: return "zbv and dualpipev run two chunks per stage (vpp 2)";
    case Refusal::VShapeMicroBatches: return "zbv needs 2 x pp - 1 micro-batches, dualpipev 2 x pp";
    case Refusal::DualPipeShape: return "dualpipe needs an even pp and an even micro-batch count of at least 2 x pp";
    case Refusal::ScheduleNotPlanned:
        return "the planner balances gpipe, 1f1b, interleaved and zb-h1 stages only, without overlap_moe_expert_parallel_comm's pairs";
    case Refusal::P2pOverlapSchedule: return "overlap_p2p_comm needs the interleaved schedule (Megatron-LM) or seqsmartvpp";
    case Refusal::ExpertOverlapWithoutEp: return "overlap_moe_expert_parallel_comm needs ep > 1";
    case Refusal::ExpertOverlapSchedule: return "overlap_moe_expert_parallel_comm needs pp 1 or the interleaved schedule";
    case Refusal::SeqSplitSchedule: return "seq_split > 1 needs the seqpipe or seqsmartvpp schedule";
    case Refusal::SeqPipeWithoutSplit: return "seqpipe or seqsmartvpp with seq_split 1 is 1f1b or interleaved (the same strategy)";
    case Refusal::SeqPartContext: return "a sequence part is not a multiple of 2·cp";
    case Refusal::SeqSplitNotDividingPp: return "seqsmartvpp needs seq_split to divide pp (a micro-batch's parts in one group of the table)";
    case Refusal::SimulationTooLong: return "a schedule priced by simulation with more events than are simulated";
    case Refusal::LayersNotSplit: return "the layers do not split evenly over pp·vpp";
    case Refusal::LayersFewerThanChunks: return "fewer layers than pp·vpp chunks to place them on";
    case Refusal::BatchNotDivided: return "the global batch is not a multiple of micro_batch_size·dp";
    case Refusal::MicroBatchesNotListed: return "micro_batch_num is not one of the listed candidates";
    case Refusal::TooFewMicroBatches: return "fewer micro-batches than pipeline stages";
    case Refusal::InterleavedGroups: return "the interleaved and seqsmartvpp schedules need micro-batches in multiples of pp";
    case Refusal::ExpertsOnDense: return "expert parallelism on a dense model";
    case Refusal::ExpertsNotDivided: return "ep does not divide the experts";
    case Refusal::ExpertGroupsNotFitting:
        return "ep · expert tensor parallelism does not divide dp·tp·cp (the expert grid does not fold)";
    case Refusal::ContextSequence: return "the sequence is not a multiple of 2·cp";
    case Refusal::SequenceParallelSequence: return "the sequence is not a multiple of tp·cp";
    case Refusal::ShardingWithoutOptimizer: return "sharded gradients or FSDP need optimizer sharding";
    case Refusal::ShardingRedundant: return "FSDP already shards gradients (grad_shard is redundant)";
    case Refusal::ScheduleWithoutPipeline: return "a pipeline schedule other than 1f1b without pipelining (the same strategy)";
    case Refusal::SelectiveKeepsEverything: return "selective recompute drops nothing here (flash attention keeps no scores): the same as none";
    case Refusal::ExpertWidthNotDivided: return "the expert TP degree does not divide the expert width";
    case Refusal::ExpertTpDisagrees: return "the stated etp reads as another expert TP degree than expert_tp at this tp";
    case Refusal::AllToAllHeads: return "all-to-all context parallelism: the heads per TP rank are not a multiple of cp";
    case Refusal::ShardNotDividing: return "optimizer_shard does not divide the data-parallel group";
    case Refusal::ShardWithoutOptimizer: return "optimizer_shard without optimizer sharding (the same strategy)";
    case Refusal::TooManyChunks: return "vpp above 64 chunks per stage (not modelled)";
    case Refusal::TooManyMicroBatches: return "more than 2^31-1 micro-batches per step (not modelled)";
    case Refusal::AccumulationOff: return "grad_accumulation: false, but several micro-batches";
    case Refusal::ExpertShardNotDividing: return "expert_shard does not divide the expert data-parallel group";
    case Refusal::DeferredWithoutFsdp: return "deferred_grad_accumulation needs FSDP (grad_shard_as_params)";
    case Refusal::ShardPerNodeSame:
        return "optimizer_shard auto's shard per NVLink domain is the whole group here, or one rank, or there is no "
               "optimizer sharding (the same strategy as another candidate)";
    case Refusal::Fp8ParamsSharding: return "fp8_params needs the distributed optimizer (optimizer_parallel, not FSDP)";
    case Refusal::PlacementNotFitting: return "the stated offset or pp_partition does not place the layers on this pp and vpp";
    case Refusal::Bounded: return "planned at best slower and heavier than the candidates kept (a lower bound, not planned)";
    case Refusal::OffloadPastLayers: return "a stage's first chunk holds fewer layers than activation_offload offloads";
    case Refusal::Count: break;
    }
    return "?";
}

bool isPruning(Refusal r) {
    switch (r) {
    case Refusal::DpNotListed:
    case Refusal::MicroBatchesNotListed:
    case Refusal::ScheduleWithoutPipeline:
    case Refusal::SelectiveKeepsEverything:
    case Refusal::ShardingRedundant:
    case Refusal::SeqPipeWithoutSplit:
    case Refusal::ShardPerNodeSame:
    case Refusal::Bounded: return true;
    default: return false;
    }
}

Validity::Validity(const SearchSetup& setup) : m_setup(setup) {
    const ModelShape& m = setup.input.model;
    m_heads = m.a;
    m_kvHeads = m.kvLora > 0 ? m.a : m.g;
    m_layers = m.bodyLayers + (setup.input.strategy.mtpOnStages ? m.mtpLayers : 0);
    m_experts = m.experts;
    m_expertWidth = m.expertWidth;
    m_seq = setup.input.run.seq;
    m_linKey = m.linKeyHeads;
    m_linValue = m.linValueHeads;
    const ExecSpec& e = setup.base.scenario.exec;
    m_expertShard = e.expert_shard.value_or(0);
    if (setup.space.megatronExpertTp) m_statedEtp = e.etp;
    m_accumulationOff = e.grad_accumulation == false;
    m_deferred = *e.deferred_grad_accumulation;
    m_fp8Params = *e.fp8_params;
    m_p2pOverlap = e.overlap_p2p_comm;
    m_expertOverlap = *e.overlap_moe_expert_parallel_comm;
    m_seqSplit = e.seq_split.value_or(1);
    m_ringCp = *e.cp_algo == "colossalai_cp";
    const std::vector<std::string>& varied = setup.space.varied;
    m_spWhereTp = setup.space.sp == std::vector<bool>{true} &&
                  std::find(varied.begin(), varied.end(), "sequence_parallel") == varied.end();
    // With flash attention the score tensors the rules drop do not exist.
    const OpMask scores = kOpSoftmax | kOpHeadCast | kOpScoreDropout;
    for (int sp = 0; sp < 2; ++sp) {
        OpMask keep = selectiveRuleMask(setup.space.selectiveRule, setup.input.strategy.flash, sp == 1);
        if (setup.input.strategy.flash) keep |= scores;
        if (!sp) keep |= kOpGather;  // nothing to re-gather without sequence parallelism
        // A duplicate only when `none` is also a candidate; chosen alone, it is the run's.
        const auto& modes = setup.space.recompute;
        m_selectiveIsNoOp[sp] = (keep & kOpAll) == kOpAll && std::find(modes.begin(), modes.end(), RecomputeMode::None) != modes.end();
    }
}

Refusal Validity::check(const std::size_t* d, Candidate& c) const {
    const SearchSpace& s = m_setup.space;
    c.tp = s.tp[d[0]], c.pp = s.pp[d[1]], c.cp = s.cp[d[2]], c.vpp = s.vpp[d[3]], c.ep = s.ep[d[4]], c.mbs = s.mbs[d[5]];
    c.sp = s.sp[d[6]], c.optimizerSharded = s.optimizerSharded[d[7]], c.gradSharded = s.gradSharded[d[8]];
    c.fsdp = s.fsdp[d[9]], c.recompute = s.recompute[d[10]], c.schedule = s.schedule[d[11]];
    c.optimizerShard = s.optimizerShard[d[13]], c.dpShard = s.dpShard[d[14]];
    if (s.megatronExpertTp) c.expertTp = s.etp[d[12]], c.etp = 0;
    else c.etp = s.etp[d[12]], c.expertTp = 0;
    if (c.dpShard > 0) {  // HyperParallel's FSDP degree decides the sharding
        const bool sharded = c.dpShard > 1;
        c.optimizerSharded = sharded, c.fsdp = sharded, c.gradSharded = false;
        c.optimizerShard = sharded ? c.dpShard : 0;
    }
    // Listed degrees go up to 2^24 each: their product can pass int64 (and then no
    // number of devices is divided by it).
    std::int64_t model = 0;
    if (__builtin_mul_overflow(c.tp, c.pp, &model) || __builtin_mul_overflow(model, c.cp, &model) || s.devices % model != 0)
        return Refusal::DevicesNotDivided;
    c.dp = s.devices / model;
    if (m_heads % c.tp || m_kvHeads % c.tp || (m_linKey && (m_linKey % c.tp || m_linValue % c.tp)))
        return Refusal::HeadsNotDivided;
    // A stated sequence_parallel: true the search does not vary means "where there is
    // a tensor-parallel group to split over" (Megatron turns it off at tp 1 too).
    if (c.sp && c.tp == 1) {
        if (!m_spWhereTp) return Refusal::SequenceParallelWithoutTp;
        c.sp = false;
    }
    if (!c.sp && c.tp > 1 && m_setup.input.strategy.tpCommOverlap) return Refusal::TpOverlapWithoutSp;
    if (c.vpp > 1 && c.pp == 1) return Refusal::ChunksWithoutPipeline;
    if (interleavesChunks(c.schedule) && c.vpp == 1) return Refusal::ScheduleNeedsChunks;
    if (isVShape(c.schedule) && c.vpp != 2) return Refusal::VShapeChunks;
    if (c.vpp > 1 && !interleavesChunks(c.schedule) && !isVShape(c.schedule)) return Refusal::ChunksNeedInterleaved;
    if (c.vpp > 64) return Refusal::TooManyChunks;
    if (s.planPartition) {
        if (m_layers < c.pp * c.vpp) return Refusal::LayersFewerThanChunks;
    } else if (s.placements.empty() && m_layers % (c.pp * c.vpp) != 0) {
        return Refusal::LayersNotSplit;
    }
    if (!s.placements.empty()) {
        c.placement = std::uint32_t(d[1] * s.vpp.size() + d[3]);
        if (s.placements[c.placement].empty()) return Refusal::PlacementNotFitting;
    }
    // Offload takes a stage's first layers: its first chunk must hold as many (the stated
    // placement's, else the even split's, whose fewest is the floor of layers / chunks).
    if (const std::int64_t k = m_setup.input.run.activationOffload; k > 0) {
        std::int64_t fewest = m_layers / (c.pp * c.vpp);
        if (!s.placements.empty()) {
            const std::vector<std::int64_t>& first = s.placements[c.placement].front();
            fewest = *std::min_element(first.begin(), first.end());
        }
        if (fewest < k) return Refusal::OffloadPastLayers;
    }
    if (std::int64_t replicaBatch = 0; __builtin_mul_overflow(c.mbs, c.dp, &replicaBatch) || s.globalBatch % replicaBatch != 0)
        return Refusal::BatchNotDivided;
    c.mbn = s.globalBatch / (c.mbs * c.dp);
    if (c.mbn > std::numeric_limits<int>::max()) return Refusal::TooManyMicroBatches;
    if (c.mbn < c.pp) return Refusal::TooFewMicroBatches;
    if (interleavesChunks(c.schedule) && c.mbn % c.pp != 0) return Refusal::InterleavedGroups;
    if (c.schedule == Schedule::DualPipe && (c.pp % 2 != 0 || c.mbn % 2 != 0 || c.mbn < 2 * c.pp))
        return Refusal::DualPipeShape;
    if ((c.schedule == Schedule::Zbv && c.mbn < 2 * c.pp - 1) || (c.schedule == Schedule::DualPipeV && c.mbn < 2 * c.pp))
        return Refusal::VShapeMicroBatches;
    if (tooLongToSimulate(c.schedule, m_expertOverlap && m_experts > 1 && c.ep > 1, c.pp, c.vpp, c.mbn))
        return Refusal::SimulationTooLong;
    if (m_seqSplit > 1 && !runsSequenceParts(c.schedule)) return Refusal::SeqSplitSchedule;
    if (c.schedule == Schedule::SeqSmartVpp && c.pp % m_seqSplit != 0) return Refusal::SeqSplitNotDividingPp;
    if (runsSequenceParts(c.schedule) && c.cp > 1 && m_ringCp && (m_seq / m_seqSplit) % (2 * c.cp) != 0)
        return Refusal::SeqPartContext;
    if (c.pp > 1 && !interleavesChunks(c.schedule) && m_p2pOverlap.value_or(false)) return Refusal::P2pOverlapSchedule;
    if (c.pp > 1 && c.schedule != Schedule::Interleaved && m_expertOverlap) return Refusal::ExpertOverlapSchedule;
    if (m_expertOverlap && m_experts > 1 && c.ep == 1) return Refusal::ExpertOverlapWithoutEp;
    if ((s.planPartition || c.recompute == RecomputeMode::PerLayer) && (!plannerBalances(c.schedule) || m_expertOverlap))
        return Refusal::ScheduleNotPlanned;
    if (m_accumulationOff && c.mbn > 1) return Refusal::AccumulationOff;
    if (m_experts <= 1 && c.ep > 1) return Refusal::ExpertsOnDense;
    if (m_experts > 1 && m_experts % c.ep != 0) return Refusal::ExpertsNotDivided;
    const std::int64_t expertTp = c.expertTpUsed();
    if (m_experts > 1 && m_statedEtp && seedExpertTp(*m_statedEtp, c.tp) != expertTp) return Refusal::ExpertTpDisagrees;
    const std::optional<ExpertGrid> grid = expertGrid(c.tp, c.cp, c.dp, c.ep, expertTp);
    if (m_experts > 1 && !grid) return Refusal::ExpertGroupsNotFitting;
    if (m_experts > 1 && m_expertWidth % expertTp != 0) return Refusal::ExpertWidthNotDivided;
    if (m_experts > 1 && m_expertShard > 0 && grid && grid->dp % m_expertShard != 0) return Refusal::ExpertShardNotDividing;
    if (c.cp > 1 && m_setup.input.strategy.cpAlgorithm == CpAlgorithm::Ring && m_seq % (2 * c.cp) != 0)
        return Refusal::ContextSequence;
    if (c.cp > 1 && m_setup.input.strategy.cpAlgorithm != CpAlgorithm::Ring && ((m_heads / c.tp) % c.cp || m_seq % c.cp))
        return Refusal::AllToAllHeads;
    if (c.sp && m_seq % (c.tp * c.cp) != 0) return Refusal::SequenceParallelSequence;
    if (m_deferred && !c.fsdp) return Refusal::DeferredWithoutFsdp;
    if (m_fp8Params && (!c.optimizerSharded || c.fsdp)) return Refusal::Fp8ParamsSharding;
    if ((c.gradSharded || c.fsdp) && !c.optimizerSharded) return Refusal::ShardingWithoutOptimizer;
    const std::int64_t shardGroup = c.dp * (m_setup.input.strategy.shardSpansCp ? c.cp : 1);  // what a shard may span
    if (c.optimizerShard == kShardPerNode) {
        // One shard per NVLink domain: this candidate's grid says how wide that is. Where
        // it is the whole group, or one rank (no sharding), it repeats another candidate.
        Strategy grid;
        grid.rankOrder = m_setup.input.strategy.rankOrder, grid.shardSpansCp = m_setup.input.strategy.shardSpansCp;
        grid.tp = c.tp, grid.cp = c.cp, grid.dp = c.dp, grid.pp = c.pp, grid.optimizerSharded = true;
        const std::int64_t perNode = c.optimizerSharded ? shardRanksPerNode(grid, m_setup.input.device) : 1;
        if (perNode <= 1 || perNode >= shardGroup) return Refusal::ShardPerNodeSame;
        c.optimizerShard = perNode;
    }
    if (c.optimizerShard > 0 && !c.optimizerSharded && !c.gradSharded && !c.fsdp) return Refusal::ShardWithoutOptimizer;
    if (c.optimizerShard > 0 && shardGroup % c.optimizerShard != 0) return Refusal::ShardNotDividing;
    // Valid, but left out: outside a listed dp or micro-batch count, or the same
    // strategy as another candidate (or one that does the same work in more memory).
    if (!s.dpFilter.empty() && std::find(s.dpFilter.begin(), s.dpFilter.end(), c.dp) == s.dpFilter.end())
        return Refusal::DpNotListed;
    if (!s.mbnFilter.empty() && std::find(s.mbnFilter.begin(), s.mbnFilter.end(), c.mbn) == s.mbnFilter.end())
        return Refusal::MicroBatchesNotListed;
    if (c.pp == 1 && c.schedule != Schedule::OneFOneB) return Refusal::ScheduleWithoutPipeline;
    if (runsSequenceParts(c.schedule) && m_seqSplit == 1) return Refusal::SeqPipeWithoutSplit;
    if (c.gradSharded && c.fsdp) return Refusal::ShardingRedundant;
    if (c.recompute == RecomputeMode::Selective && m_selectiveIsNoOp[c.sp ? 1 : 0]) return Refusal::SelectiveKeepsEverything;
    return Refusal::None;
}

void Validity::fill(const Candidate& c, CostInput& in) const {
    Strategy& st = in.strategy;
    st.dp = c.dp, st.tp = c.tp, st.pp = c.pp, st.vpp = c.vpp, st.cp = c.cp, st.ep = c.ep;
    st.etp = c.expertTpUsed();
    st.mbs = c.mbs, st.mbn = c.mbn, st.sp = c.sp;
    st.optimizerSharded = c.optimizerSharded, st.gradSharded = c.gradSharded, st.fsdp = c.fsdp;
    const std::int64_t domain = c.dp * (st.shardSpansCp ? c.cp : 1);
    st.optimizerShard = c.optimizerSharded ? (c.optimizerShard > 0 ? c.optimizerShard : domain) : 1;
    st.expertShard = c.optimizerSharded ? (m_expertShard > 0 ? m_expertShard : expertGridOf(st).dp) : 1;
    st.schedule = c.schedule;
    st.overlapP2p = m_p2pOverlap.value_or(interleavesChunks(c.schedule));
    if (m_setup.space.placements.empty()) st.partition.clear();
    else st.partition = m_setup.space.placements[c.placement];
    st.layerClass.clear();
    RecomputeClass cls;
    if (c.recompute == RecomputeMode::Full) cls.mode = RecomputeClass::Full;
    if (c.recompute == RecomputeMode::Selective)
        cls = {RecomputeClass::Selective, selectiveRuleMask(m_setup.space.selectiveRule, st.flash, c.sp)};
    if (st.classes.size() != 1) st.classes.assign(1, cls);
    else st.classes[0] = cls;
}

std::vector<std::string> adviceWhenNothingFits(const SearchSetup& setup, const SearchResult& result) {
    std::vector<std::string> advice;
    const SearchSpace& s = setup.space;
    const double limit = double(s.memoryLimit) / double(GiB);
    if (!result.lightestRefused) {
        advice.push_back("no candidate passed the validity rules: see the refusal counts, and widen the lists they name");
        return advice;
    }
    const Candidate& c = *result.lightestRefused;
    char line[256];
    std::snprintf(line, sizeof line, "the lightest candidate (%s) needs %.1f GiB; the limit is %.1f GiB", c.label().c_str(),
                  double(c.peakMemory) / double(GiB), limit);
    advice.emplace_back(line);
    auto largest = [&](const std::vector<std::int64_t>& list, std::int64_t used, const char* key) {
        if (!list.empty() && used == *std::max_element(list.begin(), list.end()))
            advice.push_back(std::string("it already uses the largest ") + key + " listed (" + std::to_string(used) +
                             "): list larger " + key + " values");
    };
    largest(s.tp, c.tp, "tp");
    largest(s.pp, c.pp, "pp");
    largest(s.cp, c.cp, "cp");
    if (std::find(s.recompute.begin(), s.recompute.end(), RecomputeMode::Full) == s.recompute.end())
        advice.emplace_back("full recompute was not allowed: add it to search.space.recompute");
    if (std::find(s.optimizerSharded.begin(), s.optimizerSharded.end(), true) == s.optimizerSharded.end())
        advice.emplace_back("optimizer sharding was not allowed: add true to search.space.optimizer_parallel");
    if (std::find(s.fsdp.begin(), s.fsdp.end(), true) == s.fsdp.end())
        advice.emplace_back("FSDP was not allowed: add true to search.space.grad_shard_as_params");
    if (s.memoryLimit < setup.input.device.memory)
        advice.emplace_back("the memory limit is below the device's memory: raise search.constraints.memory_limit_gb");
    advice.emplace_back("or use more devices (cluster.devices) or a device with more memory");
    return advice;
}

}  // namespace tessera::core
