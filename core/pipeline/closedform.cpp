#include "pipeline/closedform.h"

#include <algorithm>
#include <utility>

namespace tessera::core {

namespace {
constexpr std::pair<Schedule, std::string_view> kNames[] = {
    {Schedule::OneFOneB, "1f1b"}, {Schedule::Interleaved, "interleaved"}, {Schedule::GPipe, "gpipe"},
    {Schedule::ZbH1, "zb-h1"},    {Schedule::Zbv, "zbv"},                 {Schedule::DualPipe, "dualpipe"},
    {Schedule::DualPipeV, "dualpipev"}, {Schedule::SeqPipe, "seqpipe"},   {Schedule::VHalf, "v-half"},
    {Schedule::VMin, "v-min"},         {Schedule::ZbH2, "zb-h2"},           {Schedule::SeqSmartVpp, "seqsmartvpp"}};
}  // namespace

Schedule scheduleNamed(std::string_view name) {
    for (const auto& [schedule, n] : kNames)
        if (n == name) return schedule;
    return Schedule::OneFOneB;
}

const char* scheduleName(Schedule schedule) {
    for (const auto& [s, n] : kNames)
        if (s == schedule) return n.data();
    return "1f1b";
}

std::int64_t inFlightChunkForwards(const PipelineShape& sh, int stage, int chunk) {
    const std::int64_t p = sh.stages, v = sh.chunks, m = sh.microBatches;
    switch (sh.schedule) {
    case Schedule::GPipe: return m;
    case Schedule::OneFOneB:
    case Schedule::ZbH1: return std::max<std::int64_t>(1, std::min<std::int64_t>(p - stage, m));
    case Schedule::ZbH2: return std::max<std::int64_t>(1, std::min<std::int64_t>(2 * (p - stage) - 1, m));
    case Schedule::Interleaved:
    case Schedule::SeqSmartVpp: {
        // Units: micro-batches, or under seqsmartvpp their n sequence parts, with n - 1
        // more warm-up forwards (Seq1F1B-I: the last stage's first backward is a
        // micro-batch's last part). m = p runs every forward first (Megatron-LM).
        const std::int64_t n = sh.schedule == Schedule::SeqSmartVpp ? sh.seqSplit : 1, units = m * n;
        const std::int64_t held = m == p ? units * v : std::min(units * v, 2 * (p - stage - 1) + (v - 1) * p + n);
        // Forwards k = 0 .. held-1 cycle through the chunks in blocks of p.
        const std::int64_t cycles = held / (p * v), rest = held % (p * v);
        return cycles * p + std::clamp<std::int64_t>(rest - chunk * p, 0, p);
    }
    // V-Half and V-Min are priced from their simulation, never from this form: ZB-V's
    // counts bound theirs (p + 2 and about 2p/3 chunk-forwards against 2p, tst_controllable).
    case Schedule::VHalf:
    case Schedule::VMin:
    case Schedule::Zbv: return chunk == 0 ? 2 * p - 1 - stage : stage + 1;
    case Schedule::DualPipe: return chunk == 0 ? p - stage : stage + 1;
    case Schedule::DualPipeV: return chunk == 0 ? 2 * p - stage : stage + 1;
    case Schedule::SeqPipe: {
        const std::int64_t n = sh.seqSplit;
        return std::max<std::int64_t>(1, std::min<std::int64_t>(p - stage + n - 1, m * n));
    }
    }
    return 1;
}

std::int64_t waitingWeightGrads(const PipelineShape& sh, int stage) {
    const std::int64_t p = sh.stages, m = sh.microBatches;
    if (sh.schedule == Schedule::ZbH2) return std::min<std::int64_t>(2 * stage, m - std::min<std::int64_t>(2 * (p - stage) - 1, m));
    if (sh.schedule != Schedule::ZbH1) return 0;
    return std::min<std::int64_t>(stage, m - std::min<std::int64_t>(p - stage, m));
}

double pipelineMakespan(const PipelineShape& sh, double sumX, double maxX, double sumF, double maxF, double sumB,
                        double maxB) {
    const double m = sh.microBatches;
    if (sh.stages == 1) return m * maxX;
    switch (sh.schedule) {
    case Schedule::OneFOneB: return sumX + (m - 1) * maxX;
    case Schedule::Interleaved: return m * maxX + (sumX - maxX) / sh.chunks;
    case Schedule::GPipe: return sumF + (m - 1) * maxF + sumB + (m - 1) * maxB;
    case Schedule::SeqPipe: {
        const double n = sh.seqSplit;
        return (sumX + (m * n - 1) * maxX) / n;
    }
    case Schedule::SeqSmartVpp: return m * maxX + (sumX - maxX) / (sh.chunks * double(sh.seqSplit));
    default: return sumX + (m - 1) * maxX;  // (the split schedules have their own forms below)
    }
}

double pipelineMakespanZbH1(const PipelineShape& sh, const ZbH1Stages& st) {
    const double m = sh.microBatches, hops = sh.stages - 1;
    if (sh.microBatches >= sh.stages) return m * st.maxX + hops * st.maxY;
    // Fewer micro-batches than stages: only m - 1 weight gradients are there to fill the drain.
    return m * st.maxX + hops * st.maxFB - (m - 1) * st.minFill;
}

double pairSeconds(double f, double fComm, double bFull, double bComm, double stretch) {
    const double fc = std::min(fComm, f), bc = std::min(bComm, bFull);
    const double fCompute = (f - fc) * stretch, bCompute = (bFull - bc) * stretch;
    return fCompute + bCompute + std::max(0.0, fc - bCompute) + std::max(0.0, bc - fCompute);
}

double pipelineMakespanDual(const PipelineShape& sh, const SplitStage* devices, int count) {
    const double m = sh.microBatches;
    const bool v = sh.schedule == Schedule::DualPipeV;
    const double R = v ? sh.stages : sh.stages / 2;
    const double n = v ? 2 * m : m;  // chunk-forwards per device
    const double pairs = n - 2 * R - 1;
    double busy = 0, bubble = 0;
    for (int i = 0; i < count; ++i) {
        const SplitStage& d = devices[i];
        const double full = d.b + d.w, fb = pairSeconds(d.f, d.fComm, full, d.bComm);
        busy = std::max(busy, n * (d.f + full) - pairs * (d.f + full - fb));
        bubble = std::max(bubble, fb + d.f - 2 * d.w);
    }
    return busy + (R - 1) * std::max(0.0, bubble);
}

}  // namespace tessera::core
