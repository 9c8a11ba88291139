#include "plan/planexec.h"

#include <algorithm>
#include <stdexcept>

#include "model/costinput.h"

namespace tessera::core {

std::string partitionText(const std::vector<std::vector<std::int64_t>>& grid) {
    std::string out;
    for (std::size_t s = 0; !grid.empty() && s < grid.front().size(); ++s) {
        if (s) out += ",";
        for (std::size_t c = 0; c < grid.size(); ++c) out += (c ? "+" : "") + std::to_string(grid[c][s]);
    }
    return out;
}

void applyPlan(const Plan& plan, Strategy& st) {
    st.partition = plan.partition;
    st.classes = plan.classes;
    st.layerClass = plan.layerClass;
    if (!plan.offload.empty()) st.activationOffload = plan.offload;
}

PlanRequest planRequest(const ResolvedScenario& r, bool partition, bool recompute, bool offload) {
    const ExecSpec& e = r.scenario.exec;
    const OpMask rule = selectiveRuleMask(*e.selective_rule, *e.flash_attention, *e.sequence_parallel);
    // SLCT is the selective recompute the run states (its ops, as the seed's SLCT takes the
    // layer's own switches), else its rule.
    OpMask slct = rule;
    for (const RecomputeClass& c : costInput(r).strategy.classes)
        if (c.mode == RecomputeClass::Selective) {
            slct = c.keep;
            break;
        }
    PlanRequest request;
    request.partition = partition, request.recompute = recompute;
    request.selectiveKeep = slct, request.ruleKeep = rule;
    request.offload = offload;
    return request;
}

namespace {

// The ops a selective range names as recomputed, for the ops a class drops.
std::vector<std::pair<std::string, std::string>> droppedOps(OpMask keep) {
    const OpMask dropped = static_cast<OpMask>(~keep & kOpAll);
    std::vector<std::pair<std::string, std::string>> out;
    OpMask named = 0;
    for (const auto& [name, bits] : kRecomputeOpBits)
        if ((dropped & bits) == bits) out.emplace_back(name, "recompute"), named |= bits;
    if (named != dropped)  // a mask the op names cannot spell (one dropout of the two)
        throw std::logic_error("a planned recompute class has no spelling as recompute ops");
    return out;
}

RecomputeRange rangeFor(const Plan& plan, std::uint8_t cls, std::int64_t first, std::int64_t count) {
    RecomputeRange r{first, count, "none", std::nullopt};
    const RecomputeClass& c = plan.classes[cls];
    if (c.mode == RecomputeClass::Full) r.option = "full";
    if (c.mode == RecomputeClass::Selective) {
        r.option = "selective";
        if (c.keep != plan.ruleKeep) r.ops = droppedOps(c.keep);  // else the run's own rule
    }
    return r;
}

}  // namespace

std::vector<RecomputeRange> planRanges(const Plan& plan) {
    std::vector<RecomputeRange> out;
    const auto& cls = plan.layerClass;
    for (std::size_t i = 0; i < cls.size();) {
        std::size_t j = i;
        while (j < cls.size() && cls[j] == cls[i]) ++j;
        out.push_back(rangeFor(plan, cls[i], std::int64_t(i), std::int64_t(j - i)));
        i = j;
    }
    return out;
}

ExecSpec planExec(const ExecSpec& stated, const Plan& plan) {
    ExecSpec e = stated;
    e.offset.reset();
    if (plan.partition.size() == 1) e.pp_partition = StageCounts{plan.partition.front()};
    else e.pp_partition = StageCounts{plan.partition};
    // Every layer's class as ranges, the strategy's own ones too: the seed's per-stage
    // counts would mean other layers on a new partition.
    e.recompute = planRanges(plan);
    e.full_recompute.reset(), e.selective_recompute.reset(), e.selective_comm_recompute.reset();
    if (!plan.offload.empty()) {  // the plan chose offload: one count per stage, zeros too
        const bool none = std::all_of(plan.offload.begin(), plan.offload.end(), [](std::int64_t k) { return k == 0; });
        e.activation_offload = none ? StageCounts{std::int64_t{0}} : StageCounts{StageCounts::Flat(plan.offload)};
    }
    return e;
}

}  // namespace tessera::core
