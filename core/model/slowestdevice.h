#pragma once
// The slowest-device effect of a synchronous step. Devices of one model are not equally
// fast: clocks settle where each part's power and temperature let them, so the same
// kernels take a different time on each (Sinha et al., "Not All GPUs Are Created Equal",
// SC'22, measured this across the GPUs of several production clusters). A synchronous
// step waits at every collective and every pipeline hand-off for the group's last
// device, so the run as a whole goes at the pace of its slowest device.
//
// Tessera takes each device's compute time as the mean times 1 + spread·Z, Z a standard
// normal drawn once per device (cluster.rank_speed_spread is the coefficient of
// variation), and prices the step at the expected slowest of the run's N devices:
//     factor = 1 + spread · E[max of N standard normals].
// E[max] grows as sqrt(2 ln N): 0.56 at 2 devices, 1.54 at 10, 3.24 at 1,000, 4.42 at
// 32,768, so a spread that costs nothing on one node costs several per cent on
// thousands. Communication is not scaled: the wait shows up as longer compute.
#include <cstdint>

namespace tessera::core {

// E[max of n independent standard normals] (0 for n = 1), by quadrature of
// ∫_0^∞ (1 - Φ(x)^n) dx - ∫_{-∞}^0 Φ(x)^n dx; exact to 1e-9, memoised per n.
double expectedMaxOfNormals(std::int64_t n);

// What the slowest of `devices` devices takes over the mean device: 1 with no spread.
inline double slowestDeviceFactor(double spread, std::int64_t devices) {
    return spread > 0 && devices > 1 ? 1 + spread * expectedMaxOfNormals(devices) : 1.0;
}

// Of `seconds` of kernels run at the slowest device's pace (`factor` above), the part
// that is waiting for it: what the mean device would not have taken.
inline double slowestDeviceWait(double seconds, double factor) { return seconds * (1 - 1 / factor); }

}  // namespace tessera::core
