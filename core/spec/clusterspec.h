#pragma once
// ClusterSpec: the devices a run has and how they are linked. Bandwidths are GB/s
// (10^9 bytes per second) in one direction per device; peaks are dense (no
// structured sparsity) TFLOP/s (10^12). A dtype the device cannot run on its
// matrix units is absent, never 0.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/field.h"
#include "units/units.h"

namespace tessera::core {

// mxfp8: FP8 with 1x32-block microscaling on the tensor cores (Blackwell); a device
// without it does not list it, and exec.fp8_recipe: mxfp8 is refused there.
inline constexpr std::string_view kPeakDtypes[] = {"fp32", "bf16", "fp16", "fp8", "mxfp8"};
// How parallel dimensions map onto consecutive ranks, innermost first. Megatron-LM's
// default order (tp-cp-ep-dp-pp) keeps tensor parallelism inside a node.
inline constexpr std::string_view kRankDimensions[] = {"tp", "cp", "ep", "dp", "pp"};

struct DeviceSpec {
    std::optional<std::string> name;
    std::optional<Bytes> memory;
    std::optional<std::map<std::string, double>> peak_tflops;
    std::optional<double> hbm_bandwidth_gbps;
    std::optional<double> intra_node_bandwidth_gbps;
    std::optional<double> inter_node_bandwidth_gbps;
    std::optional<std::int64_t> devices_per_node;
    std::optional<double> host_link_gbps, host_memory_gbps;
    std::optional<std::int64_t> sms;

    bool operator==(const DeviceSpec&) const = default;
};

template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, DeviceSpec>
void visit(Spec& d, V& v) {
    // clang-format off: one row per field
    const RealRange positive{0, 1e12, true, false};
    v.text({"name", "Device name"}, d.name);
    v.memory({"memory", "Device memory, such as \"80 GiB\"", "bytes"}, d.memory, 1);
    v.numberMap({"peak_tflops", "Dense peak per data type", "TFLOP/s"}, d.peak_tflops, kPeakDtypes, positive);
    v.real({"hbm_bandwidth_gbps", "Device memory bandwidth", "GB/s"}, d.hbm_bandwidth_gbps, positive);
    v.real({"intra_node_bandwidth_gbps", "Bandwidth to a device in the same node, one direction", "GB/s"}, d.intra_node_bandwidth_gbps, positive);
    v.real({"inter_node_bandwidth_gbps", "Bandwidth of one of its network interfaces to another node, one direction "
            "(cluster.nics_per_device says how many a device has; unstated, one)", "GB/s"}, d.inter_node_bandwidth_gbps, positive);
    v.integer({"devices_per_node", "Devices that share the fast intra-node links"}, d.devices_per_node, IntRange{1, 1 << 20});
    v.real({"host_link_gbps", "Bandwidth between the device and its host's memory, one direction (PCIe, NVLink-C2C): "
            "what activation and optimizer offload copy over", "GB/s"}, d.host_link_gbps, positive);
    v.real({"host_memory_gbps", "Host memory bandwidth one device's share of the host CPUs can use: what an offloaded "
            "optimizer step runs at", "GB/s"}, d.host_memory_gbps, positive);
    v.integer({"sms", "Streaming multiprocessors (NVIDIA; compute units on AMD): communication kernels that run on "
               "them (DeepEP's) take a share while they overlap compute"}, d.sms, IntRange{1, 1 << 20});
    // clang-format on
}

struct ClusterSpec {
    std::optional<std::string> device_preset;  // the id the file named, if any
    std::optional<DeviceSpec> device;
    std::optional<std::int64_t> devices;
    std::optional<std::int64_t> nodes;
    std::optional<std::vector<std::string>> rank_order;  // a permutation of kRankDimensions
    std::optional<std::string> calibration;  // a calibration file (tessera calibrate), as stated
    // The topology the collectives read: the NVLink domain, and the fabric above the leaf
    // switches (devices under one leaf group, and the spine's oversubscription).
    std::optional<std::int64_t> nvlink_domain, leaf_devices;
    std::optional<double> oversubscription;
    std::optional<double> nics_per_device;  // NICs a device has to itself (0.5: one shared by two)
    // Coefficient of variation of the devices' compute speed (model/slowestdevice.h).
    std::optional<double> rank_speed_spread;

    bool operator==(const ClusterSpec&) const = default;
};

// The cluster's own fields. `device` is not in the table: it is a device preset's id
// or a DeviceSpec mapping (whose table is above), which the scenario reader expands
// before it reads the rest of the section with this one.
inline constexpr Field kClusterDevice{"device", "The device: a preset id (tessera presets) or a mapping of its figures"};
template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, ClusterSpec>
void visit(Spec& c, V& v) {
    // clang-format off: one row per field
    const IntRange count{1, 1 << 24};
    v.integer({"devices", "Devices in the cluster, in all"}, c.devices, count);
    v.integer({"nodes", "Nodes in the cluster; devices = nodes · devices_per_node"}, c.nodes, count);
    v.textList({"rank_order", "Parallel dimensions from the innermost rank out (tp, cp, ep, dp, pp)"}, c.rank_order,
               kRankDimensions);
    v.integer({"nvlink_domain", "Devices that reach each other over NVLink (or the vendor's scale-up fabric): a DGX "
               "node's 8, a GB200 NVL72 rack's 72, an NVLink Switch System's 256; unstated, devices_per_node"},
              c.nvlink_domain, count);
    v.integer({"leaf_devices", "Devices under one leaf (rail) group of the network: a collective whose ranks span more "
               "crosses the spine; unstated, every device (no spine in any path)"}, c.leaf_devices, count);
    v.real({"oversubscription", "How far the spine is oversubscribed: traffic crossing it gets the NIC rate divided by "
            "this (1: a non-blocking fat tree, as DGX SuperPODs are built); unstated, 1"}, c.oversubscription,
           RealRange{1, 1e3});
    v.real({"nics_per_device", "Network interfaces per device, each at the device's inter_node_bandwidth_gbps: a DGX "
            "H100's eight NICs for eight GPUs, 1; four shared by eight devices, 0.5; two per device, 2; unstated, 1"},
           c.nics_per_device, RealRange{0, 64, true, false});
    v.real({"rank_speed_spread", "How much the devices' speeds differ: the coefficient of variation of one device's "
            "compute time across the cluster's devices (0.02: 2 %), as a per-GPU GEMM burn-in measures it. A synchronous "
            "step goes at its slowest device's pace, which grows with the device count; unstated, 0 (every device as fast "
            "as the rest), or the calibration's fit"}, c.rank_speed_spread, RealRange{0, 0.25});
    v.text({"calibration", "A calibration file written by tessera calibrate (relative to the scenario's folder): its "
            "fitted efficiencies replace the built-in ones"}, c.calibration);
    // clang-format on
}

}  // namespace tessera::core
