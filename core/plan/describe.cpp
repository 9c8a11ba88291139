#include "plan/describe.h"

#include <nlohmann/json.hpp>

#include "model/layercost.h"
#include "model/stagebody.h"

namespace tessera::core {

namespace {

double bytesPerElement(const CostInput& in, double shard, bool table) {
    return detail::elementBytes(in.run, in.strategy, shard, table).total();
}

}  // namespace

LayerDescriptions describeLayers(const CostInput& in, OpMask keep, const std::string& modelName) {
    LayerDescriptions out;
    out.model = modelName;
    const ModelShape& m = in.model;
    CostInput work = in;
    work.strategy.classes = {RecomputeClass{}};
    work.strategy.layerClass.clear();
    // The balancer sees one head on the first stage: the whole vision tower in it, however
    // exec.vision_partition splits it.
    work.strategy.visionBlocks.clear();
    const GroupLinks links = groupLinks(work.strategy, in.device);
    const double R = double(in.strategy.optimizerShard), Re = double(in.strategy.expertShard);

    // The head and the tail as the first and the last stage carry them.
    detail::StageContext ctx(work);
    const detail::StageBody first = detail::stageBody(ctx, 0);
    const detail::StageBody last = in.strategy.pp > 1 ? detail::stageBody(ctx, in.strategy.pp - 1) : first;
    // A frozen vision tower's weights are held alone, at the weight width (stagebody.cpp).
    const double trainedHead = first.head.params - first.frozenParams;
    LayerDescription head{"HEAD", "HEAD", "", 1,
                          trainedHead * bytesPerElement(in, R, true) + first.frozenParams * detail::elementBytes(in.run, in.strategy, R, false).parameter +
                              first.head.kept,
                          first.head.forward, first.head.backward};
    LayerDescription tail{"TAIL", "TAIL", "", 1, last.tail.params * bytesPerElement(in, R, true) + last.tail.kept,
                          last.tail.forward, last.tail.backward};
    out.layers.push_back(head);

    std::vector<std::int64_t> count(m.kinds.size(), 0);
    for (std::uint8_t k : m.layerKind) ++count[k];
    for (std::size_t k = 0; k < m.kinds.size(); ++k) {
        LayerDescription body;
        body.type = "BODY";
        body.name = "BODY_" + std::to_string(k + 1);
        body.kind = m.kinds[k].name();
        body.count = count[k];
        double working = 0;
        for (std::size_t o = 0; o < kPlanOptions; ++o) {
            const LayerCost lc = layerCost(work, m.kinds[k], planOptionClass(PlanOption(o), keep), links);
            if (o == 0) {
                const double dense = lc.paramsDevice - lc.expertParamsDevice;
                body.once = dense * bytesPerElement(in, R, false) + lc.expertParamsDevice * bytesPerElement(in, Re, false);
                body.forward = lc.forward;
                body.backward = lc.backwardInput + lc.backwardWeight;
            }
            body.options[o] = {lc.kept, lc.backwardInput + lc.backwardWeight + lc.recompute, false};
            working = std::max(working, lc.keptNone - lc.kept + lc.gradBuffer + lc.gatheredInput);
        }
        body.once += working;
        out.layers.push_back(body);
    }
    out.layers.push_back(tail);

    // Withdraw SLCT, COMM and BOTH where every body has a no-worse option.
    for (std::size_t o : {std::size_t(PlanOption::Slct), std::size_t(PlanOption::Comm), std::size_t(PlanOption::Both)}) {
        bool everywhere = true;
        for (const LayerDescription& d : out.layers) {
            if (d.type != "BODY") continue;
            bool beaten = false;
            for (std::size_t other = 0; other < kPlanOptions && !beaten; ++other) {
                if (other == o || d.options[other].withdrawn) continue;
                const OptionDescription &a = d.options[other], &b = d.options[o];
                const bool noWorse = a.perMicroBatch <= b.perMicroBatch && a.backward <= b.backward;
                const bool tie = a.perMicroBatch == b.perMicroBatch && a.backward == b.backward;
                beaten = noWorse && (!tie || other < o);
            }
            everywhere = everywhere && beaten;
        }
        if (everywhere)
            for (LayerDescription& d : out.layers) d.options[o].withdrawn = d.type == "BODY";
    }
    return out;
}

std::string ppbJson(const LayerDescriptions& d) {
    static constexpr const char* kMemoryKey[kPlanOptions] = {"memory_activation", "memory_select_rec", "memory_select_comm",
                                                             "memory_both_comm_select", "memory_recompute"};
    static constexpr const char* kTimeKey[kPlanOptions] = {"backward_time", "select_rec_time", "select_comm_time",
                                                           "both_comm_select_time", "recompute_time"};
    auto mb = [](double bytes) { return std::int64_t(bytes / double(1 << 20)); };
    double unit = 0;  // the first body's forward
    for (const LayerDescription& l : d.layers)
        if (l.type == "BODY" && l.forward > 0) { unit = l.forward; break; }
    if (unit <= 0) unit = 1;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const LayerDescription& l : d.layers) {
        nlohmann::ordered_json j;
        j["model_name"] = d.model;
        j["type"] = l.type;
        j["memory_parameter"] = mb(l.once);
        if (l.type == "BODY") {
            for (std::size_t o = 0; o < kPlanOptions; ++o)
                if (!l.options[o].withdrawn) j[kMemoryKey[o]] = mb(l.options[o].perMicroBatch);
        }  // a head's or tail's activations at one micro-batch are in its memory_parameter, as the seed's
        j["time"] = l.forward / unit;
        j["forward_time"] = l.forward / unit;
        if (l.type == "BODY") {
            for (std::size_t o = 0; o < kPlanOptions; ++o)
                if (!l.options[o].withdrawn) j[kTimeKey[o]] = l.options[o].backward / unit;
        } else {
            j["backward_time"] = l.backward / unit;
        }
        j["nb_layer"] = l.count;
        j["name"] = l.name;
        list.push_back(std::move(j));
    }
    nlohmann::ordered_json root;
    root["layers_description"] = std::move(list);
    return root.dump(4) + "\n";
}

}  // namespace tessera::core
