#include "resolve/expertgrid.h"

namespace tessera::core {

std::optional<ExpertGrid> expertGrid(std::int64_t tp, std::int64_t cp, std::int64_t dp, std::int64_t ep, std::int64_t expertTp) {
    std::int64_t ranks = 0, expertRanks = 0;
    if (tp < 1 || cp < 1 || dp < 1 || ep < 1 || expertTp < 1) return std::nullopt;
    if (__builtin_mul_overflow(tp, cp, &ranks) || __builtin_mul_overflow(ranks, dp, &ranks)) return std::nullopt;
    if (__builtin_mul_overflow(ep, expertTp, &expertRanks) || ranks % expertRanks != 0) return std::nullopt;
    return ExpertGrid{expertTp, ep, ranks / expertRanks};
}

std::int64_t expertTp(const ExecSpec& e) {
    if (e.expert_tp) return *e.expert_tp;
    return seedExpertTp(e.etp.value_or(0), e.tp.value_or(1));
}

}  // namespace tessera::core
