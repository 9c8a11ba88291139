#include "model/stagelayers.h"

#include "model/stagebody.h"

namespace tessera::core {

std::vector<std::vector<PlacedLayer>> layersByStage(const CostInput& in) {
    const Strategy& st = in.strategy;
    const ModelShape& m = in.model;
    const detail::StageContext ctx(in);
    std::vector<std::vector<PlacedLayer>> out(std::size_t(st.pp));
    for (std::int64_t s = 0; s < st.pp; ++s) {
        // Offload takes the stage's first layers, of its first chunk (stagebody.cpp).
        const std::int64_t offload = st.activationOffload.empty() ? in.run.activationOffload : st.activationOffload[std::size_t(s)];
        for (std::int64_t c = 0; c < st.vpp; ++c) {
            const std::int64_t first = ctx.chunkStart(c, s);
            std::int64_t n = ctx.chunkLayers(c, s);
            if (ctx.holdsModelEnd(c, s) && !st.mtpOnStages) n += m.mtpLayers;  // MTP after the body
            for (std::int64_t l = first; l < first + n && l < std::int64_t(m.layerKind.size()); ++l) {
                PlacedLayer p;
                p.layer = l, p.chunk = int(c), p.kind = m.layerKind[std::size_t(l)];
                p.cls = st.layerClass.empty() ? 0 : st.layerClass[std::size_t(l)];
                p.offloaded = c == 0 && in.device.hostLinkBytesPerSecond > 0 && l - first < offload &&
                              l - first < ctx.chunkLayers(0, s);
                out[std::size_t(s)].push_back(p);
            }
        }
    }
    if (st.schedule == Schedule::DualPipe) {  // a device runs its stage, then (chunk 1) the mirrored one
        std::vector<std::vector<PlacedLayer>> devices(out.size());
        for (std::size_t r = 0; r < out.size(); ++r) {
            devices[r] = out[r];
            for (PlacedLayer l : out[out.size() - 1 - r]) {
                l.chunk = 1;
                devices[r].push_back(l);
            }
        }
        return devices;
    }
    return out;
}

StagedLayers stagedLayers(const ResolvedScenario& r) {
    const CostInput in = costInput(r);
    const ExecSpec& e = r.scenario.exec;
    const OpMask rule = selectiveRuleMask(*e.selective_rule, *e.flash_attention, *e.sequence_parallel);
    StagedLayers out;
    out.stages = layersByStage(in);
    for (const RecomputeClass& c : in.strategy.classes) out.classNames.push_back(recomputeClassText(c, rule));
    for (const LayerKind& k : in.model.kinds) out.kindNames.push_back(k.name());
    return out;
}

std::string recomputeClassText(const RecomputeClass& c, OpMask ruleKeep) {
    if (c.mode == RecomputeClass::Full) return "full";
    if (c.mode == RecomputeClass::None || (c.keep & kOpAll) == kOpAll) return "none";
    if (c.keep == ruleKeep) return "selective";
    const OpMask dropped = static_cast<OpMask>(~c.keep & kOpAll);
    std::string out = "recompute";
    for (const auto& [name, bits] : kRecomputeOpBits)
        if (dropped & bits) out += std::string(out == "recompute" ? " " : ", ") + std::string(name);
    return out;
}

}  // namespace tessera::core
