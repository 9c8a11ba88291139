#pragma once
// What the planner's tests share (tst_plan, tst_planlayout): scenarios with overrides,
// the small families the brute force walks, every composition of a count, and the
// fastest of priced plans within a budget.
#include <QStringList>
#include <QtTest>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "resolve/resolve.h"

namespace tessera::testing {

using namespace tessera::core;

// A built-in scenario with --set overrides.
inline Scenario presetWith(const std::string& id, const QStringList& sets) {
    Value doc = scenarioDocument(id, nullptr);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return scenarioFromValue(doc, id, "");
}

inline ResolvedScenario resolvedOf(const std::string& yaml) {
    return resolve(scenarioFromValue(parseDocument(yaml, "row.yaml", Format::Yaml), "row.yaml", ""));
}

// Every composition of n into k positive parts.
inline void compositions(std::int64_t n, std::int64_t k, std::vector<std::int64_t>& part,
                  const std::function<void(const std::vector<std::int64_t>&)>& f) {
    if (k == 1) {
        part.push_back(n);
        f(part);
        part.pop_back();
        return;
    }
    for (std::int64_t first = 1; first <= n - (k - 1); ++first) {
        part.push_back(first);
        compositions(n - first, k - 1, part, f);
        part.pop_back();
    }
}

struct Priced {
    Bytes peak;
    double step;
};

// Budgets: below the lightest plan, at it, at quantiles of the plans' peaks, evenly
// between the lightest and the heaviest.
inline std::vector<Bytes> budgetsOf(const std::vector<Priced>& all) {
    std::vector<Bytes> peaks;
    for (const Priced& p : all) peaks.push_back(p.peak);
    std::sort(peaks.begin(), peaks.end());
    std::vector<Bytes> budgets{peaks.front() - 1};
    for (double q : {0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0}) budgets.push_back(peaks[std::size_t(q * double(peaks.size() - 1))]);
    for (std::size_t i = 1; i < 6; ++i) budgets.push_back(peaks.front() + (peaks.back() - peaks.front()) * Bytes(i) / 6);
    return budgets;
}

// The fastest of the plans within a budget (infinity: none fits).
inline double fastestWithin(const std::vector<Priced>& all, Bytes budget) {
    double best = std::numeric_limits<double>::infinity();
    for (const Priced& p : all)
        if (p.peak <= budget) best = std::min(best, p.step);
    return best;
}

// The brute-force families: a dense one (Llama-3 8B's layer, cut to a few layers) and a
// mixed one (DeepSeek-V3's MLA and MoE layers behind one dense layer, and an MTP layer).
inline const char* kDenseFamily = "{preset: llama3-8b, num_hidden_layers: %1}";
inline const char* kMixedFamily = "{preset: deepseek-v3, num_hidden_layers: %1, first_k_dense_replace: 1, num_experts: 16, "
                           "hidden_size: 1024, num_attention_heads: 16, num_key_value_heads: 16, intermediate_size: 4096, "
                           "moe_intermediate_size: 512, q_lora_rank: 256, kv_lora_rank: 128}";

inline std::string scenario(const std::string& model, std::int64_t pp, std::int64_t vpp, std::int64_t mbn,
                     const std::string& schedule, std::int64_t dp, std::int64_t layers) {
    std::string partition = "[";  // stated only so the scenario resolves; the planner replaces it
    for (std::int64_t s = 0; s < pp * vpp; ++s) partition += (s ? ", " : "") + std::to_string(s < layers % (pp * vpp) ? layers / (pp * vpp) + 1 : layers / (pp * vpp));
    partition += "]";
    if (vpp > 1) {  // per chunk, then stage: the even split, the extra layers on the last chunks
        const std::int64_t chunks = pp * vpp;
        partition = "[";
        for (std::int64_t c = 0; c < vpp; ++c) {
            partition += c ? ", [" : "[";
            for (std::int64_t st = 0; st < pp; ++st)
                partition += (st ? ", " : "") + std::to_string(layers / chunks + (c * pp + st >= chunks - layers % chunks ? 1 : 0));
            partition += "]";
        }
        partition += "]";
    }
    // An H100-like device two to a node, so the stages sit on nodes of their own.
    const std::string device = "{name: Two-GPU node, memory: 80 GiB, peak_tflops: {bf16: 989, fp32: 67}, "
                               "hbm_bandwidth_gbps: 3350, intra_node_bandwidth_gbps: 450, "
                               "inter_node_bandwidth_gbps: 50, devices_per_node: 2}";
    return "model: " + model + "\ncluster: {device: " + device + ", devices: " + std::to_string(dp * pp * 2) +
           "}\nexec: {tp: 2, sequence_parallel: true, pp: " + std::to_string(pp) + ", vpp: " + std::to_string(vpp) +
           ", pp_schedule: " + schedule + ", seq_length: 4096, micro_batch_size: 1, global_batch_size: " +
           std::to_string(mbn * dp) + ", optimizer_parallel: " + (dp > 1 ? "true" : "false") +
           ", pp_partition: " + partition + "}\n";
}

// DeepSeek-V3's 1F1B preset under the interleaved schedule, vpp 2, its layers split evenly.
inline QStringList interleavedDeepSeek() {
    std::string even;  // 62 layers over 32 chunks: one on the first two, two on the rest
    for (int c = 0; c < 2; ++c) {
        even += c ? ",[" : "[[";
        for (int s = 0; s < 16; ++s) even += std::string(s ? "," : "") + (c == 0 && s < 2 ? "1" : "2");
        even += c ? "]]" : "]";
    }
    return {"exec.pp_schedule=interleaved", "exec.vpp=2", "exec.micro_batch_num=128", "exec.global_batch_size=16384",
            QString::fromStdString("exec.pp_partition=" + even)};
}

}  // namespace tessera::testing
