// HyperParallel's search configuration files mean what they mean there: the six
// published example files (tests/data/seed, unedited) read, search and find
// strategies; every key the reader takes is priced as the seed prices it (byte
// widths, MindFormers' FFN width, the seed's selective rule, FSDP degrees, a
// placement, sequence parallelism where tp > 1), and every key it cannot carry is
// refused by name at its place in the file.
#include <QtTest>

#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/priced.h"
#include "resolve/resolve.h"
#include "search/search.h"
#include "search/strategy.h"

using namespace tessera::core;

namespace {

const std::string kSeed = TESSERA_TEST_DATA "/seed/";

// A small seed file each test adds its keys to (block style, so positions are lines).
std::string seedFile(const std::string& modelExtra = "", const std::string& rest = "") {
    return "model:\n  name: llama-test\n  num_hidden_layers: 8\n  hidden_size: 1024\n  intermediate_size: 4096\n"
           "  num_attention_heads: 8\n  num_key_value_heads: 8\n  vocab_size: 32000\n  max_position_embeddings: 2048\n" +
           modelExtra +
           "cluster:\n  num_nodes: 1\n  cards_per_node: 8\n  device_type: A2\n"
           "constraint:\n  global_batch_size: 16\n" +
           (rest.find("parallelism:") == std::string::npos ? "parallelism:\n  tp: [1, 2]\n  pp: [1, 2]\n" : "") + rest;
}

Scenario read(const std::string& text) { return parseScenario(text, "t.yaml", Format::Yaml, ""); }

std::string refusal(const std::string& text) {
    try {
        searchSetup(read(text));
    } catch (const SpecError& e) {
        return e.what();
    }
    return {};
}

std::uint64_t refusedFor(const SearchResult& r, const std::string& why) {
    const auto it = r.refused.find(why);
    return it == r.refused.end() ? 0 : it->second;
}

}  // namespace

class TestSeedSearch : public QObject {
    Q_OBJECT
private slots:
    // The published files, as HyperParallel's repositories hold them (tests/data/seed/README.md).
    void publishedFilesSearch_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("limitGiB");
        for (const char* f : {"upstream/dense_llm_search.yaml", "upstream/moe_llm_search.yaml",
                              "upstream/qwen3_72b_128devices_search.yaml", "upstream/deepseek_v3_671b_512devices_search.yaml",
                              "fork/dense_llm_search.yaml", "fork/moe_llm_search.yaml"}) {
            const QString file = QString::fromLatin1(f);
            QTest::newRow(f) << file << (file.contains("qwen") ? 54.0 : file.contains("deepseek") ? 58.0 : 60.0);
        }
    }
    void publishedFilesSearch() {
        QFETCH(QString, file);
        QFETCH(double, limitGiB);
        const SearchSetup setup = searchSetup(loadScenario(kSeed + file.toStdString()));
        QCOMPARE(setup.space.memoryLimit, Bytes(limitGiB * double(GiB)));
        QCOMPARE(setup.space.selectiveRule, std::string("hyperparallel"));
        QVERIFY(!setup.space.dpFilter.empty() && !setup.space.mbnFilter.empty());
        QVERIFY(setup.space.mbs.size() > 4);  // the seed searches the micro-batch size
        const SearchResult r = runSearch(setup);
        std::uint64_t refused = 0;
        for (const auto& [why, n] : r.refused) refused += n;
        QCOMPARE(refused + r.feasible, r.visited);
        QVERIFY2(r.feasible > 0, qPrintable(file));
        for (const Candidate& c : r.top) {
            QVERIFY(c.peakMemory <= setup.space.memoryLimit);
            QVERIFY(std::find(setup.space.dpFilter.begin(), setup.space.dpFilter.end(), c.dp) != setup.space.dpFilter.end());
            QVERIFY(std::find(setup.space.mbnFilter.begin(), setup.space.mbnFilter.end(), c.mbn) != setup.space.mbnFilter.end());
            QCOMPARE(c.mbs * c.mbn * c.dp, setup.space.globalBatch);
            QCOMPARE(c.sp, c.tp > 1);  // sequence parallelism wherever there is a tp group
        }
        // The best, as a scenario, prices the same through resolve and estimate.
        const Estimate e = estimate(resolve(scenarioFor(setup.base.scenario, r.top.front())));
        QCOMPARE(e.peakMemory, r.top.front().peakMemory);
    }

    // What each file states beyond the common keys.
    void denseFileKeepsItsFsdpDegreesAndTrainingLength() {
        const Scenario s = loadScenario(kSeed + "upstream/dense_llm_search.yaml");
        QCOMPARE(*s.exec.seq_length, std::int64_t{8192});  // max_position_embeddings is the dataset length
        QCOMPARE(*s.exec.compute_dtype, std::string("bf16"));
        QCOMPARE(*s.exec.param_bytes, std::int64_t{4});     // param_init_type unstated: the seed's fp32
        QCOMPARE(*s.exec.softmax_bytes, std::int64_t{4});   // softmax_compute_type unstated: fp32
        QCOMPARE(*s.exec.flash_attention, true);
        QCOMPARE(*s.cluster.device->intra_node_bandwidth_gbps, 200.0);
        QCOMPARE(*s.cluster.device->inter_node_bandwidth_gbps, 100.0);
        const SearchSetup setup = searchSetup(s);
        QCOMPARE(setup.space.dpShard, (std::vector<std::int64_t>{1, 2}));
        const SearchResult r = runSearch(setup);
        bool sharded = false, whole = false;
        for (const Candidate& c : r.top) (c.fsdp ? sharded : whole) = true;
        QVERIFY(sharded && whole);
        for (const Candidate& c : r.top) QCOMPARE(c.optimizerShard, c.fsdp ? std::int64_t{2} : std::int64_t{0});
        // The development fork's copy states no bandwidths: the device's own figures.
        const Scenario fork = loadScenario(kSeed + "fork/dense_llm_search.yaml");
        QVERIFY(!fork.cluster.device || !fork.cluster.device->inter_node_bandwidth_gbps ||
                *fork.cluster.device->inter_node_bandwidth_gbps != 100.0);
    }

    void moeFileReadsTheSeedsSpellings() {
        const Scenario s = loadScenario(kSeed + "upstream/moe_llm_search.yaml");
        QCOMPARE(*s.model.moe_intermediate_size, std::int64_t{14336});  // moe_inter_dim
        QCOMPARE(*s.exec.seq_length, std::int64_t{32768});
        QCOMPARE(*s.exec.etp, std::int64_t{1});
    }

    void qwenFileShardsTheOptimizerOverEight() {
        const SearchSetup setup = searchSetup(loadScenario(kSeed + "upstream/qwen3_72b_128devices_search.yaml"));
        QCOMPARE(setup.space.optimizerShard, std::vector<std::int64_t>{8});
        const SearchResult r = runSearch(setup);
        for (const Candidate& c : r.top) QVERIFY(c.optimizerSharded && c.optimizerShard == 8);
        // dp 1, 2, 4 cannot hold a shard of 8 ranks: refused, by reason.
        QVERIFY(refusedFor(r, "optimizer_shard does not divide the data-parallel group") > 0);
    }

    // DeepSeek-V3: the MLA key width the seed defaults, the capacity factor its
    // dropless experts do not use (marked), and an offset for 16 stages carried to
    // the pp 16 candidates, the pp 4 and 8 ones refused.
    void deepseekFileCarriesItsOffset() {
        const Scenario s = loadScenario(kSeed + "upstream/deepseek_v3_671b_512devices_search.yaml");
        QCOMPARE(*s.model.qk_nope_head_dim, std::int64_t{128});
        QCOMPARE(s.assumed.at("model.qk_nope_head_dim"), std::string("the seed's default: v_head_dim"));
        const std::vector<NotPriced> unpriced = notPriced(s.exec);
        QVERIFY(std::any_of(unpriced.begin(), unpriced.end(), [](const NotPriced& n) { return n.key == "exec.capacity_factor"; }));
        const SearchSetup setup = searchSetup(s);
        const SearchResult r = runSearch(setup);
        QVERIFY(r.feasible > 0);
        for (const Candidate& c : r.top) QCOMPARE(c.pp, std::int64_t{16});
        QVERIFY(refusedFor(r, "the stated offset or pp_partition does not place the layers on this pp and vpp") > 0);
        const ResolvedScenario best = resolve(scenarioFor(setup.base.scenario, r.top.front()));
        QCOMPARE(best.partition.layers.front().front(), std::int64_t{4});  // 61 + 1 MTP = 15 × 4 + 2
        QCOMPARE(best.partition.layers.front().back(), std::int64_t{2});
    }

    // MindFormers' FFN width (LlamaFeedForward) when intermediate_size is not stated:
    // Meta's Llama 3 8B params.json (dim 4096, multiple_of 1024, ffn_dim_multiplier 1.3)
    // gives the published 14336. A stated width is used as it is.
    void ffnWidthFromMultipleOf() {
        std::string text = seedFile("  multiple_of: 1024\n  ffn_dim_multiplier: 1.3\n");
        text.replace(text.find("  intermediate_size: 4096\n"), 26, "");
        text.replace(text.find("hidden_size: 1024"), 17, "hidden_size: 4096");
        const Scenario s = read(text);
        QCOMPARE(*s.model.intermediate_size, std::int64_t{14336});
        QVERIFY(s.assumed.at("model.intermediate_size").find("MindFormers") != std::string::npos);
        QCOMPARE(*read(seedFile("  multiple_of: 256\n")).model.intermediate_size, std::int64_t{4096});
    }

    void dtypesAreByteWidths() {
        const Scenario s = read(seedFile("  param_init_type: float16\n  compute_dtype: float32\n  softmax_compute_type: bfloat16\n"));
        QCOMPARE(*s.exec.param_bytes, std::int64_t{2});
        QCOMPARE(*s.exec.compute_bytes, std::int64_t{4});
        QCOMPARE(*s.exec.compute_dtype, std::string("fp32"));
        QCOMPARE(*s.exec.softmax_bytes, std::int64_t{2});
        QVERIFY(!s.exec.main_param_bytes);  // fp16 parameters: the run's master copy, not the seed's none
    }

    // `recompute: selective` drops what HyperParallel's rule drops, which under flash
    // attention is more than Megatron's (which keeps everything there).
    void selectiveIsTheSeedsRule() {
        const std::string text = seedFile("", "parallelism:\n  tp: 2\n  pp: 1\n  dp: 4\n  micro_batch_num: 4\nrecompute: selective\n");
        Scenario seed = read(text);
        seed.search.reset();
        seed.exec.micro_batch_size = 1;
        QCOMPARE(*seed.exec.selective_rule, std::string("hyperparallel"));
        Scenario megatron = seed;
        megatron.exec.selective_rule = "megatron";
        const Estimate hp = estimate(resolve(seed)), mg = estimate(resolve(megatron));
        qInfo("selective recompute, peak: %.2f GiB by the seed's rule, %.2f GiB by Megatron's", double(hp.peakMemory) / double(GiB),
              double(mg.peakMemory) / double(GiB));
        QVERIFY2(hp.peakMemory < mg.peakMemory, qPrintable(QString("%1 against %2").arg(hp.peakMemory).arg(mg.peakMemory)));
    }

    // pp_interleave_num > 1 with the seed's 1F1B is its interleaved schedule.
    void interleavedFromOneFOneB() {
        const std::string text = seedFile("", "parallelism:\n  tp: [1, 2]\n  pp: 2\npp_config:\n  pp_interleave_num: 2\n"
                                              "  pipeline_schedule: 1F1B\n");
        const Scenario s = read(text);
        QCOMPARE(*s.exec.pp_schedule, std::string("interleaved"));
        QCOMPARE(*s.exec.vpp, std::int64_t{2});
        QVERIFY(runSearch(searchSetup(s)).feasible > 0);
    }

    void fsdpAndPlacementForms() {
        Scenario s = read(seedFile("", "parallelism:\n  tp: 2\n  fsdp: 4\n"));
        QCOMPARE(*s.exec.grad_shard_as_params, true);
        QCOMPARE(*s.exec.optimizer_shard, std::int64_t{4});
        s = read(seedFile("", "parallelism:\n  tp: 2\n  fsdp: 1\n"));
        QCOMPARE(*s.exec.optimizer_parallel, false);
        s = read(seedFile("", "parallelism:\n  tp: 2\npp_config:\n  pp_degree: 2\n  stage_partition: [5, 3]\n"));
        QCOMPARE(*s.exec.pp, std::int64_t{2});
        QVERIFY(s.exec.pp_partition.has_value());
        const SearchResult r = runSearch(searchSetup(read(seedFile("", "parallelism:\n  tp: [1, 2]\npp_config:\n  pp_degree: 2\n"
                                                                       "  stage_partition: [5, 3]\n"))));
        QVERIFY(r.feasible > 0);
        // Unpinned and unfixed by optimizer_weight_shard_size, the shard degree is searched.
        const SearchSetup open = searchSetup(read(seedFile()));
        QVERIFY(open.space.dpShard.size() > 1);
    }

    // What the reader cannot carry is refused by name, at its place in the file.
    // recompute: per_layer (the seed's _search_runner per_layer): the search plans each
    // candidate's layers, and the best states its ranges.
    void perLayerIsPlanned() {
        const Scenario s = read(seedFile("", "recompute: per_layer\n"));
        QVERIFY(s.search);
        const SearchAxis* axis = nullptr;
        for (const SearchAxis& a : s.search->space)
            if (a.key == "recompute") axis = &a;
        QVERIFY(axis && axis->values && axis->values->size() == 1);
        QCOMPARE(std::get<std::string>(axis->values->front()), std::string("per_layer"));
        const SearchResult result = runSearch(searchSetup(s));
        QVERIFY(!result.top.empty());
        QVERIFY(result.top.front().plan);
        QVERIFY(strategyExec(result.top.front()).recompute);
    }

    void refusedByName_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << QString::fromStdString(text) << QString::fromLatin1(expected);
        };
        row("per_layer beside modes", seedFile("", "recompute: per_layer\nestimator:\n  recompute_modes: [off, full]\n"),
            "t.yaml:21:20: estimator.recompute_modes: narrows the modes");
        row("visual_seq_len", seedFile("  visual_seq_len: 1024\n"), "t.yaml:10:19: exec.visual_seq_len: is stated, but the model has no vision tower");
        row("moe_enabled without experts", seedFile("  moe_enabled: true\n"), "t.yaml:10:16: model.moe_enabled: true, but num_experts");
        row("fsdp beside the shard size", seedFile("  optimizer_weight_shard_size: 2\n", "parallelism:\n  fsdp: [1, 2]\n"),
            "parallelism.fsdp: model.optimizer_weight_shard_size states the shard too");
        row("etp list", seedFile("", "parallelism:\n  etp: [1, 2]\n"), "parallelism.etp: the seed never searches etp");
        row("unknown parallelism key", seedFile("", "parallelism:\n  zp: 2\n"), "parallelism.zp");
        row("unknown cluster key", seedFile("", "").replace(seedFile().find("  device_type: A2\n"), 17, "  device_type: A2\n  rails: 8\n"),
            "cluster.rails");
        row("layer_offset_range", seedFile("", "pp_config:\n  layer_offset_range: [0, 2]\n"), "pp_config.layer_offset_range: a search");
        row("layer_recompute_layers", seedFile("", "pp_config:\n  layer_recompute_layers: [1, 2]\n"), "pp_config.layer_recompute_layers:");
        row("stage_partition_mode", seedFile("", "pp_config:\n  stage_partition_mode: balanced\n"), "pp_config.stage_partition_mode: expected uniform");
        row("pipeline_schedule", seedFile("", "pp_config:\n  pipeline_schedule: seqpipe\n"), "pp_config.pipeline_schedule: expected one of");
        // Tessera's own names are not the seed's: its file is read as the seed would.
        row("pipeline_schedule dualpipe", seedFile("", "pp_config:\n  pipeline_schedule: dualpipe\n"),
            "pp_config.pipeline_schedule: expected one of 1f1b, interleaved or gpipe, got \"dualpipe\"");
        row("pp_degree against pp", seedFile("", "parallelism:\n  pp: [1, 2]\npp_config:\n  pp_degree: 4\n"), "pp_config.pp_degree: parallelism.pp states it");
        row("unknown pp_config key", seedFile("", "pp_config:\n  seq_chunks: 2\n"), "pp_config.seq_chunks");
        row("ratios_file", seedFile("", "estimator:\n  ratios_file: r.csv\n"), "estimator.ratios_file: regression ratios");
        row("profiling", seedFile("", "estimator:\n  enable_profiling_calibration: true\n"), "estimator.enable_profiling_calibration:");
        row("estimator type", seedFile("", "estimator:\n  type: profiled\n"), "estimator.type: expected symbolic");
        row("recompute_modes without auto", seedFile("", "recompute: full\nestimator:\n  recompute_modes: [none, full]\n"),
            "estimator.recompute_modes: narrows the modes");
        row("two recomputes", seedFile("", "recompute: full\nestimator:\n  recompute_strategy: none\n"), "estimator.recompute_strategy: says what recompute says");
        row("bad dtype", seedFile("  param_init_type: int8\n"), "t.yaml:10:20: model.param_init_type: expected a dtype");
        row("two capacity factors", seedFile("  capacity_factor: 1.5\n  cap_fact: 2.0\n"), "model.cap_fact: states what capacity_factor states");
    }
    void refusedByName() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString what = QString::fromStdString(refusal(text.toStdString()));
        QVERIFY2(what.contains(expected), qPrintable("expected \"" + expected + "\" in:\n" + what));
    }

    // recompute: auto searches one option for every layer, among estimator.recompute_modes if given.
    void recomputeModesNarrowAuto() {
        const SearchSetup setup = searchSetup(read(seedFile("", "recompute: auto\nestimator:\n  recompute_modes: [none, full]\n")));
        QCOMPARE(setup.space.recompute, (std::vector<RecomputeMode>{RecomputeMode::None, RecomputeMode::Full}));
    }
};

QTEST_APPLESS_MAIN(TestSeedSearch)
#include "tst_seedsearch.moc"
