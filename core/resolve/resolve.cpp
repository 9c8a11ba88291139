#include "resolve/resolve.h"

#include <algorithm>

#include "resolve/resolver.h"

namespace tessera::core {

std::string Filled::text() const {
    switch (origin) {
    case Origin::Family: return why;
    case Origin::Default: return why.empty() ? "default" : "default: " + why;
    case Origin::Derived: return "derived: " + why;
    case Origin::Imported: return "imported: " + why;
    }
    return why;
}

bool isMoe(const ModelSpec& m) { return m.num_experts.value_or(1) > 1; }
bool isMla(const ModelSpec& m) { return m.kv_lora_rank.has_value(); }

ResolvedScenario resolve(const Scenario& stated) {
    detail::Resolver r(stated);
    r.resolveModel();
    r.resolveCluster();
    // Exec rules read the model and cluster; with either broken they would only
    // repeat the same problem in other words.
    if (r.diagnostics().empty()) r.resolveExecRun();
    if (r.diagnostics().empty()) r.resolveExecStrategy();
    r.diagnostics().raiseIfAny();
    return std::move(r.out());
}

ResolvedScenario resolveRun(const Scenario& stated) {
    detail::Resolver r(stated);
    r.resolveModel();
    r.resolveCluster();
    if (r.diagnostics().empty()) r.resolveExecRun();
    r.diagnostics().raiseIfAny();
    return std::move(r.out());
}

ModelSpec resolveModel(const ModelSpec& stated, std::map<std::string, Filled>* filled) {
    Scenario s;
    s.model = stated;
    detail::Resolver r(s);
    r.resolveModel();
    r.diagnostics().raiseIfAny();
    if (filled) *filled = r.out().filled;
    return r.model();
}

ModelSpec resolveModel(const Scenario& holding) {
    detail::Resolver r(holding);
    r.resolveModel();
    r.diagnostics().raiseIfAny();
    return r.model();
}

namespace detail {

void Resolver::resolveCluster() {
    ClusterSpec& c = cluster();
    if (!c.device) {
        refuse("cluster.device", "required: a device preset or a mapping with name, memory, peak_tflops, "
                                 "hbm_bandwidth_gbps, intra_node_bandwidth_gbps, inter_node_bandwidth_gbps, devices_per_node");
        return;
    }
    DeviceSpec& d = *c.device;
    if (!d.name && c.device_preset) fill("cluster.device.name", d.name, *c.device_preset, Origin::Derived, "preset id");
    auto need = [&](const char* key, bool present) {
        if (!present) refuse(std::string("cluster.device.") + key, "required: the device states no " + std::string(key));
    };
    need("name", d.name.has_value());
    need("memory", d.memory.has_value());
    need("peak_tflops", d.peak_tflops && !d.peak_tflops->empty());
    need("hbm_bandwidth_gbps", d.hbm_bandwidth_gbps.has_value());
    need("intra_node_bandwidth_gbps", d.intra_node_bandwidth_gbps.has_value());
    need("inter_node_bandwidth_gbps", d.inter_node_bandwidth_gbps.has_value());
    need("devices_per_node", d.devices_per_node.has_value());
    // The field table takes any positive figure, but a peak of 1e-300 TFLOP/s makes a
    // step take infinitely long and the estimate's bubble fraction inf/inf = NaN
    // (tests/data/fuzz/guardrails/device-peak-1e-300.yaml). From 1e-6 (1 MFLOP/s,
    // 1 KB/s) every time the cost model computes stays finite.
    auto slowest = [&](const std::string& key, double value) {
        if (value < 1e-6) refuse("cluster.device." + key, "at least 1e-06 is modelled, got " + numberText(value));
    };
    if (d.peak_tflops)
        for (const auto& [dtype, peak] : *d.peak_tflops) slowest("peak_tflops." + dtype, peak);
    if (d.hbm_bandwidth_gbps) slowest("hbm_bandwidth_gbps", *d.hbm_bandwidth_gbps);
    if (d.intra_node_bandwidth_gbps) slowest("intra_node_bandwidth_gbps", *d.intra_node_bandwidth_gbps);
    if (d.inter_node_bandwidth_gbps) slowest("inter_node_bandwidth_gbps", *d.inter_node_bandwidth_gbps);
    if (c.rank_order) {
        std::vector<std::string> sorted = *c.rank_order, all(std::begin(kRankDimensions), std::end(kRankDimensions));
        std::sort(sorted.begin(), sorted.end());
        std::sort(all.begin(), all.end());
        if (sorted != all)
            refuse("cluster.rank_order", "must name each of tp, cp, ep, dp and pp once, innermost first");
    } else {
        fill("cluster.rank_order", c.rank_order,
             std::vector<std::string>(std::begin(kRankDimensions), std::end(kRankDimensions)), Origin::Default,
             "Megatron-LM's order, tensor parallelism innermost");
    }
    // A calibration is a fit on one device's runs: another device's figures are not it.
    if (const auto& cal = scenarioCalibration(); cal && cal->device && d.name && *cal->device != *d.name)
        refuse("cluster.calibration", "was fitted on " + *cal->device + " runs, and this scenario's device is " + *d.name +
                                          "; calibrate on this device's runs, or remove it");
    // The devices' speed spread has one owner: the scenario, or the calibration that fitted it.
    const auto& cal = scenarioCalibration();
    if (cal && cal->rank_speed_spread && c.rank_speed_spread)
        refuse("cluster.rank_speed_spread", "the calibration (cluster.calibration) fitted it as " +
                                                numberText(*cal->rank_speed_spread) + "; state it in one place");
    else if (cal && cal->rank_speed_spread)
        fill("cluster.rank_speed_spread", c.rank_speed_spread, *cal->rank_speed_spread, Origin::Derived,
             "the calibration's fit");
    else if (!c.rank_speed_spread)
        fill("cluster.rank_speed_spread", c.rank_speed_spread, 0.0, Origin::Default,
             "every device as fast as the rest, as measured.md's DGX Cloud BF16 runs (8 to 2,304 H100) bear out: fitted, "
             "0.13 %; state your fleet's, or calibrate");
    if (!d.devices_per_node) return;
    const std::int64_t perNode = *d.devices_per_node;
    // The topology: NVLink domains of whole nodes or whole parts of one, leaf groups of
    // whole domains, and an oversubscribed spine only above a stated leaf group.
    if (c.nvlink_domain) {
        if (*c.nvlink_domain % perNode != 0 && perNode % *c.nvlink_domain != 0)
            refuse("cluster.nvlink_domain", "an NVLink domain holds whole nodes or divides one: devices_per_node is " +
                                                std::to_string(perNode) + ", got " + std::to_string(*c.nvlink_domain));
    } else {
        fill("cluster.nvlink_domain", c.nvlink_domain, perNode, Origin::Derived, "devices_per_node");
    }
    if (c.leaf_devices && c.nvlink_domain && *c.leaf_devices % *c.nvlink_domain != 0)
        refuse("cluster.leaf_devices", "a leaf group holds whole NVLink domains of " + std::to_string(*c.nvlink_domain) +
                                           " devices, got " + std::to_string(*c.leaf_devices));
    if (c.oversubscription && *c.oversubscription > 1 && !c.leaf_devices)
        refuse("cluster.oversubscription", "the spine is above the leaf groups: state leaf_devices, the devices under one, "
                                           "or the oversubscription applies to no path");
    if (!c.oversubscription)
        fill("cluster.oversubscription", c.oversubscription, 1.0, Origin::Default,
             "a non-blocking fat tree, as DGX SuperPODs are built");
    if (!c.nics_per_device)
        fill("cluster.nics_per_device", c.nics_per_device, 1.0, Origin::Default,
             "one NIC per device, as DGX H100 nodes and GB200 NVL72 trays are built");
    if (c.devices && c.nodes) {
        if (*c.devices != *c.nodes * perNode)
            refuse("cluster.devices", "states " + std::to_string(*c.devices) + " devices but " + std::to_string(*c.nodes) +
                                          " nodes of " + std::to_string(perNode) + " hold " + std::to_string(*c.nodes * perNode) +
                                          "; state one of devices and nodes");
    } else if (c.nodes) {
        fill("cluster.devices", c.devices, *c.nodes * perNode, Origin::Derived, "nodes · devices_per_node");
    } else if (c.devices) {
        if (*c.devices > perNode && *c.devices % perNode != 0)
            refuse("cluster.devices", std::to_string(*c.devices) + " devices do not fill whole nodes of " +
                                          std::to_string(perNode) + " (devices_per_node)");
        fill("cluster.nodes", c.nodes, (*c.devices + perNode - 1) / perNode, Origin::Derived, "devices / devices_per_node");
    } else {
        refuse("cluster", "required: devices (the total) or nodes");
    }
}

}  // namespace detail
}  // namespace tessera::core
