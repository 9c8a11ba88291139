// The trainers' files both ways (core/trainers): a scenario exported to Megatron-LM's
// arguments, torchtitan's TOML and HyperParallel's train.yaml and imported back is
// the same strategy at the same price; each trainer's published launch configuration
// imports and prices (tests/data/trainers/SOURCES.md); what is not priced is listed
// or refused by name, never dropped.
#include <QtTest>

#include <fstream>
#include <sstream>

#include "doc/emit.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/parameters.h"
#include "resolve/resolve.h"
#include "trainers/trainers.h"
#include "trainers/shared.h"
#include "trainers/torchtitan.h"
#include "trainyaml/trainyaml.h"

using namespace tessera::core;

namespace {

const std::string kData = std::string(TESSERA_TEST_DATA) + "/trainers/";

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string allOf(const Diagnostics& d) {
    std::string out;
    for (const Diagnostic& x : d.list()) out += x.text() + "\n";
    return out;
}

struct Back {
    Imported imported;
    ResolvedScenario resolved;
};

Back importText(const std::string& text, const std::string& name, const std::string& device, std::int64_t devices) {
    ImportCluster cluster;
    cluster.device = Value::string(device);
    cluster.devices = devices;
    Diagnostics d;
    Imported imported = importConfig(text, name, "", cluster, d);
    if (!d.empty()) throw SpecError(d.list());
    return {imported, resolve(scenarioFromValue(imported.scenario, name, ""))};
}

bool unpricedNames(const Imported& i, const std::string& key) {
    return std::any_of(i.unpriced.begin(), i.unpriced.end(), [&](const Unpriced& u) { return u.key.starts_with(key); });
}

}  // namespace

class TestTrainers : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("change");  // what the row changes first, so the trainer can say it all
        // DeepSeek-V3: MLA, 256 experts after 3 dense layers, group-limited routing, DeepEP, an MTP
        // layer after the decoder's on the last of 16 uneven stages.
        for (const char* id : {"llama3-70b-h100x64", "mixtral-8x7b-h100x32", "llama3-8b-a100x8", "deepseek-v3-h800x2048-1f1b"})
            QTest::newRow(qPrintable(QString("megatron ") + id)) << id << "megatron" << "";
        // GPT-2's 50,257 tokens run padded to a multiple of tp in Megatron-LM: state the padded table.
        QTest::newRow("megatron gpt3-175b-a100x1024") << "gpt3-175b-a100x1024" << "megatron" << "padded-vocab";
        QTest::newRow("megatron uneven interleaved stages") << "llama3-70b-h100x64" << "megatron" << "layout";
        QTest::newRow("megatron full block recompute, fp8") << "llama3-70b-h100x64" << "megatron" << "block-fp8";
        QTest::newRow("torchtitan llama3-8b fsdp") << "llama3-8b-a100x8" << "torchtitan" << "fsdp";
        QTest::newRow("torchtitan llama3-70b fsdp pp") << "llama3-70b-h100x64" << "torchtitan" << "fsdp";
        QTest::newRow("torchtitan llama3-8b async tp") << "llama3-8b-a100x8" << "torchtitan" << "fsdp-async";
        QTest::newRow("megatron llama3-8b offload") << "llama3-8b-a100x8" << "megatron" << "offload";
        QTest::newRow("train-yaml llama3-70b") << "llama3-70b-h100x64" << "train-yaml" << "fsdp";
    }
    void roundTrip() {
        QFETCH(QString, preset);
        QFETCH(QString, target);
        QFETCH(QString, change);
        Scenario s = presetScenario(preset.toStdString());
        if (change == "offload") {  // Megatron-LM offloads without recompute only
            s.exec.recompute = std::vector<RecomputeRange>{{0, std::nullopt, "none", {}}};
            s.exec.activation_offload = StageCounts{std::int64_t{4}};
            s.exec.optimizer_offload = 0.5;
        }
        if (change == "fsdp-async") s.exec.tp_comm_overlap = true;
        if (change == "fsdp" || change == "fsdp-async") {  // torchtitan and AutoModels shard with FSDP only
            s.exec.optimizer_parallel = true;
            s.exec.grad_shard_as_params = true;
            s.exec.optimizer_shard.reset();
            s.exec.recompute = std::vector<RecomputeRange>{{0, std::nullopt, "full", {}}};
        }
        if (change == "layout") {  // an uneven interleaved split: only a layout states it
            s.exec.vpp = 2;
            s.exec.pp_schedule = "interleaved";
            s.exec.pp_partition = StageCounts{StageCounts::Nested{{9, 10, 10, 11}, {11, 10, 10, 9}}};
        }
        if (change == "padded-vocab") s.model.vocab_size = 50304;
        if (change == "block-fp8") {
            s.exec.recompute.reset();
            s.exec.full_recompute = StageCounts{std::int64_t{4}};
            s.exec.compute_dtype = "fp8";
        }
        const ResolvedScenario r = resolve(s);
        const Exported out = exportScenario(r, *exportTargetOf(target.toStdString()));
        if (target == "train-yaml") {
            // A train.yaml has no token budget and runs the trainer's own selective rule:
            // both are named (in the header and in `unexpressed`), nothing else is lost.
            std::vector<std::string> expected;
            if (r.scenario.exec.train_tokens && !r.filled.contains("exec.train_tokens")) expected.push_back("exec.train_tokens");
            if (!r.filled.contains("exec.selective_rule") && *r.scenario.exec.selective_rule != "hyperparallel")
                expected.push_back("exec.selective_rule");
            std::vector<std::string> keys;
            for (const std::string& line : out.unexpressed) keys.push_back(line.substr(0, line.find(':')));
            QVERIFY2(keys == expected, qPrintable(QString::fromStdString(out.text)));
            for (const std::string& key : expected)
                QVERIFY2(out.text.find("#   " + key + ": ") != std::string::npos, key.c_str());
        } else {
            QVERIFY2(out.unexpressed.empty(), qPrintable(QString::fromStdString(out.text)));
        }
        const Back back = importText(out.text, "exported", *r.scenario.cluster.device_preset, *r.scenario.cluster.devices);
        const ExecSpec &a = r.scenario.exec, &b = back.resolved.scenario.exec;
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
        QCOMPARE(b.compute_dtype, a.compute_dtype);
        if (a.train_tokens && target != "train-yaml") {  // the budget as whole steps: --train-iters, training.steps
            const std::int64_t step = *a.global_batch_size * *a.seq_length;
            QCOMPARE(b.train_tokens, std::optional<std::int64_t>((*a.train_tokens + step - 1) / step * step));
        }
        QVERIFY(checkpointPlan(back.resolved) == checkpointPlan(r));
        QCOMPARE(back.resolved.partition.layers, r.partition.layers);
        QCOMPARE(countParameters(back.resolved.scenario.model).total(), countParameters(r.scenario.model).total());
        const Estimate ea = estimate(r), eb = estimate(back.resolved);
        QCOMPARE(eb.peakMemory, ea.peakMemory);
        QVERIFY2(std::abs(eb.stepSeconds - ea.stepSeconds) <= 1e-9 * ea.stepSeconds,
                 qPrintable(QString("step %1 s back, %2 s stated").arg(eb.stepSeconds).arg(ea.stepSeconds)));
    }

    // Megatron-LM's published Mixtral 8x7B launch: its arrays and torchrun line as they stand.
    void megatronMixtralScript() {
        const Back back = importText(readFile(kData + "megatron-mixtral-8x7b.sh"), "megatron-mixtral-8x7b.sh", "h100-sxm", 64);
        QCOMPARE(back.imported.format, ConfigFormat::MegatronArgs);
        const ExecSpec& e = back.resolved.scenario.exec;
        QCOMPARE(*e.tp, std::int64_t{1});
        QCOMPARE(*e.pp, std::int64_t{4});
        QCOMPARE(*e.ep, std::int64_t{8});
        QCOMPARE(*e.dp, std::int64_t{16});
        QCOMPARE(*e.micro_batch_num, std::int64_t{16});  // 256 / (1 · 16)
        QVERIFY(*e.optimizer_parallel && *e.overlapped_grad_reduce && *e.overlap_param_gather && *e.grouped_gemm);
        // The same model as the Mixtral 8x7B preset, parameter for parameter.
        const Scenario preset = presetScenario("mixtral-8x7b-h100x32");
        QCOMPARE(countParameters(back.resolved.scenario.model).total(), countParameters(resolve(preset).scenario.model).total());
        for (const char* key : {"--lr", "--data-path", "--save", "--nproc_per_node", "--init-method-std"})
            QVERIFY2(unpricedNames(back.imported, key), key);
        QVERIFY(estimate(back.resolved).stepSeconds > 0);
    }

    // torchtitan's Llama 3 8B job configuration (a preset for 64 A100s, its header says).
    void torchtitanLlama3() {
        const Back back = importText(readFile(kData + "torchtitan-llama3-8b.toml"), "torchtitan-llama3-8b.toml", "a100-80gb", 64);
        QCOMPARE(back.imported.format, ConfigFormat::Torchtitan);
        const ExecSpec& e = back.resolved.scenario.exec;
        QCOMPARE(*e.dp, std::int64_t{64});
        QCOMPARE(*e.optimizer_shard, std::int64_t{64});  // data_parallel_shard_degree -1: every rank
        QVERIFY(*e.grad_shard_as_params);
        QCOMPARE(*e.seq_length, std::int64_t{8192});
        QCOMPARE(*e.selective_rule, std::string("hyperparallel"));
        QCOMPARE(*back.resolved.scenario.model.num_hidden_layers, std::int64_t{32});
        for (const char* key : {"[optimizer] lr", "[checkpoint] interval", "[training] dataset", "[job] dump_folder"})
            QVERIFY2(unpricedNames(back.imported, key), key);
        QVERIFY(estimate(back.resolved).stepSeconds > 0);
    }

    // Every torchtitan flavor Tessera knows reads as its preset (DeepSeek-V3 671B without the
    // MTP layer torchtitan does not build) and writes back as the same name and flavor.
    void torchtitanFlavors() {
        const std::string base = readFile(kData + "torchtitan-llama3-8b.toml");
        for (const trainers::Flavor& f : trainers::kFlavors) {
            std::string text = base;
            text.replace(text.find("name = \"llama3\""), 15, std::string("name = \"") + f.name + "\"");
            text.replace(text.find("flavor = \"8B\""), 13, std::string("flavor = \"") + f.flavor + "\"");
            const Back back = importText(text, "job.toml", "h100-sxm", 64);
            QVERIFY2(trainers::isPresetModel(back.resolved, f.preset, f.mtpDepth), f.flavor);
            if (f.mtpDepth == 0) QCOMPARE(*back.resolved.scenario.model.mtp_depth, std::int64_t{0});
            const Exported out = exportScenario(back.resolved, ExportTarget::Torchtitan);
            QVERIFY2(out.text.find(std::string("name = \"") + f.name + "\"\nflavor = \"" + f.flavor + "\"") != std::string::npos,
                     out.text.c_str());
        }
    }

    // Megatron-LM's --yaml-cfg example: it names no vocabulary (a SentencePiece model),
    // which is listed, and with it given the file prices.
    void megatronYamlConfig() {
        const std::string text = readFile(kData + "megatron-gpt-config.yaml");
        ImportCluster cluster;
        cluster.device = Value::string("h100-sxm");
        cluster.devices = 8;
        Diagnostics d;
        Imported imported = importConfig(text, "gpt_config.yaml", "", cluster, d);
        QVERIFY2(d.empty(), allOf(d).c_str());
        QCOMPARE(imported.format, ConfigFormat::MegatronYaml);
        QVERIFY(unpricedNames(imported, "--tokenizer-type GPTSentencePieceTokenizer"));
        QVERIFY(unpricedNames(imported, "lr"));
        imported.scenario.find("model")->set("vocab_size", Value::integer(32000));
        const ResolvedScenario r = resolve(scenarioFromValue(imported.scenario, "gpt_config.yaml", ""));
        QCOMPARE(*r.scenario.model.num_hidden_layers, std::int64_t{24});
        QCOMPARE(*r.scenario.exec.micro_batch_size, std::int64_t{2});
        QVERIFY(estimate(r).stepSeconds > 0);
    }

    // MindFormers' Llama 2 7B pre-training configuration (8 Ascend 910B, data parallel 8).
    void mindFormersLlama2() {
        const Back back = importText(readFile(kData + "mindformers-llama2-7b.yaml"), "pretrain_llama2_7b.yaml", "ascend-910b", 8);
        QCOMPARE(back.imported.format, ConfigFormat::MindFormers);
        const ExecSpec& e = back.resolved.scenario.exec;
        QCOMPARE(*e.dp, std::int64_t{8});
        QCOMPARE(*e.micro_batch_num, std::int64_t{8});  // gradient_accumulation_steps without a pipeline
        QCOMPARE(*e.global_batch_size, std::int64_t{64});
        QVERIFY(*e.optimizer_parallel);
        QCOMPARE(*e.compute_dtype, std::string("fp16"));
        QCOMPARE(*back.resolved.scenario.model.intermediate_size, std::int64_t{11008});  // multiple_of 256
        QCOMPARE(countParameters(back.resolved.scenario.model).total(),
                 countParameters(resolveModel(scenarioFromValue(parseDocument("model: llama2-7b\nexec: {}\ncluster: {}\n", "x", Format::Yaml), "x", ""))).total());
        for (const char* key : {"optimizer.learning_rate", "context.mode", "callbacks", "recompute_config.mp_comm_recompute"})
            QVERIFY2(unpricedNames(back.imported, key), key);
        QVERIFY(estimate(back.resolved).stepSeconds > 0);
    }

    // MindSpeed-MM's Qwen2-VL 7B: the frozen qwen2vit tower and its lnmlp projector read as
    // model.vision_* with exec.freeze_vision_tower, the whole model counting Qwen2-VL-7B's
    // 8,291,375,616; a tower split over stages is refused by name; the text decoder alone
    // (the same file without image_encoder) reads with its pipeline split.
    void mindSpeedQwen2vl() {
        const std::string text = readFile(kData + "mindspeed-qwen2vl-7b.json");
        ImportCluster cluster;
        cluster.device = Value::string("ascend-910b");
        cluster.devices = 16;
        Diagnostics d;
        Imported whole = importConfig(text, "model_7b.json", "", cluster, d);
        QVERIFY2(d.empty(), allOf(d).c_str());
        {
            Value& exec = *whole.scenario.find("exec");
            exec.set("seq_length", Value::integer(4096));
            exec.set("micro_batch_size", Value::integer(1));
            exec.set("global_batch_size", Value::integer(64));
            exec.set("visual_seq_len", Value::integer(1024));
            const ResolvedScenario r = resolve(scenarioFromValue(whole.scenario, "model_7b.json", ""));
            QVERIFY(*r.scenario.exec.freeze_vision_tower);
            QCOMPARE(countParameters(r.scenario.model).total(), std::int64_t{8291375616});
            const Estimate e = estimate(r);
            QCOMPARE(e.stages[0].vision.parameters, 675759104.0);
            QCOMPARE(e.stages[0].vision.keptPerMicroBatch, 0.0);
        }
        // The tower over two stages imports as exec.vision_partition; the text decoder's
        // [1, 10, 10, 7] would run a text layer on stage 0 before the tower ends there, and
        // is refused; [0, 11, 10, 7] prices, the tower's blocks 16-31 beside the embedding.
        std::string split = text;
        split.replace(split.find("[32, 0, 0, 0]"), 13, "[16, 16, 0, 0]");
        auto importSplit = [&](const std::string& file) {
            Diagnostics d1;
            Imported i = importConfig(file, "model_7b.json", "", cluster, d1);
            if (!d1.empty()) qFatal("%s", allOf(d1).c_str());
            Value& exec = *i.scenario.find("exec");
            exec.set("seq_length", Value::integer(4096));
            exec.set("micro_batch_size", Value::integer(1));
            exec.set("global_batch_size", Value::integer(64));
            exec.set("visual_seq_len", Value::integer(1024));
            return scenarioFromValue(i.scenario, "model_7b.json", "");
        };
        try {
            resolve(importSplit(split));
            QFAIL("a text layer before the tower's end accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains("exec.pp_partition: stage 0 would hold 1 text layers"), e.what());
        }
        split.replace(split.find("[1, 10, 10, 7]"), 14, "[0, 11, 10, 7]");
        const ResolvedScenario rs = resolve(importSplit(split));
        QCOMPARE(rs.visionBlocks, (std::vector<std::int64_t>{16, 16, 0, 0}));
        const Estimate es = estimate(rs);
        QCOMPARE(es.stages[0].vision.parameters + es.stages[1].vision.parameters, 675759104.0);
        QCOMPARE(es.stages[0].layers, std::int64_t{0});
        Value doc = parseDocument(text, "model_7b.json", Format::Json);
        doc.erase("image_encoder");
        Diagnostics d2;
        Imported imported = importConfig(toJson(doc).dump(2), "text_decoder.json", "", cluster, d2);
        QVERIFY2(d2.empty(), allOf(d2).c_str());
        QCOMPARE(imported.format, ConfigFormat::MindSpeed);
        Value& exec = *imported.scenario.find("exec");
        exec.set("seq_length", Value::integer(4096));  // the launch script's, not the JSON's
        exec.set("micro_batch_size", Value::integer(1));
        exec.set("global_batch_size", Value::integer(64));
        const ResolvedScenario r = resolve(scenarioFromValue(imported.scenario, "text_decoder.json", ""));
        QCOMPARE(r.partition.layers.front(), (std::vector<std::int64_t>{1, 10, 10, 7}));
        QCOMPARE(*r.scenario.model.num_key_value_heads, std::int64_t{4});
        QVERIFY(*r.scenario.model.attention_bias && !*r.scenario.model.mlp_bias);
        QCOMPARE(*r.scenario.model.hidden_act, std::string("silu"));
        QVERIFY(estimate(r).stepSeconds > 0);
    }

    void refusalsByName_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString base = "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --tokenizer-type NullTokenizer "
                             "--vocab-size 1000 --seq-length 1024 --micro-batch-size 1 --global-batch-size 8 ";
        QTest::newRow("uniform groups") << base + "--recompute-granularity full --recompute-method uniform --recompute-num-layers 2"
                                        << "--recompute-method: uniform groups of 2 layers are not yet representable";
        QTest::newRow("shell variable") << base + "--tensor-model-parallel-size $TP"
                                        << "--tensor-model-parallel-size: '$TP' is a shell variable";
        QTest::newRow("offload under a pipeline") << base + "--pipeline-model-parallel-size 2 --cpu-offloading --cpu-offloading-num-layers 2"
                                                  << "--cpu-offloading: Megatron-LM offloads activations only without pipeline parallelism";
        QTest::newRow("layout stage without layers") << base + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'E|t*8L'"
                                                     << "virtual stage 0 holds no layer";
        QTest::newRow("layout short of layers") << base + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et*3|t*3L'"
                                                << "places 6 decoder layers, and the model has 8";
        QTest::newRow("layout unrolls too far") << base + "--pipeline-model-parallel-layout 'E(t|)*999999999L'" << "unrolls past a million layers";
        QTest::newRow("allgather over ep") << base + "--num-experts 4 --expert-model-parallel-size 2"
                                           << "the allgather dispatcher (Megatron-LM's default) is not priced";
        QTest::newRow("stray word") << "export " + base << "exported:1:1: expected an argument such as --num-layers, got 'export'";
        QTest::newRow("toml syntax") << "[parallelism]\ntensor_parallel_degree = = 2\n" << "exported:2:";
        QTest::newRow("torchtitan's removed llama4") << "[model]\nname = \"llama4\"\nflavor = \"17bx16e\"\n"
                                                     << "[model] name: torchtitan's llama4 (17bx16e) has no Tessera preset, and "
                                                        "torchtitan removed the model in June 2026 (#3573)";
    }
    void refusalsByName() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        ImportCluster cluster;
        cluster.device = Value::string("h100-sxm");
        cluster.devices = 8;
        Diagnostics d;
        try {
            importConfig(text.toStdString(), "exported", "", cluster, d);
        } catch (const SpecError& e) {
            for (const Diagnostic& x : e.diagnostics()) d.add(x.mark, x.path, x.message);
        }
        QVERIFY2(QString::fromStdString(allOf(d)).contains(expected), qPrintable("expected \"" + expected + "\" in:\n" + QString::fromStdString(allOf(d))));
    }

    // --fp8-param-gather is exec.fp8_params under --fp8-format, and listed as not priced
    // without it (the weights stay in the parameter dtype).
    void fp8ParamGather() {
        const std::string base = "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --tokenizer-type NullTokenizer "
                                 "--vocab-size 1000 --seq-length 1024 --micro-batch-size 1 --global-batch-size 8 "
                                 "--use-distributed-optimizer --bf16 --fp8-param-gather";
        for (const bool fp8 : {true, false}) {
            ImportCluster cluster;
            cluster.device = Value::string("h100-sxm");
            cluster.devices = 8;
            Diagnostics d;
            const Imported imported = importConfig(base + (fp8 ? " --fp8-format hybrid" : ""), "run.sh", "", cluster, d);
            QVERIFY2(d.empty(), allOf(d).c_str());
            const ResolvedScenario r = resolve(scenarioFromValue(imported.scenario, "run.sh", ""));
            QCOMPARE(*r.scenario.exec.fp8_params, fp8);
            const auto listed = std::find_if(imported.unpriced.begin(), imported.unpriced.end(),
                                             [](const Unpriced& u) { return u.key == "--fp8-param-gather"; });
            QCOMPARE(listed != imported.unpriced.end(), !fp8);
            if (!fp8) QVERIFY2(listed->why.find("need --fp8-format") != std::string::npos, listed->why.c_str());
        }
    }

    // Megatron-LM's --expert-tensor-parallel-size 1 beside tp 2 (experts whole on each ep rank)
    // is exec.expert_tp, priced, and written back as stated.
    void expertTpBesideTp() {
        const std::string args = "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --tokenizer-type NullTokenizer "
                                 "--vocab-size 1000 --seq-length 1024 --micro-batch-size 1 --global-batch-size 8 "
                                 "--tensor-model-parallel-size 2 --sequence-parallel --num-experts 4 --moe-router-topk 2 "
                                 "--moe-token-dispatcher-type alltoall --expert-model-parallel-size 4 --expert-tensor-parallel-size 1";
        const Back back = importText(args, "etp.sh", "h100-sxm", 8);
        QCOMPARE(*back.resolved.scenario.exec.expert_tp, std::int64_t{1});
        QCOMPARE(*back.resolved.scenario.exec.tp, std::int64_t{2});
        const Exported out = exportScenario(back.resolved, ExportTarget::Megatron);
        QVERIFY2(out.text.find("--expert-tensor-parallel-size 1") != std::string::npos, out.text.c_str());
        const Back again = importText(out.text, "again.sh", "h100-sxm", 8);
        QCOMPARE(*again.resolved.scenario.exec.expert_tp, std::int64_t{1});
    }

    // An argument Tessera does not know is listed, with its line, never dropped.
    void unknownArgumentsAreListed() {
        const Back back = importText(readFile(kData + "unknown-args.sh"), kData + "unknown-args.sh", "h100-sxm", 8);
        const auto it = std::find_if(back.imported.unpriced.begin(), back.imported.unpriced.end(),
                                     [](const Unpriced& u) { return u.key == "--frobnicate-the-widgets 3"; });
        QVERIFY(it != back.imported.unpriced.end());
        QCOMPARE(it->mark.line, 9);
        QVERIFY(unpricedNames(back.imported, "--lr 3.0e-4"));
        QCOMPARE(*back.resolved.scenario.exec.tp, std::int64_t{2});
        QCOMPARE(*back.resolved.scenario.model.vocab_size, std::int64_t{32256});  // 32,001 padded to 128 · tp
    }

    // The readers Tessera already had list what they leave out too: a config.json's
    // non-architecture fields, a train.yaml's learning rate and seed.
    void knownFormatsListWhatTheyLeave() {
        const std::string data = TESSERA_TEST_DATA;
        ImportCluster cluster;
        cluster.device = Value::string("h100-sxm");
        cluster.devices = 16;
        Diagnostics d;
        const Imported hf = importConfig(readFile(data + "/hf/llama3-8b.json"), "config.json", "", cluster, d);
        QVERIFY2(d.empty(), allOf(d).c_str());
        QVERIFY(unpricedNames(hf, "bos_token_id") && unpricedNames(hf, "rope_theta"));
        QVERIFY(!unpricedNames(hf, "hidden_size") && !unpricedNames(hf, "num_key_value_heads"));
        const Imported train = importConfig(readFile(data + "/train/llama3-8b-automodels.yaml"), "train.yaml", data + "/train", cluster, d);
        QVERIFY2(d.empty(), allOf(d).c_str());
        QVERIFY(unpricedNames(train, "training.seed") && unpricedNames(train, "training.train_iters"));
        QVERIFY(!unpricedNames(train, "accelerator.tp_degree") && !unpricedNames(train, "training.global_batch_size"));
    }

    // What a trainer cannot say is named in the file's header, not dropped.
    void unexpressedIsNamed() {
        Scenario s = presetScenario("llama3-70b-h100x64");
        s.exec.pp_schedule = "zb-h1";
        s.exec.memory_reserve = Bytes{0};
        const Exported out = exportScenario(resolve(s), ExportTarget::Megatron);
        QVERIFY2(out.text.find("#   exec.pp_schedule: zb-h1 is not one of Megatron-LM's schedules") != std::string::npos, out.text.c_str());
        QVERIFY2(out.text.find("#   exec.memory_reserve:") != std::string::npos, out.text.c_str());
        const Exported titan = exportScenario(resolve(presetScenario("llama3-70b-h100x64")), ExportTarget::Torchtitan);
        QVERIFY2(titan.text.find("exec.optimizer_parallel: torchtitan shards with FSDP only") != std::string::npos, titan.text.c_str());
        // FP8 reduce-scatters live in the userbuffers YAML Megatron-LM reads, which the export does not write.
        Scenario fp8 = loadScenario(TESSERA_TEST_DATA "/measured/dgxc-llama31-405b-h100x576-fp8.yaml");
        const Exported ub = exportScenario(resolve(fp8), ExportTarget::Megatron);
        QVERIFY2(ub.text.find("#   exec.fp8_reduce_scatter: Megatron-LM reads it from the YAML file --tp-comm-overlap-cfg") !=
                     std::string::npos, ub.text.c_str());
        QVERIFY(ub.text.find("    --tp-comm-overlap\n") != std::string::npos);
    }

    void recognisedByContent_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("format");
        const QString data = TESSERA_TEST_DATA;
        QTest::newRow("config.json") << data + "/hf/llama3-8b.json" << int(ConfigFormat::HfConfig);
        QTest::newRow("train.yaml") << data + "/train/llama3-8b-automodels.yaml" << int(ConfigFormat::TrainYaml);
        QTest::newRow("search yaml") << data + "/seed/upstream/dense_llm_search.yaml" << int(ConfigFormat::SeedSearch);
        QTest::newRow("megatron args") << QString::fromStdString(kData) + "megatron-mixtral-8x7b.sh" << int(ConfigFormat::MegatronArgs);
        QTest::newRow("megatron yaml") << QString::fromStdString(kData) + "megatron-gpt-config.yaml" << int(ConfigFormat::MegatronYaml);
        QTest::newRow("torchtitan") << QString::fromStdString(kData) + "torchtitan-llama3-8b.toml" << int(ConfigFormat::Torchtitan);
        QTest::newRow("mindformers") << QString::fromStdString(kData) + "mindformers-llama2-7b.yaml" << int(ConfigFormat::MindFormers);
        QTest::newRow("mindspeed") << QString::fromStdString(kData) + "mindspeed-qwen2vl-7b.json" << int(ConfigFormat::MindSpeed);
    }
    void recognisedByContent() {
        QFETCH(QString, file);
        QFETCH(int, format);
        // The name says nothing: every file is read as "config".
        const std::optional<ConfigFormat> found = detectFormat(readFile(file.toStdString()), "config");
        QVERIFY(found);
        QCOMPARE(int(*found), format);
    }
};

QTEST_APPLESS_MAIN(TestTrainers)
#include "tst_trainers.moc"
