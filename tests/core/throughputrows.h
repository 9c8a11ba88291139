#pragma once
// Measured end-to-end throughput (reference/published.md §4), as scenarios: the
// rows tst_time checks and tools/fit_efficiency fits the matmul efficiency on.
#include <string>
#include <vector>

namespace tessera::testing {

struct ThroughputRow {
    const char* name;  // the row, with its source
    const char* device;
    int hidden, layers, heads, tp, pp, gpus, batch;
    int vocab, seq;
    bool fullRecompute;  // as trained (and as the FLOP count of the table counts)
    bool commOverlap;    // §4.2 "communication overlap on": Megatron-LM's --tp-comm-overlap among them
    double measuredTflops;
};

// published.md §4.1: Narayanan et al. 2021 (arXiv 2104.04473) Table 1, Selene A100 80 GB,
// GPT, vocab 51,200, sequence 2048, full recompute, FLOPs counted with recompute:
// 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)).
// published.md §4.2: Megatron-LM README (2024) H100 weak scaling, vocab 131,072, sequence
// 4096; model FLOPs 72·B·s·l·h²·(1 + s/(6h) + V/(12lh)). The 1.7B row's extra column is read
// as TP 1, PP 1, DP 48.
inline std::vector<ThroughputRow> throughputRows() {
    return {
        {"Narayanan 2021 1.7B", "a100-80gb", 2304, 24, 24, 1, 1, 32, 512, 51200, 2048, true, false, 137},
        {"Narayanan 2021 3.6B", "a100-80gb", 3072, 30, 32, 2, 1, 64, 512, 51200, 2048, true, false, 138},
        {"Narayanan 2021 7.5B", "a100-80gb", 4096, 36, 32, 4, 1, 128, 512, 51200, 2048, true, false, 142},
        {"Narayanan 2021 18B", "a100-80gb", 6144, 40, 48, 8, 1, 256, 1024, 51200, 2048, true, false, 135},
        {"Narayanan 2021 39B", "a100-80gb", 8192, 48, 64, 8, 2, 512, 1536, 51200, 2048, true, false, 138},
        {"Narayanan 2021 76B", "a100-80gb", 10240, 60, 80, 8, 4, 1024, 1792, 51200, 2048, true, false, 140},
        {"Narayanan 2021 145B", "a100-80gb", 12288, 80, 96, 8, 8, 1536, 2304, 51200, 2048, true, false, 148},
        {"Narayanan 2021 310B", "a100-80gb", 16384, 96, 128, 8, 16, 1920, 2160, 51200, 2048, true, false, 155},
        {"Narayanan 2021 530B", "a100-80gb", 20480, 105, 128, 8, 35, 2520, 2520, 51200, 2048, true, false, 163},
        {"Narayanan 2021 1T", "a100-80gb", 25600, 128, 160, 8, 64, 3072, 3072, 51200, 2048, true, false, 163},
        {"Megatron-LM H100 1.7B", "h100-sxm", 2048, 24, 16, 1, 1, 48, 192, 131072, 4096, false, true, 408.8},
        {"Megatron-LM H100 7.1B", "h100-sxm", 4096, 30, 32, 2, 1, 96, 192, 131072, 4096, false, true, 465.9},
        {"Megatron-LM H100 16B", "h100-sxm", 6144, 32, 48, 4, 1, 192, 192, 131072, 4096, false, true, 489.1},
        {"Megatron-LM H100 32B", "h100-sxm", 7168, 48, 56, 8, 1, 384, 192, 131072, 4096, false, true, 459.6},
        {"Megatron-LM H100 70B", "h100-sxm", 8192, 84, 64, 8, 2, 768, 384, 131072, 4096, false, true, 419.7},
        {"Megatron-LM H100 119B", "h100-sxm", 10240, 92, 80, 8, 4, 1536, 768, 131072, 4096, false, true, 420.5},
        {"Megatron-LM H100 177B", "h100-sxm", 12288, 96, 96, 8, 6, 2304, 1152, 131072, 4096, false, true, 432.8},
        {"Megatron-LM H100 314B", "h100-sxm", 16384, 96, 128, 8, 8, 3072, 1536, 131072, 4096, false, true, 474.4},
        {"Megatron-LM H100 462B", "h100-sxm", 18432, 112, 144, 8, 16, 6144, 3072, 131072, 4096, false, true, 459.9},
    };
}

// Held out of the fit, to check that it generalises: published.md §4.1's note on
// Narayanan et al. 2021 Table 2, GPT-3 175B (h 12288, 96 layers, 96 heads), micro-batch
// 1, batch 1536, model-parallel size 96 (TP 8 within a node x PP 12), on 384 / 768 /
// 1536 A100s, counted like the table above.
inline std::vector<ThroughputRow> heldOutRows() {
    return {
        {"Narayanan 2021 Table 2, 175B on 384", "a100-80gb", 12288, 96, 96, 8, 12, 384, 1536, 51200, 2048, true, false, 153},
        {"Narayanan 2021 Table 2, 175B on 768", "a100-80gb", 12288, 96, 96, 8, 12, 768, 1536, 51200, 2048, true, false, 149},
        {"Narayanan 2021 Table 2, 175B on 1536", "a100-80gb", 12288, 96, 96, 8, 12, 1536, 1536, 51200, 2048, true, false, 141},
    };
}

inline std::string throughputScenario(const ThroughputRow& r) {
    const int dp = r.gpus / (r.tp * r.pp);
    const std::string n = std::to_string(r.seq);
    return "model: {arch: gpt, hidden_size: " + std::to_string(r.hidden) + ", num_hidden_layers: " + std::to_string(r.layers) +
           ", num_attention_heads: " + std::to_string(r.heads) + ", vocab_size: " + std::to_string(r.vocab) +
           ", max_position_embeddings: " + n + "}\ncluster: {device: " + r.device + ", devices: " + std::to_string(r.gpus) +
           "}\nexec: {tp: " + std::to_string(r.tp) + ", pp: " + std::to_string(r.pp) + ", dp: " + std::to_string(dp) +
           ", sequence_parallel: " + (r.tp > 1 && !r.fullRecompute ? "true" : "false") +
           ", tp_comm_overlap: " + (r.commOverlap && r.tp > 1 ? "true" : "false") +
           ", flash_attention: " + (r.fullRecompute ? "false" : "true") + ", seq_length: " + n +
           ", micro_batch_size: 1, global_batch_size: " + std::to_string(r.batch) +
           ", optimizer_parallel: " + (r.fullRecompute ? "false" : "true") +
           ", recompute: [{first: 0, option: " + (r.fullRecompute ? "full" : "selective") + "}]}\n";
}

// FLOPs per step as the row's table counts them.
inline double tableFlopsPerStep(const ThroughputRow& r) {
    const double B = r.batch, s = r.seq, l = r.layers, h = r.hidden, V = r.vocab;
    if (r.fullRecompute) return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

}  // namespace tessera::testing
