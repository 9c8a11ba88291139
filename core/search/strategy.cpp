#include "search/strategy.h"

#include "plan/planexec.h"
#include "spec/overlay.h"

namespace tessera::core {

ExecSpec strategyExec(const Candidate& c) {
    ExecSpec e;
    e.dp = c.dp, e.tp = c.tp, e.pp = c.pp, e.vpp = c.vpp, e.cp = c.cp, e.ep = c.ep;
    if (c.expertTp > 0) e.expert_tp = c.expertTp;  // in the spelling the space states
    else e.etp = c.etp;
    e.micro_batch_size = c.mbs, e.micro_batch_num = c.mbn, e.global_batch_size = c.mbs * c.mbn * c.dp;
    e.sequence_parallel = c.sp;
    e.optimizer_parallel = c.optimizerSharded, e.grad_shard = c.gradSharded, e.grad_shard_as_params = c.fsdp;
    if (c.optimizerShard > 0) e.optimizer_shard = c.optimizerShard;  // 0: the whole group, as unstated means
    e.pp_schedule = scheduleName(c.schedule);
    e.recompute = std::vector<RecomputeRange>{RecomputeRange{0, std::nullopt, recomputeName(c.recompute), std::nullopt}};
    if (c.plan) {  // the planned placement and every layer's option
        e.pp_partition = c.plan->partition.size() == 1 ? StageCounts{c.plan->partition.front()} : StageCounts{c.plan->partition};
        e.recompute = planRanges(*c.plan);
    }
    return e;
}

ExecSpec execFor(const ExecSpec& stated, const Candidate& c) {
    ExecSpec e = stated;
    e.full_recompute.reset(), e.selective_recompute.reset();
    if (c.plan) e.offset.reset(), e.selective_comm_recompute.reset();  // the plan states the placement and the options
    overlay(e, strategyExec(c));
    return e;
}

Scenario scenarioFor(const Scenario& stated, const Candidate& c) {
    Scenario out = stated;
    out.exec = execFor(stated.exec, c);
    return out;
}

}  // namespace tessera::core
