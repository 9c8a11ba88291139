#pragma once
// CalibrationSpec: the efficiencies `tessera calibrate` fits on a team's own measured
// runs (core/calibrate), read back by a scenario that names the file under
// cluster.calibration. Each figure replaces one of the cost model's built-in defaults
// (model/coefficients.h, model/efficiency.cpp); a figure the file leaves out keeps
// its default (absent is not zero). The file also says what it was fitted on, so a
// scenario on another device refuses it rather than price with another device's fit.
// It plays the part of the seed's ratios file (reference/hyperparallel.md §5.8), but
// in the model's own physical terms, so the times stay in seconds.
#include <cstdint>
#include <optional>
#include <string>

#include "spec/field.h"

namespace tessera::core {

struct CalibrationSpec {
    // What the fit chooses (the parameters, in the order `--fit` names them).
    std::optional<double> matmul_ceiling, matmul_knee_gflop;
    std::optional<double> hbm_efficiency;
    std::optional<double> intra_link_efficiency, inter_link_efficiency;
    std::optional<double> tp_overlap, tp_overlap_userbuffers, param_gather_overlap;
    std::optional<double> rank_speed_spread;
    // What it was fitted on.
    std::optional<std::string> device;          // the device name every run used
    std::optional<std::int64_t> runs;           // how many measured runs
    std::optional<double> leave_one_out_percent;  // mean |error| of each run predicted by a fit on the others
    std::optional<std::string> fitted_on;       // the runs file, for people

    bool operator==(const CalibrationSpec&) const = default;
};

template <class Spec, class V>
    requires std::same_as<std::remove_const_t<Spec>, CalibrationSpec>
void visit(Spec& c, V& v) {
    // clang-format off: one row per field
    const RealRange share{0, 1, false, false}, efficiency{0, 1, true, false};
    v.real({"matmul_ceiling", "The matmul efficiency curve's ceiling: the share of the dense peak a large GEMM reaches "
            "end to end (built in: 0.615 Hopper, 0.640 Ampere; model/efficiency.cpp)"}, c.matmul_ceiling, efficiency);
    v.real({"matmul_knee_gflop", "The GEMM size at which the curve reaches half its ceiling (built in: 1.75 Hopper, 0 "
            "Ampere)", "GFLOP"}, c.matmul_knee_gflop, RealRange{0, 1e6});
    v.real({"hbm_efficiency", "Share of the HBM bandwidth element-wise kernels reach (built in: 0.8)"}, c.hbm_efficiency,
           efficiency);
    v.real({"intra_link_efficiency", "Share of the intra-node (NVLink) bandwidth collectives reach (built in: 0.8)"},
           c.intra_link_efficiency, efficiency);
    v.real({"inter_link_efficiency", "Share of the inter-node (NIC) bandwidth collectives reach (built in: 0.9)"},
           c.inter_link_efficiency, efficiency);
    v.real({"tp_overlap", "Share of tensor-parallel communication hidden without userbuffers (built in: 0.5)"},
           c.tp_overlap, share);
    v.real({"tp_overlap_userbuffers", "Share hidden with tp_comm_overlap's userbuffers (built in: 0.875)"},
           c.tp_overlap_userbuffers, share);
    v.real({"param_gather_overlap", "Share of the distributed optimizer's parameter all-gather hidden under the next "
            "forward with overlap_param_gather (built in: 0.9)"}, c.param_gather_overlap, share);
    v.real({"rank_speed_spread", "Coefficient of variation of the devices' compute speed, which the slowest device's "
            "wait grows with (built in: 0; runs at different device counts tell it apart)"}, c.rank_speed_spread,
           RealRange{0, 0.25});
    v.text({"device", "The device every fitted run used; a scenario on another device refuses this calibration"}, c.device);
    v.integer({"runs", "How many measured runs the fit used"}, c.runs, IntRange{1, 1 << 20});
    v.real({"leave_one_out_percent", "Mean |error| of each run's step predicted by a fit on the other runs", "%"},
           c.leave_one_out_percent, RealRange{0, 1e6});
    v.text({"fitted_on", "The runs file the fit read"}, c.fitted_on);
    // clang-format on
}

}  // namespace tessera::core
