// HyperParallel train.yaml: the example scenarios survive a write and a read, a
// user's train.yaml keeps everything but its strategy, the batch check, the
// aliases of the seed's parser, and refusals that point into the train.yaml.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "doc/emit.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "trainyaml/trainyaml.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

const std::string kData = TESSERA_TEST_DATA;

// A train.yaml's scenario with the device (which a train.yaml never names) added.
ResolvedScenario resolveTrain(const Value& train, const std::string& device, std::int64_t devices,
                              const std::string& baseDir = "") {
    Diagnostics d;
    Value doc = scenarioFromTrainYaml(train, baseDir, d);
    d.raiseIfAny();
    Value* cluster = doc.find("cluster");
    cluster->set("device", Value::string(device));
    if (!cluster->find("devices")) cluster->set("devices", Value::integer(devices));
    return resolve(scenarioFromValue(doc, "train.yaml", baseDir));
}

Value execOf(const std::string& yaml) {
    Diagnostics d;
    const std::string text = yaml.starts_with("model:") ? yaml : "model: {name: llama}\n" + yaml;  // a row may state its own
    const Value doc = scenarioFromTrainYaml(parseDocument(text, "train.yaml", Format::Yaml), "", d);
    d.raiseIfAny();
    return *doc.find("exec");
}

std::string keysOf(const Value& map) {
    std::string out;
    for (const Value::Entry& e : map.entries()) out += (out.empty() ? "" : " ") + e.key;
    return out;
}

std::string text(const Value* v) { return v ? toYaml(*v) : "(absent)\n"; }

}  // namespace

class TestTrainYaml : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("preset");
        // The example scenarios, each citing its source in its own header.
        for (const char* id : {"llama3-70b-h100x64", "gpt3-175b-a100x1024", "mixtral-8x7b-h100x32", "llama3-8b-a100x8",
                               "deepseek-v3-h800x2048-1f1b"})
            QTest::newRow(id) << QString(id);
    }
    void roundTrip() {
        QFETCH(QString, preset);
        Scenario stated = presetScenario(preset.toStdString());
        if (*resolve(stated).scenario.exec.optimizer_parallel) {
            // AutoModels shards only with FSDP: a ZeRO-1 strategy is refused by name, and
            // its FSDP counterpart (what the trainer can run) round-trips.
            QVERIFY_THROWS_EXCEPTION(SpecError, trainYaml(resolve(stated), nullptr));
            stated.exec.grad_shard_as_params = true;
        }
        if (*resolve(stated).scenario.exec.moe_enable_deepep) {
            // No DeepEP dispatcher in the trainer: refused by name, and the plain
            // all-to-all counterpart round-trips.
            QVERIFY_THROWS_EXCEPTION(SpecError, trainYaml(resolve(stated), nullptr));
            stated.exec.moe_enable_deepep = false;
        }
        const ResolvedScenario r = resolve(stated);
        const std::string written = trainYaml(r, nullptr);
        const Value train = parseDocument(written, "train.yaml", Format::Yaml);
        QVERIFY2(!train.find("context"), "the trainer refuses a context section");
        const ResolvedScenario back =
            resolveTrain(train, *r.scenario.cluster.device_preset, *r.scenario.cluster.devices);
        const ExecSpec &a = r.scenario.exec, &b = back.scenario.exec;
        QCOMPARE(b.dp, a.dp);
        QCOMPARE(b.tp, a.tp);
        QCOMPARE(b.pp, a.pp);
        QCOMPARE(b.vpp, a.vpp);
        QCOMPARE(b.cp, a.cp);
        QCOMPARE(b.ep, a.ep);
        QCOMPARE(expertTp(b), expertTp(a));
        QCOMPARE(b.micro_batch_size, a.micro_batch_size);
        QCOMPARE(b.micro_batch_num, a.micro_batch_num);
        QCOMPARE(b.global_batch_size, a.global_batch_size);
        QCOMPARE(b.sequence_parallel, a.sequence_parallel);
        QCOMPARE(b.optimizer_parallel, a.optimizer_parallel);
        QCOMPARE(b.optimizer_shard, a.optimizer_shard);
        QCOMPARE(b.grad_shard_as_params, a.grad_shard_as_params);
        QCOMPARE(b.pp_schedule, a.pp_schedule);
        QCOMPARE(b.seq_length, a.seq_length);
        QCOMPARE(b.cp_algo, a.cp_algo);
        QVERIFY(checkpointPlan(back) == checkpointPlan(r));
        QCOMPARE(back.partition.layers, r.partition.layers);  // DeepSeek-V3's uneven stages too
        QVERIFY(back.scenario.model == r.scenario.model);
    }

    void userFileKeepsItsSections() {
        const std::string path = kData + "/train/llama3-8b-automodels.yaml";
        const Value original = loadDocument(path);
        ResolvedScenario r = resolveTrain(original, "h100-sxm", 0, kData + "/train");
        QCOMPARE(*r.scenario.exec.dp, std::int64_t{4});  // 16 devices / (tp 2 · pp 2)
        QCOMPARE(*r.scenario.exec.optimizer_shard, std::int64_t{2});
        // The search chose tp 4: dp 2, and 64 = 2 · 16 · 2.
        r.scenario.exec.tp = 4;
        r.scenario.exec.dp = 2;
        r.scenario.exec.micro_batch_num = 16;
        const std::string written = trainYaml(r, &original);
        const Value out = parseDocument(written, "out.yaml", Format::Yaml);
        // The trainer reads YAML with PyYAML, which takes an exponent without a
        // dot in its mantissa (3e-04) for text: the emitter writes 3.0e-04.
        QVERIFY(written.find("adamw_lr: 3e-04") == std::string::npos);
        QVERIFY(written.find("adamw_lr: 3.0e-04") != std::string::npos);

        QCOMPARE(keysOf(out), std::string("model training accelerator fsdp_config activation_checkpoint dataset optimizer "
                                          "lr_scheduler checkpoint"));
        for (const char* kept : {"model", "optimizer", "lr_scheduler", "checkpoint"})
            QCOMPARE(text(out.find(kept)), text(original.find(kept)));
        // Aliases give way to the AutoModels names in their own places.
        const Value& acc = *out.find("accelerator");
        QCOMPARE(keysOf(acc), std::string("tp_size pp_size cp_size ep_size sequence_parallel loss_parallel "
                                          "pipeline_scheduler context_parallel_algo"));
        QCOMPARE(acc.find("tp_size")->asInt(), std::int64_t{4});
        QCOMPARE(acc.find("pipeline_scheduler")->asString(), std::string("1f1b"));
        QCOMPARE(keysOf(*out.find("training")), std::string("train_iters global_batch_size micro_batch_size backend "
                                                            "max_grad_norm seed"));
        QCOMPARE(keysOf(*out.find("fsdp_config")), std::string("dp_shard_size reshard_after_forward forward_prefetch_depth"));
        QCOMPARE(out.find("activation_checkpoint")->find("mode")->asString(), std::string("selective"));
        const Value& dataset = *out.find("dataset");
        QCOMPARE(keysOf(*dataset.find("data_transform")), std::string("data_type text_keys max_seq_len"));
        QCOMPARE(text(dataset.find("data_config")), text(original.find("dataset")->find("data_config")));
    }

    // A train.yaml without the sections the strategy is written into gets them
    // appended, and what is written before a section is added stays in place: the
    // writer once kept a reference into the accelerator section across appending
    // fsdp_config and wrote loss_parallel through freed memory (fuzz_trainyaml).
    void sectionsItLacksAreAppended() {
        const Value original = parseDocument("model: {name: llama, config_overrides: {hidden_size: 512, num_hidden_layers: 4,\n"
                                             "  num_attention_heads: 8, intermediate_size: 1024, vocab_size: 32000}}\n"
                                             "training: {global_batch_size: 16, micro_batch_size: 1}\n"
                                             "accelerator: {tp_size: 2, loss_parallel: true}\n"
                                             "dataset: {data_transform: {max_seq_len: 2048}}\n",
                                             "train.yaml", Format::Yaml);
        const ResolvedScenario r = resolveTrain(original, "h100-sxm", 8);
        const Value out = parseDocument(trainYaml(r, &original), "out.yaml", Format::Yaml);
        QCOMPARE(keysOf(out), std::string("model training accelerator dataset fsdp_config activation_checkpoint"));
        const Value& acc = *out.find("accelerator");
        QCOMPARE(acc.find("tp_size")->asInt(), std::int64_t{2});
        QVERIFY(acc.find("loss_parallel")->asBool());
        QCOMPARE(out.find("fsdp_config")->find("dp_shard_size")->asInt(), std::int64_t{1});
        QCOMPARE(out.find("dataset")->find("data_transform")->find("max_seq_len")->asInt(), std::int64_t{2048});
    }

    // HyperParallel's FSDP over dp_shard 2 halves the parameters and gradients a device
    // holds, as it does the optimizer states (not ZeRO-1, which leaves them whole).
    void fsdpShardsParametersAndGradients() {
        const Value original = loadDocument(kData + "/train/llama3-8b-automodels.yaml");
        const ResolvedScenario fsdp = resolveTrain(original, "h100-sxm", 0, kData + "/train");
        QVERIFY(*fsdp.scenario.exec.grad_shard_as_params);
        QVERIFY(*fsdp.scenario.exec.reshard_params);
        QVERIFY(!*fsdp.scenario.exec.loss_parallel);
        ResolvedScenario zero1 = fsdp;
        zero1.scenario.exec.grad_shard_as_params = false;
        const Estimate a = estimate(fsdp), b = estimate(zero1);
        const StageMemory &sharded = a.stages.front().memory, &whole = b.stages.front().memory;
        QVERIFY(std::abs(double(sharded.parameters) * 2 - double(whole.parameters)) <= 2);
        QVERIFY(std::abs(double(sharded.gradients) * 2 - double(whole.gradients)) <= 2);
        QCOMPARE(sharded.optimizerStates, whole.optimizerStates);  // sharded over dp_shard either way
    }

    void perLayerPlan() {
        Scenario s = presetScenario("llama3-8b-a100x8");
        s.exec.grad_shard_as_params = true;  // the preset's ZeRO-1 as the FSDP AutoModels runs
        s.exec.recompute = std::vector<RecomputeRange>{{0, 4, "full", {}}, {4, 26, "none", {}}, {30, std::nullopt, "selective", {}}};
        const ResolvedScenario r = resolve(s);
        const Value train = parseDocument(trainYaml(r, nullptr), "train.yaml", Format::Yaml);
        const Value& checkpoint = *train.find("activation_checkpoint");
        QCOMPARE(checkpoint.find("mode")->asString(), std::string("off"));
        QCOMPARE(toYaml(*checkpoint.find("layers")), std::string("0-3: full\n30-31: selective\n"));
        QVERIFY(checkpointPlan(resolveTrain(train, "a100-80gb", 8)) == checkpointPlan(r));
    }

    void modelFromLocalFolder() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("llama3-8b"));
        QVERIFY(QFile::copy(QString::fromStdString(kData + "/hf/llama3-8b.json"), dir.filePath("llama3-8b/config.json")));
        const Value train = parseDocument("model: {pretrained_model_name_or_path: llama3-8b}\n"
                                          "training: {global_batch_size: 16}\ndataset: {data_transform: {max_seq_len: 4096}}\n",
                                          "train.yaml", Format::Yaml);
        const ResolvedScenario r = resolveTrain(train, "a100-80gb", 8, dir.path().toStdString());
        QCOMPARE(*r.scenario.model.num_hidden_layers, std::int64_t{32});
        QCOMPARE(*r.scenario.model.arch, std::string("llama"));
    }

    void batchMismatchIsRefused() {
        ResolvedScenario r = resolve(presetScenario("llama3-8b-a100x8"));
        r.scenario.exec.global_batch_size = 100;  // 1 · 32 · 4 = 128
        try {
            trainYaml(r, nullptr);
            QFAIL("a batch the trainer would derive differently was written");
        } catch (const SpecError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("resolved strategy is inconsistent with the trainer batch derivation") != std::string::npos,
                     what.c_str());
            QVERIFY2(what.find("= 128") != std::string::npos, what.c_str());
        }
    }

    // ZB-H1, DualPipe and V-Half / V-Min are priced but HyperParallel cannot run them: refused by name,
    // not written as the 1f1b run the file would read back as.
    void scheduleWithoutSpellingIsRefused_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("zb-h1") << "zb-h1";
        QTest::newRow("zb-h2") << "zb-h2";
        QTest::newRow("dualpipe") << "dualpipe";
        QTest::newRow("dualpipev") << "dualpipev";
        QTest::newRow("v-half") << "v-half";
        QTest::newRow("v-min") << "v-min";
        QTest::newRow("seqpipe") << "seqpipe";
        QTest::newRow("seqsmartvpp") << "seqsmartvpp";
    }
    void scheduleWithoutSpellingIsRefused() {
        QFETCH(QString, schedule);
        Scenario s = presetScenario("llama3-70b-h100x64");
        s.exec.pp_schedule = schedule.toStdString();
        s.exec.vpp = schedule == "dualpipev" || schedule.startsWith("v-") || schedule == "seqsmartvpp" ? 2 : 1;
        const ResolvedScenario r = resolve(s);
        try {
            trainYaml(r, nullptr);
            QFAIL("a schedule HyperParallel has no name for was written");
        } catch (const SpecError& e) {
            const QString why = schedule.startsWith("seq") ? "exec.pp_schedule: HyperParallel names a " + schedule +
                                                                  " scheduler, but no train.yaml key for the seq_split"
                                                       : "exec.pp_schedule: HyperParallel's accelerator.pipeline_scheduler has no " + schedule;
            QVERIFY2(QString(e.what()).contains(why),
                     e.what());
        }
    }

    // Megatron's combined 1F1B (the expert all-to-all hidden by paired micro-batches)
    // has no HyperParallel scheduler: refused by name, not written without it.
    void pairedExpertOverlapIsRefused() {
        Scenario s = presetScenario("mixtral-8x7b-h100x32");
        s.exec.overlap_moe_expert_parallel_comm = true;
        s.exec.grad_shard_as_params = true;
        if (!s.exec.ep || *s.exec.ep == 1) s.exec.ep = 8;
        s.exec.pp = 1, s.exec.vpp = 1, s.exec.pp_schedule = "1f1b";
        s.exec.dp.reset(), s.exec.micro_batch_num.reset();
        const ResolvedScenario r = resolve(s);
        try {
            trainYaml(r, nullptr);
            QFAIL("a strategy with the paired expert overlap was written");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains("exec.overlap_moe_expert_parallel_comm: HyperParallel's train.yaml has no "
                                                "schedule that pairs"), e.what());
        }
    }

    // The expert TP degree in the train.yaml: the seed's expert_tensor_parallel_degree reads
    // at most 1 as the dense tp, so experts whole beside tp > 1 are refused by name, and a
    // degree it can say is written and read back as the same expert_tp. ep, tp, the stated
    // expert_tp and etp (-1: unstated); `written`: the key's value, "absent", or the refusal.
    void expertTpExport_data() {
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("tp");
        QTest::addColumn<qint64>("expertTp");
        QTest::addColumn<qint64>("etp");
        QTest::addColumn<QString>("written");
        QTest::newRow("expert_tp 1 beside tp 2") << qint64(8) << qint64(2) << qint64(1) << qint64(-1)
            << "exec.expert_tp: HyperParallel's accelerator.expert_tensor_parallel_degree reads 1 or less as the dense tp (2)";
        QTest::newRow("expert_tp 4 beside tp 2") << qint64(2) << qint64(2) << qint64(4) << qint64(-1) << "4";
        QTest::newRow("expert_tp 2 at tp 2") << qint64(4) << qint64(2) << qint64(2) << qint64(-1) << "2";
        QTest::newRow("expert_tp 1 at tp 1") << qint64(8) << qint64(1) << qint64(1) << qint64(-1) << "absent";
        QTest::newRow("etp 0 beside tp 2 (the seed's tp)") << qint64(4) << qint64(2) << qint64(-1) << qint64(0) << "absent";
    }
    void expertTpExport() {
        QFETCH(qint64, ep);
        QFETCH(qint64, tp);
        QFETCH(qint64, expertTp);
        QFETCH(qint64, etp);
        QFETCH(QString, written);
        Scenario s = presetScenario("mixtral-8x7b-h100x32");
        s.exec.ep = ep, s.exec.tp = tp, s.exec.sequence_parallel = tp > 1;
        s.exec.etp.reset(), s.exec.expert_tp.reset();
        if (expertTp > 0) s.exec.expert_tp = expertTp;
        if (etp >= 0) s.exec.etp = etp;
        s.exec.dp.reset(), s.exec.micro_batch_num.reset(), s.exec.optimizer_shard.reset();
        s.exec.grad_shard_as_params = true;
        const ResolvedScenario r = resolve(s);
        std::string yaml;
        try {
            yaml = trainYaml(r, nullptr);
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains(written), e.what());
            return;
        }
        const Value doc = parseDocument(yaml, "train.yaml", Format::Yaml);
        const Value* key = doc.find("accelerator")->find("expert_tensor_parallel_degree");
        QCOMPARE(key ? QString::number(key->asInt()) : QString("absent"), written);
        const ResolvedScenario back = resolveTrain(doc, "h100-sxm", 32);
        QCOMPARE(qint64(*back.scenario.exec.expert_tp), qint64(*r.scenario.exec.expert_tp));
    }

    // zbv is HyperParallel's zero_bubble_v with pp_interleave_num 2, both ways.
    void zeroBubbleVRoundTrips() {
        Scenario s = presetScenario("llama3-70b-h100x64");
        s.exec.pp_schedule = "zbv";
        s.exec.vpp = 2;
        s.exec.grad_shard_as_params = true;
        const ResolvedScenario r = resolve(s);
        const std::string written = trainYaml(r, nullptr);
        QVERIFY2(written.find("pipeline_scheduler: zero_bubble_v") != std::string::npos, written.c_str());
        QVERIFY2(written.find("pp_interleave_num: 2") != std::string::npos, written.c_str());
        const ResolvedScenario back = resolveTrain(parseDocument(written, "train.yaml", Format::Yaml),
                                                   *r.scenario.cluster.device_preset, *r.scenario.cluster.devices);
        QCOMPARE(*back.scenario.exec.pp_schedule, std::string("zbv"));
        QCOMPARE(*back.scenario.exec.vpp, std::int64_t{2});
    }

    void aliases_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("expected");
        // reference/hyperparallel.md §3.5: where the seed's parser finds each field, first found wins.
        QTest::newRow("tp_degree") << "accelerator: {tp_degree: 4}" << "tp" << "4";
        QTest::newRow("tp_size wins over tp_degree") << "accelerator: {tp_degree: 4, tp_size: 8}" << "tp" << "8";
        QTest::newRow("pipeline_parallel_degree") << "accelerator: {pipeline_parallel_degree: 4}" << "pp" << "4";
        QTest::newRow("context_parallel_degree") << "accelerator: {context_parallel_degree: 2}" << "cp" << "2";
        QTest::newRow("expert_parallel_degree") << "accelerator: {expert_parallel_degree: 8}" << "ep" << "8";
        QTest::newRow("use_seq_parallel") << "accelerator: {use_seq_parallel: true}" << "sequence_parallel" << "true";
        QTest::newRow("data_config.seq_length") << "dataset: {data_config: {seq_length: 2048}}" << "seq_length" << "2048";
        QTest::newRow("data.max_seq_len") << "data: {max_seq_len: 1024}" << "seq_length" << "1024";
        QTest::newRow("max_seq_len wins") << "dataset: {data_transform: {max_seq_len: 8192}, data_config: {seq_length: 2048}}"
                                          << "seq_length" << "8192";
        QTest::newRow("accelerator.dp_shard") << "accelerator: {dp_shard: 4}" << "optimizer_shard" << "4";
        QTest::newRow("optimizer_weight_shard_size") << "accelerator: {optimizer_weight_shard_size: 2}\nfsdp_config: {dp_shard_size: 8}"
                                                     << "optimizer_shard" << "2";
        QTest::newRow("dp_shard_size 1 is no sharding") << "fsdp_config: {dp_shard_size: 1}" << "optimizer_parallel" << "false";
        QTest::newRow("dp from replicas") << "accelerator: {dp_replicate: 2}\nfsdp_config: {dp_shard_size: 4}" << "dp" << "8";
        QTest::newRow("older train: schema") << "train: {accelerator: {tp_degree: 2}}" << "tp" << "2";
        QTest::newRow("1f1b with chunks is interleaved") << "accelerator: {pp_size: 4, pp_interleave_num: 2, pipeline_scheduler: 1f1b}"
                                                         << "pp_schedule" << "interleaved";
        QTest::newRow("seed's hybird_cp typo") << "accelerator: {context_parallel_algo: hybird_cp}" << "cp_algo" << "hybrid_cp";
        QTest::newRow("legacy activation_checkpoint none")
            << "train: {gradient_checkpointing: {activation_checkpoint: none}}" << "recompute" << "- {first: 0, option: none}";
        QTest::newRow("max_grad_norm 0 clips nothing") << "training: {max_grad_norm: 0.0}" << "grad_clip" << "false";
        QTest::newRow("optimizer by _target_") << "optimizer: {_target_: pkg.optim.Muon}" << "optimizer" << "muon";
        // HyperParallel's dp_shard is FSDP: parameters, gradients and states sharded alike.
        QTest::newRow("dp_shard_size is FSDP") << "fsdp_config: {dp_shard_size: 4}" << "grad_shard_as_params" << "true";
        QTest::newRow("reshard_after_forward") << "fsdp_config: {dp_shard_size: 4, reshard_after_forward: false}"
                                               << "reshard_params" << "false";
        QTest::newRow("loss_parallel") << "accelerator: {loss_parallel: false}" << "loss_parallel" << "false";
        // The dtype keys, where the seed's parser reads them (reference §3.5).
        QTest::newRow("mix_precision param_dtype") << "fsdp_config: {mix_precision: {param_dtype: bfloat16}}" << "param_bytes" << "2";
        QTest::newRow("param_init_type") << "model: {name: llama, param_init_type: float32}" << "param_bytes" << "4";
        QTest::newRow("torch_dtype") << "model: {name: llama, torch_dtype: float32}" << "compute_bytes" << "4";
        QTest::newRow("torch_dtype names the compute dtype") << "model: {name: llama, torch_dtype: bfloat16}" << "compute_dtype" << "bf16";
        QTest::newRow("softmax_compute_type") << "model: {name: llama, softmax_compute_type: float32}" << "softmax_bytes" << "4";
    }
    void aliases() {
        QFETCH(QString, yaml);
        QFETCH(QString, key);
        QFETCH(QString, expected);
        const Value exec = execOf(yaml.toStdString() + "\n");
        const Value want = parseDocument(expected.toStdString(), "expected", Format::Yaml);
        QCOMPARE(text(exec.find(key.toStdString())), toYaml(want));
    }

    void refusals_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected");
        QTest::newRow("flag as text") << "accelerator:\n  sequence_parallel: \"yes\"\n"
                                      << "train.yaml:2:22: accelerator.sequence_parallel: expected true or false";
        QTest::newRow("section as a number") << "training: 8\n" << "train.yaml:1:11: training: expected a mapping, got 8";
        QTest::newRow("unknown schedule") << "accelerator: {pipeline_scheduler: zigzag}\n"
                                          << "train.yaml:1:35: accelerator.pipeline_scheduler: unknown pipeline schedule";
        QTest::newRow("seqsmartvpp without its split") << "accelerator: {pipeline_scheduler: seqsmartvpp}\n"
                                                       << "accelerator.pipeline_scheduler: Tessera prices seqsmartvpp, but a "
                                                          "train.yaml states no seq_split";
        QTest::newRow("seqpipe without its split") << "accelerator: {pipeline_scheduler: seqpipe}\n"
                                                   << "accelerator.pipeline_scheduler: Tessera prices seqpipe, but a train.yaml "
                                                      "states no seq_split";
        QTest::newRow("unknown checkpoint mode") << "activation_checkpoint: {mode: partial}\n"
                                                 << "train.yaml:1:31: activation_checkpoint.mode: expected off, full or selective";
        QTest::newRow("bad layer range") << "activation_checkpoint:\n  mode: full\n  layers: {\"7-3\": off}\n"
                                         << "train.yaml:3:12: activation_checkpoint.layers.7-3: expected a layer";
        QTest::newRow("no model") << "training: {global_batch_size: 8}\n" << "train.yaml:1:1: model: states no model Tessera can read";
        QTest::newRow("model on a hub only") << "model: {pretrained_model_name_or_path: org/none-such-model}\n"
                                             << "model.pretrained_model_name_or_path: 'org/none-such-model' is no local folder";
    }
    void refusals() {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        Diagnostics d;
        scenarioFromTrainYaml(parseDocument(yaml.toStdString(), "train.yaml", Format::Yaml), "", d);
        QString all;
        for (const Diagnostic& x : d.list()) all += QString::fromStdString(x.text()) + "\n";
        QVERIFY2(all.contains(expected), qPrintable("expected \"" + expected + "\" in:\n" + all));
    }

    void wrongTypeInFile() {
        const std::string path = kData + "/train/wrong-type.yaml";
        Diagnostics d;
        scenarioFromTrainYaml(loadDocument(path), kData + "/train", d);
        QCOMPARE(d.size(), std::size_t{1});
        QCOMPARE(d.list().front().text(),
                 path + ":7:12: accelerator.tp_size: expected a whole number of at least 1, got \"two\"");
    }
};

QTEST_APPLESS_MAIN(TestTrainYaml)
#include "tst_trainyaml.moc"
