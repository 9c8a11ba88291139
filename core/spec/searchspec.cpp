#include "spec/searchspec.h"

namespace tessera::core {

std::span<const AxisInfo> searchAxes() {
    static constexpr AxisInfo kAxes[] = {
        {"dp", AxisType::Count},
        {"tp", AxisType::Count},
        {"pp", AxisType::Count},
        {"vpp", AxisType::Count},
        {"cp", AxisType::Count},
        {"ep", AxisType::Count},
        {"etp", AxisType::Count},
        {"micro_batch_size", AxisType::Count},
        {"micro_batch_num", AxisType::Count},
        {"optimizer_shard", AxisType::Count},
        {"expert_shard", AxisType::Count},
        {"optimizer_parallel", AxisType::Flag},
        {"grad_shard", AxisType::Flag},
        {"grad_shard_as_params", AxisType::Flag},
        {"shard_spans_cp", AxisType::Flag},
        {"reshard_params", AxisType::Flag},
        {"sequence_parallel", AxisType::Flag},
        {"flash_attention", AxisType::Flag},
        {"recompute", AxisType::Recompute},
        {"pp_schedule", AxisType::Schedule},
        {"selective_rule", AxisType::SelectiveRule},
        {"cp_algo", AxisType::CpAlgorithm},
    };
    return kAxes;
}

}  // namespace tessera::core
