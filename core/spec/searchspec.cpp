#include "spec/searchspec.h"

namespace tessera::core {

std::span<const AxisInfo> searchAxes() {
    static constexpr AxisInfo kAxes[] = {
        {"dp", AxisType::Count, true, true},
        {"tp", AxisType::Count, true, true},
        {"pp", AxisType::Count, true, true},
        {"vpp", AxisType::Count, true, true},
        {"pp_partition", AxisType::Partition, true, false,
         "the layers each stage holds: auto plans them for every candidate (the pipeline balancer, exact; "
         "with vpp > 1 the even split, the remainder on the last chunks)"},
        {"cp", AxisType::Count, true, true},
        {"ep", AxisType::Count, true, true},
        {"etp", AxisType::Count, true, false},
        {"expert_tp", AxisType::Count, true, false,
         "the expert layers' TP degree in Megatron-LM's spelling (--expert-tensor-parallel-size; 1: experts whole on "
         "each ep rank): auto tries the degrees dividing the devices and the expert width, each candidate those whose "
         "ep · expert_tp divides its tp·cp·dp; search it or etp, not both"},
        {"micro_batch_size", AxisType::Count, true, true},
        {"micro_batch_num", AxisType::Count, true, true},
        {"optimizer_shard", AxisType::Count, true, false,
         "ranks each optimizer shard spans: auto tries one shard over the whole data-parallel group and, where it is "
         "narrower, one per NVLink domain (HSDP: shards reduce over NVLink, replicas all-reduce across nodes), each "
         "candidate the width its grid puts in a domain; a list tries those sizes"},
        {"dp_shard", AxisType::Count, true, false,
         "HyperParallel's FSDP degree (fsdp_config.dp_shard_size): 1 shards nothing; n > 1 shards parameters, "
         "gradients and optimizer states over n data-parallel ranks (optimizer_parallel, grad_shard_as_params, "
         "optimizer_shard n)"},
        {"expert_shard", AxisType::Count, false, false},
        {"optimizer_parallel", AxisType::Flag, true, true},
        {"grad_shard", AxisType::Flag, true, true},
        {"grad_shard_as_params", AxisType::Flag, true, true},
        {"shard_spans_cp", AxisType::Flag, false, false},
        {"reshard_params", AxisType::Flag, false, false},
        {"sequence_parallel", AxisType::Flag, true, true},
        {"flash_attention", AxisType::Flag, false, false},
        {"recompute", AxisType::Recompute, true, true},
        {"pp_schedule", AxisType::Schedule, true, true},
        {"selective_rule", AxisType::SelectiveRule, false, false},
        {"cp_algo", AxisType::CpAlgorithm, false, false},
    };
    return kAxes;
}

const AxisInfo* searchAxis(std::string_view key) {
    for (const AxisInfo& axis : searchAxes())
        if (axis.key == key) return &axis;
    return nullptr;
}

SearchSpec defaultSearchSpace(const std::optional<SearchSpec>& stated) {
    SearchSpec out = stated.value_or(SearchSpec{});
    out.space.clear();
    for (const AxisInfo& axis : searchAxes())
        if (axis.inDefaultSpace) out.space.push_back({std::string(axis.key), std::nullopt});
    return out;
}

}  // namespace tessera::core
