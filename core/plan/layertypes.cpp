#include "plan/layertypes.h"

#include <algorithm>

namespace tessera::core {

RecomputeClass planOptionClass(PlanOption option, OpMask keep) {
    switch (option) {
    case PlanOption::None: return {};
    case PlanOption::Slct: return {RecomputeClass::Selective, keep};
    case PlanOption::Comm: return {RecomputeClass::Selective, static_cast<OpMask>(kOpAll & ~kOpGather)};
    case PlanOption::Both: return {RecomputeClass::Selective, static_cast<OpMask>(keep & ~kOpGather)};
    case PlanOption::Full: return {RecomputeClass::Full, kOpAll};
    }
    return {};
}

namespace plan {
namespace {

std::uint8_t addClass(PlanClasses& out, const RecomputeClass& c, const std::string& name) {
    auto it = std::find(out.classes.begin(), out.classes.end(), c);
    if (it != out.classes.end()) return std::uint8_t(it - out.classes.begin());
    out.classes.push_back(c), out.names.push_back(name);
    return std::uint8_t(out.classes.size() - 1);
}

// Options no layer is better off with: another keeps no more, recomputes no longer and
// has no larger working set (on a tie the earlier class, in the seed's order, stays).
// `tiesOnly`: withdraw only the ties.
std::vector<OptionCost> undominated(const std::vector<OptionCost>& all, bool tiesOnly) {
    std::vector<OptionCost> out;
    for (std::size_t i = 0; i < all.size(); ++i) {
        bool beaten = false;
        for (std::size_t j = 0; j < all.size() && !beaten; ++j) {
            if (i == j) continue;
            const OptionCost &a = all[j], &b = all[i];
            const bool noWorse = a.kept <= b.kept && a.recompute <= b.recompute && a.working <= b.working;
            const bool tie = a.kept == b.kept && a.recompute == b.recompute && a.working == b.working;
            beaten = tiesOnly ? tie && j < i : noWorse && (!tie || j < i);
        }
        if (!beaten) out.push_back(all[i]);
    }
    return out;
}

}  // namespace

PlanClasses planClasses(const Strategy& st, const PlanRequest& request) {
    PlanClasses out;
    addClass(out, RecomputeClass{}, kPlanOptionNames[0]);
    out.statedClass.assign(st.classes.size(), 0);
    if (request.recompute) {
        for (std::size_t o = 0; o < kPlanOptions; ++o)
            addClass(out, planOptionClass(PlanOption(o), request.selectiveKeep), kPlanOptionNames[o]);
    } else {
        for (std::size_t c = 0; c < st.classes.size(); ++c) out.statedClass[c] = addClass(out, st.classes[c], "STATED");
    }
    return out;
}

PlanTypes planTypes(detail::StageContext& context, const Strategy& st, const PlanRequest& request, const PlanClasses& pc,
                    bool everyOption) {
    const ModelShape& m = context.in.model;
    const std::size_t classes = pc.classes.size();
    std::vector<std::vector<OptionCost>> kindCosts(m.kinds.size());
    PlanTypes out;
    out.baseTime.assign(m.kinds.size(), 0);
    for (std::size_t k = 0; k < m.kinds.size(); ++k)
        for (std::size_t c = 0; c < classes; ++c) {
            const LayerCost& lc = context.cost(k * classes + c);
            kindCosts[k].push_back(
                {std::uint8_t(c), lc.kept, lc.recompute, lc.keptNone - lc.kept + lc.gradBuffer + lc.gatheredInput});
            if (c == 0) out.baseTime[k] = lc.forward + lc.backwardInput + lc.backwardWeight;
        }
    const std::size_t layers = m.layerKind.size();
    out.typeOf.assign(layers, 0);
    std::vector<std::pair<std::size_t, std::uint8_t>> seen;  // (kind, class or 255: every option)
    for (std::size_t l = 0; l < layers; ++l) {
        const std::size_t kind = m.layerKind[l];
        const std::uint8_t cls = request.recompute       ? 255
                                 : st.layerClass.empty() ? pc.statedClass[0]
                                                         : pc.statedClass[st.layerClass[l]];
        auto it = std::find(seen.begin(), seen.end(), std::make_pair(kind, cls));
        if (it == seen.end()) {
            seen.emplace_back(kind, cls);
            LayerType t{kind, {}};
            t.options = cls == 255 ? undominated(kindCosts[kind], everyOption) : std::vector<OptionCost>{kindCosts[kind][cls]};
            out.types.push_back(std::move(t));
            it = seen.end() - 1;
        }
        out.typeOf[l] = std::uint8_t(it - seen.begin());
    }
    return out;
}

void assignStage(const StageChoice& c, const std::int32_t* chosen, const detail::StageRanges& r, std::int64_t v,
                 std::int64_t extraLast, const PlanTypes& pt, std::vector<std::uint8_t>& layerClass) {
    const std::size_t T = pt.types.size();
    for (std::int64_t ch = 0; ch < v; ++ch) {
        const std::int64_t start = r.start[std::size_t(ch)];
        const std::int64_t b = start + r.count[std::size_t(ch)] + (ch == v - 1 ? extraLast : 0);
        const std::int64_t a = start + (ch == 0 ? c.offload : 0);
        for (std::size_t t = 0; t < T; ++t) {
            const std::vector<OptionCost>& options = pt.types[t].options;
            std::vector<std::uint8_t> queue;
            if (!c.fits) {  // every layer at its lightest option (offloaded ones too: the tail is unused)
                const OptionCost* lightest = &options.front();
                for (const OptionCost& o : options)
                    if (o.kept < lightest->kept) lightest = &o;
                const auto n = std::count(pt.typeOf.begin() + start, pt.typeOf.begin() + b, std::uint8_t(t));
                queue.assign(std::size_t(n), lightest->cls);
            } else {
                // The type's options from the most recompute down, each as many times as chosen.
                std::vector<const OptionCost*> order;
                for (const OptionCost& o : options) order.push_back(&o);
                std::stable_sort(order.begin(), order.end(),
                                 [](const OptionCost* x, const OptionCost* y) { return x->recompute > y->recompute; });
                for (const OptionCost* o : order) {
                    const std::size_t idx = std::size_t(o - options.data());
                    const std::int32_t n = chosen[(std::size_t(ch) * T + t) * kMaxTypeOptions + idx];
                    queue.insert(queue.end(), std::size_t(n), o->cls);
                }
            }
            std::size_t next = 0;
            for (std::int64_t l = a; l < b; ++l)
                if (pt.typeOf[std::size_t(l)] == t)
                    layerClass[std::size_t(l)] = next < queue.size() ? queue[next++] : options.front().cls;
        }
    }
}

}  // namespace plan
}  // namespace tessera::core
