#pragma once
// The expert layers' grid: the one place resolve, the cost model and the search read
// the expert tensor-parallel degree and what follows from it.
//
// MoE parallel folding (Liu et al. 2025, arXiv 2504.14960; Megatron-LM
// megatron/core/parallel_state.py, initialize_model_parallel's expert RankGenerator):
// the attention and dense layers run on the grid tp x cp x dp of each pipeline stage,
// the expert layers on their own grid over the same ranks, expert_tp x ep x expert dp
// (context parallelism folds into it: cp is 1 there). So ep · expert_tp must divide
// tp · cp · dp, and the expert data-parallel degree, the ranks each expert's gradients
// are reduced over, is what is left: tp · cp · dp / (ep · expert_tp).
//
// Two spellings of the expert TP degree reach it:
//   expert_tp  Megatron-LM's --expert-tensor-parallel-size, torchtitan's
//              parallelism.expert_tensor_parallel_degree: the degree itself; 1 keeps
//              each expert whole on its ep rank (Mixtral's and Qwen3-MoE's usual setting);
//   etp        the seed's (HyperParallel accelerator.expert_tensor_parallel_degree):
//              above 1 the degree, at most 1 the dense tp - which cannot say 1 beside tp > 1.
// resolve fills each from the other; unstated, the expert layers run at tp (Megatron-LM
// sets --expert-tensor-parallel-size to --tensor-model-parallel-size when unset).
#include <cstdint>
#include <optional>

#include "spec/execspec.h"

namespace tessera::core {

struct ExpertGrid {
    std::int64_t tp = 1;  // expert tensor parallelism
    std::int64_t ep = 1;  // expert parallelism
    std::int64_t dp = 1;  // expert data parallelism: the replicas of each expert
};

// The seed's etp read as a degree: itself above 1, else the dense tp.
inline std::int64_t seedExpertTp(std::int64_t etp, std::int64_t tp) { return etp > 1 ? etp : tp; }

// The expert grid over a stage's tp · cp · dp ranks, or nullopt when ep · expertTp does
// not divide them (or the product passes 2^63-1).
std::optional<ExpertGrid> expertGrid(std::int64_t tp, std::int64_t cp, std::int64_t dp, std::int64_t ep, std::int64_t expertTp);

// The expert TP degree an exec states: expert_tp, else etp as the seed reads it, else tp.
std::int64_t expertTp(const ExecSpec& exec);

}  // namespace tessera::core
