// Whole searches with every dimension `auto`: space size, wall time and candidates
// per second on one and two threads. Reports; never fails on speed.
#include <QtTest>

#include "io/scenarioio.h"
#include "search/search.h"

using namespace tessera::core;

namespace {

std::string allAuto(const std::string& head, int gbs, const std::string& schedules = "auto") {
    return head +
           "search:\n  space: {tp: auto, pp: auto, vpp: auto, cp: auto, ep: auto, micro_batch_size: auto, sequence_parallel: auto,\n"
           "          optimizer_parallel: auto, grad_shard: auto, grad_shard_as_params: auto, recompute: auto, pp_schedule: " +
           schedules + "}\n  constraints: {global_batch_size: " + std::to_string(gbs) + "}\n";
}

// One schedule list, one thread: the cost per priced candidate.
void perSchedule(const char* name, const std::string& head, const char* schedules, int gbs = 0) {
    if (gbs == 0) gbs = head.find("mixtral") != std::string::npos ? 1024 : 15360;
    const SearchSetup setup = searchSetup(parseScenario(allAuto(head, gbs, schedules), "bench", Format::Yaml, ""));
    SearchOptions options;
    options.threads = 1;
    const SearchResult r = runSearch(setup, options);
    qInfo("%s, pp_schedule %s: %llu priced (%llu fit) in %.3f s = %.1f us per priced candidate", name, schedules,
          (unsigned long long)r.evaluated, (unsigned long long)r.feasible, r.elapsedSeconds,
          r.evaluated ? 1e6 * r.elapsedSeconds / double(r.evaluated) : 0.0);
}

void measure(const char* name, const std::string& yaml) {
    const SearchSetup setup = searchSetup(parseScenario(yaml, name, Format::Yaml, ""));
    double perSecond[2] = {0, 0};
    for (int threads : {1, 2}) {
        SearchOptions options;
        options.threads = threads;
        const SearchResult r = runSearch(setup, options);
        perSecond[threads - 1] = double(r.visited) / r.elapsedSeconds;
        qInfo("%s, %d thread(s): %llu candidates (%llu priced, %llu fit) in %.3f s = %.0f candidates/s", name, threads,
              (unsigned long long)r.spaceSize, (unsigned long long)r.evaluated, (unsigned long long)r.feasible,
              r.elapsedSeconds, perSecond[threads - 1]);
    }
    qInfo("%s: two threads run %.2fx one", name, perSecond[1] / perSecond[0]);
}

}  // namespace

class BenchSearch : public QObject {
    Q_OBJECT
private slots:
    void gpt3On1024A100() {
        measure("GPT-3 175B on 1,024 A100", allAuto("model: gpt3-175b\ncluster: {device: a100-80gb, devices: 1024}\n"
                                                    "exec: {seq_length: 2048}\n", 1536));
    }
    void deepseekV3On2048H800() {
        measure("DeepSeek-V3 on 2,048 H800", allAuto("model: deepseek-v3\ncluster: {device: h800, devices: 2048}\n"
                                                     "exec: {seq_length: 4096}\n", 15360));
    }
    // The schedule axis one value at a time: what each schedule costs per priced
    // candidate (zb-h2 and dualpipe are simulated, the others are closed forms).
    void deepseekV3PerSchedule() {
        const std::string head = "model: deepseek-v3\ncluster: {device: h800, devices: 2048}\nexec: {seq_length: 4096}\n";
        for (const char* schedule : {"[1f1b]", "[interleaved]", "[gpipe]", "[zb-h1]", "[zb-h2]", "[dualpipe]"}) perSchedule("DeepSeek-V3 on 2,048 H800", head, schedule);
        // seqpipe over 4 sequence parts (closed form).
        perSchedule("DeepSeek-V3 on 2,048 H800, seq_split 4", "model: deepseek-v3\ncluster: {device: h800, devices: 2048}\n"
                    "exec: {seq_length: 4096, seq_split: 4}\n", "[seqpipe]");

        // Interleaved with and without the expert all-to-all overlapped (Megatron's
        // combined 1F1B, priced by simulating the pairs), where 32 layers split evenly.
        const std::string mixtral = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 256}\nexec: {seq_length: 4096";
        perSchedule("Mixtral 8x7B on 256 H100", mixtral + "}\n", "[interleaved]");
        // seqsmartvpp (Seq1F1B-I) over 4 parts (closed form), where 4 divides pp.
        perSchedule("Mixtral 8x7B on 256 H100, seq_split 4", mixtral + ", seq_split: 4}\n", "[seqsmartvpp]");
        perSchedule("Mixtral 8x7B on 256 H100, all-to-all overlapped", mixtral + ", overlap_moe_expert_parallel_comm: true}\n",
                    "[interleaved]");
        // The V schedules, where 80 layers split over 2·pp chunks: zbv, and V-Half / V-Min,
        // whose orders are built once per (pp, micro-batches) and kept (controllable.cpp).
        const std::string llama = "model: llama3-70b\ncluster: {device: h100-sxm, devices: 512}\nexec: {seq_length: 8192}\n";
        for (const char* schedule : {"[zbv]", "[v-half]", "[v-min]"}) perSchedule("Llama-3 70B on 512 H100", llama, schedule, 1024);
    }
    void llama405bOn16384H100() {
        measure("Llama-3 405B on 16,384 H100", allAuto("model: llama3-405b\ncluster: {device: h100-sxm, devices: 16384}\n"
                                                       "exec: {seq_length: 8192}\n", 2048));
    }
};

QTEST_APPLESS_MAIN(BenchSearch)
#include "bench_search.moc"
