// Nothing silent: every field of the ExecSpec table either changes what the cost model
// prices - a row below states it two ways and shows the bytes, the seconds, the budget
// or the verdict move - or is marked not priced (core/model/priced.h), and then stating
// it changes nothing and is reported. The test walks the field table, so a field added
// later fails here until it gets a row or the mark.
#include <QtTest>

#include <set>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/priced.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

// Small scenarios the rows start from.
const char* kDense = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                     "exec: {tp: 2, pp: 2, seq_length: 4096, global_batch_size: 64}\n";
const char* kOneBatch = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
                        "exec: {tp: 2, seq_length: 4096, global_batch_size: 4}\n";
const char* kMoe = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
                   "exec: {tp: 2, seq_length: 4096, global_batch_size: 64, optimizer_parallel: true}\n";
const char* kMtp = "model: {preset: llama3-8b, mtp_depth: 1}\ncluster: {device: h100-sxm, devices: 16}\n"
                   "exec: {tp: 2, seq_length: 4096, global_batch_size: 64}\n";
// A Qwen2.5-VL-like vision tower in front of Llama-3 8B.
const char* kVision = "model: {preset: llama3-8b, vision_hidden_size: 1280, vision_depth: 32, vision_num_heads: 16,\n"
                      "  vision_intermediate_size: 3420, vision_out_hidden_size: 4096, vision_patch_size: 14,\n"
                      "  vision_spatial_merge_size: 2, vision_gated_mlp: true, vision_bias: true, vision_norm: rmsnorm}\n"
                      "cluster: {device: h100-sxm, devices: 16}\n"
                      "exec: {tp: 2, pp: 2, seq_length: 4096, global_batch_size: 64, visual_seq_len: 256}\n";

enum class Moves { Memory, Time, Budget, Verdict, Days };

struct Outcome {
    std::string refused;
    Estimate estimate;
};

Outcome price(const char* base, const QStringList& sets) {
    Outcome out;
    try {
        Value doc = parseDocument(base, "row.yaml", Format::Yaml);
        for (const QString& s : sets) applyOverride(doc, s.toStdString());
        out.estimate = estimate(resolve(scenarioFromValue(doc, "row.yaml", "")));
    } catch (const SpecError& e) {
        out.refused = e.diagnostics().front().text();
    }
    return out;
}

bool sameMemory(const Estimate& a, const Estimate& b) {
    if (a.stages.size() != b.stages.size()) return false;
    for (std::size_t s = 0; s < a.stages.size(); ++s)
        for (const MemoryTerm& term : kMemoryTerms)
            if (a.stages[s].memory.*term.bytes != b.stages[s].memory.*term.bytes) return false;
    return true;
}

struct FieldKeys {
    std::vector<std::string> keys;
    template <class... A> void integer(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void real(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void flag(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void text(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void choice(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void textList(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void memory(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void numberMap(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void stageCounts(Field f, A&&...) { keys.emplace_back(f.key); }
    template <class... A> void ranges(Field f, A&&...) { keys.emplace_back(f.key); }
};

struct Row {
    const char* key;
    const char* base;
    QStringList a, b;  // --set assignments: the field stated two ways (and what it needs beside it)
    Moves moves;
    const char* why;   // what the cost model does with it, and its source
};

const std::vector<Row>& rows() {
    static const std::vector<Row> kRows = {
        {"dp", kDense, {"exec.optimizer_parallel=true"}, {"exec.optimizer_parallel=true", "exec.dp=8", "cluster.devices=32"},
         Moves::Memory, "ZeRO shards the optimizer states over dp"},
        {"tp", kDense, {}, {"exec.tp=4", "exec.dp=2"}, Moves::Memory, "weights split over tp"},
        {"pp", kDense, {}, {"exec.pp=4", "exec.dp=2"}, Moves::Memory, "layers split over stages"},
        {"vpp", kDense, {}, {"exec.vpp=2", "exec.pp_schedule=interleaved"}, Moves::Memory, "interleaved warm-up holds more"},
        {"cp", kDense, {}, {"exec.cp=2", "exec.dp=2"}, Moves::Memory, "the sequence split over cp"},
        {"ep", kMoe, {}, {"exec.ep=4"}, Moves::Memory, "experts split over ep"},
        {"etp", kMoe, {"exec.ep=2"}, {"exec.ep=2", "exec.etp=4"}, Moves::Memory, "expert weights split over etp"},
        {"expert_tp", kMoe, {"exec.ep=2", "exec.sequence_parallel=true"},
         {"exec.ep=2", "exec.sequence_parallel=true", "exec.expert_tp=1"}, Moves::Memory,
         "Megatron-LM --expert-tensor-parallel-size 1: each expert whole on its ep rank"},
        {"sequence_parallel", kDense, {}, {"exec.sequence_parallel=true"}, Moves::Memory, "Korthikanti et al. 2022 §4.2.2"},
        {"shard_activations", kDense, {"exec.recompute=[{first: 0, option: full}]"},
         {"exec.recompute=[{first: 0, option: full}]", "exec.shard_activations=true"}, Moves::Memory,
         "seed derive.py shard_recompute_input, shard_output_activ"},
        {"loss_parallel", kDense, {}, {"exec.loss_parallel=false"}, Moves::Memory, "gathered logits"},
        {"micro_batch_size", kDense, {}, {"exec.micro_batch_size=2"}, Moves::Memory, "activations per micro-batch"},
        {"micro_batch_num", kDense, {}, {"exec.micro_batch_num=8", "exec.global_batch_size=32"}, Moves::Time, "the pipeline's work"},
        {"global_batch_size", kDense, {}, {"exec.global_batch_size=128"}, Moves::Time, "the step's work"},
        {"optimizer_parallel", kDense, {}, {"exec.optimizer_parallel=true"}, Moves::Memory, "ZeRO-1"},
        {"optimizer_shard", kDense, {"exec.optimizer_parallel=true", "exec.optimizer_shard=2"},
         {"exec.optimizer_parallel=true", "exec.optimizer_shard=4"}, Moves::Memory, "ranks a shard spans"},
        {"expert_shard", kMoe, {}, {"exec.expert_shard=2"}, Moves::Memory, "HyperParallel edp_shard_size"},
        {"grad_shard", kDense, {"exec.optimizer_parallel=true"}, {"exec.optimizer_parallel=true", "exec.grad_shard=true"},
         Moves::Memory, "ZeRO-2"},
        {"grad_shard_as_params", kDense, {"exec.optimizer_parallel=true"},
         {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true"}, Moves::Memory, "FSDP / ZeRO-3"},
        {"shard_spans_cp", kDense, {"exec.cp=2", "exec.dp=2", "exec.optimizer_parallel=true"},
         {"exec.cp=2", "exec.dp=2", "exec.optimizer_parallel=true", "exec.shard_spans_cp=true"}, Moves::Memory,
         "HyperParallel's FSDP domain dp·cp"},
        {"grad_accumulation", kOneBatch, {}, {"exec.grad_accumulation=false"}, Moves::Memory,
         "seed derive.py: B_g = 0 without PP or accumulation"},
        {"deferred_grad_accumulation", kDense, {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true"},
         {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true", "exec.deferred_grad_accumulation=true"},
         Moves::Memory, "a second gradient shard held to the micro-batch's end"},
        {"overlapped_grad_reduce", kDense, {}, {"exec.overlapped_grad_reduce=false"}, Moves::Time,
         "the reduction after the backward, exposed"},
        {"overlap_param_gather", kDense, {"exec.optimizer_parallel=true"},
         {"exec.optimizer_parallel=true", "exec.overlap_param_gather=false"}, Moves::Time,
         "the sharded optimizer's parameter gather after the step, exposed"},
        {"overlap_p2p_comm", kDense, {"exec.vpp=2", "exec.pp_schedule=interleaved"},
         {"exec.vpp=2", "exec.pp_schedule=interleaved", "exec.overlap_p2p_comm=false"}, Moves::Time,
         "the interleaved schedule's sends waited for"},
        {"overlap_moe_expert_parallel_comm", kMoe, {"exec.ep=4"}, {"exec.ep=4", "exec.overlap_moe_expert_parallel_comm=true"},
         Moves::Time, "the expert all-to-all hidden under the paired micro-batch's compute"},
        {"moe_enable_deepep", kMoe, {"exec.ep=8"}, {"exec.ep=8", "exec.moe_enable_deepep=true"}, Moves::Time,
         "DeepEP crosses the network once per remote node a token reaches, not once per copy"},
        {"moe_deepep_sms", kMoe, {"exec.ep=8", "exec.moe_enable_deepep=true", "exec.overlap_moe_expert_parallel_comm=true"},
         {"exec.ep=8", "exec.moe_enable_deepep=true", "exec.overlap_moe_expert_parallel_comm=true", "exec.moe_deepep_sms=40"},
         Moves::Time, "the paired compute runs on the SMs DeepEP's kernels leave"},
        {"reshard_params", kDense, {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true"},
         {"exec.optimizer_parallel=true", "exec.grad_shard_as_params=true", "exec.reshard_params=true"}, Moves::Memory,
         "FSDP frees gathered parameters"},
        {"pp_schedule", kDense, {}, {"exec.pp_schedule=gpipe"}, Moves::Memory, "GPipe holds every micro-batch"},
        {"seq_split", kDense, {"exec.pp_schedule=seqpipe"}, {"exec.pp_schedule=seqpipe", "exec.seq_split=4"}, Moves::Time,
         "seqpipe's bubble shrinks with the parts"},
        {"offset", kDense, {}, {"exec.offset=[2, -2]"}, Moves::Memory, "layers moved between stages"},
        {"pp_partition", kDense, {}, {"exec.pp_partition=[12, 20]"}, Moves::Memory, "layers per stage stated"},
        {"mtp_in_offset", kMtp, {"exec.pp=3", "cluster.devices=24"}, {"exec.pp=3", "cluster.devices=24", "exec.mtp_in_offset=false"},
         Moves::Verdict, "33 layers split over 3 stages; 32 body layers do not"},
        {"full_recompute", kDense, {}, {"exec.full_recompute=true"}, Moves::Memory, "keeps only each layer's input"},
        {"selective_recompute", kDense, {"exec.flash_attention=false"}, {"exec.flash_attention=false", "exec.selective_recompute=true"},
         Moves::Memory, "drops the attention core"},
        {"selective_comm_recompute", kDense, {"exec.sequence_parallel=true"},
         {"exec.sequence_parallel=true", "exec.selective_comm_recompute=true"}, Moves::Time, "re-gathers the SP inputs"},
        {"selective_rule", kDense, {"exec.flash_attention=false", "exec.recompute=[{first: 0, option: selective}]"},
         {"exec.flash_attention=false", "exec.recompute=[{first: 0, option: selective}]", "exec.selective_rule=hyperparallel"},
         Moves::Memory, "reference §4.7"},
        {"recompute_slice_activation", kDense, {"exec.recompute=[{first: 0, option: full}]"},
         {"exec.recompute=[{first: 0, option: full}]", "exec.recompute_slice_activation=true"}, Moves::Memory,
         "seed derive.py shard_recompute_input"},
        {"recompute", kDense, {}, {"exec.recompute=[{first: 0, count: 8, option: full}]"}, Moves::Memory, "ranges of layers"},
        {"param_bytes", kDense, {}, {"exec.param_bytes=4"}, Moves::Memory, "weights' width"},
        {"compute_bytes", kDense, {}, {"exec.compute_bytes=4"}, Moves::Memory, "activations' width"},
        {"softmax_bytes", kDense, {"exec.flash_attention=false"}, {"exec.flash_attention=false", "exec.softmax_bytes=4"},
         Moves::Memory, "the scores' width"},
        {"grad_bytes", kDense, {}, {"exec.grad_bytes=2"}, Moves::Memory, "gradients' width"},
        {"optimizer_state_bytes", kDense, {}, {"exec.optimizer_state_bytes=2"}, Moves::Memory, "moments' width"},
        {"optimizer_states", kDense, {"exec.optimizer_states=2"}, {"exec.optimizer_states=1"}, Moves::Verdict,
         "AdamW keeps two: one is refused"},
        {"main_param_bytes", kDense, {}, {"exec.main_param_bytes=0"}, Moves::Memory, "the master copy"},
        {"norm_bytes", kDense, {}, {"exec.norm_bytes=4"}, Moves::Memory, "norm inputs' width"},
        {"dropout_bytes", kDense, {"model.hidden_dropout=0.1"}, {"model.hidden_dropout=0.1", "exec.dropout_bytes=2"},
         Moves::Memory, "dropout masks' width"},
        {"flash_attention", kDense, {}, {"exec.flash_attention=false"}, Moves::Memory, "no s x s tensors (Dao 2023)"},
        {"tp_comm_overlap", kDense, {"exec.sequence_parallel=true"}, {"exec.sequence_parallel=true", "exec.tp_comm_overlap=true"},
         Moves::Time, "Transformer Engine userbuffers"},
        {"grad_clip", kDense, {}, {"exec.grad_clip=false"}, Moves::Time, "the global norm reads the gradients"},
        {"optimizer_post_validation", kDense, {"exec.pp_schedule=zb-h2"},
         {"exec.pp_schedule=zb-h2", "exec.optimizer_post_validation=true"}, Moves::Time,
         "zb-h2's stages start the next step apart: the step is the longest stage's span"},
        {"grouped_gemm", kMoe, {}, {"exec.grouped_gemm=false"}, Moves::Time, "one GEMM per local expert"},
        {"activation_func_fp8_input_store", kDense, {}, {"exec.activation_func_fp8_input_store=true"}, Moves::Memory,
         "the SwiGLU input kept in FP8"},
        {"vocab_emb_dp", kOneBatch, {}, {"exec.vocab_emb_dp=true"}, Moves::Memory, "seed derive.py shard_embed"},
        {"tie_embeddings", kOneBatch, {"model.tie_word_embeddings=true"},
         {"model.tie_word_embeddings=true", "exec.tie_embeddings=false"}, Moves::Memory, "an untied output table"},
        {"cp_algo", kDense, {"exec.cp=2", "exec.dp=2"}, {"exec.cp=2", "exec.dp=2", "exec.cp_algo=ulysses_cp"}, Moves::Memory,
         "the ring's KV buffers or the all-to-all's"},
        {"capacity_factor", kMoe, {"exec.grouped_gemm=false"}, {"exec.grouped_gemm=false", "exec.capacity_factor=1.5"},
         Moves::Memory, "tokens padded to capacity"},
        {"shard_mtp_param", kMtp, {}, {"exec.shard_mtp_param=false"}, Moves::Memory, "seed tail.py MTP projection"},
        {"frozen", kDense, {}, {"exec.frozen=true"}, Moves::Memory, "no gradients or states"},
        {"optimizer", kDense, {}, {"exec.optimizer=muon"}, Moves::Memory, "Muon keeps one state"},
        {"compute_dtype", kDense, {}, {"exec.compute_dtype=fp8"}, Moves::Time, "the device's fp8 peak"},
        {"fp8_recipe", kDense, {"exec.compute_dtype=fp8"}, {"exec.compute_dtype=fp8", "exec.fp8_recipe=tensorwise"},
         Moves::Time, "current scaling reads each cast tensor once more for its amax"},
        {"fp8_attention", kDense, {"exec.compute_dtype=fp8"}, {"exec.compute_dtype=fp8", "exec.fp8_attention=true"},
         Moves::Time, "the attention core at the FP8 peak"},
        {"attention_output_e5m6", kDense, {"exec.compute_dtype=fp8"}, {"exec.compute_dtype=fp8", "exec.attention_output_e5m6=true"},
         Moves::Memory, "the attention output kept once at 1.5 bytes, not at 2 beside an FP8 copy"},
        {"fp8_params", kDense, {"exec.compute_dtype=fp8", "exec.optimizer_parallel=true"},
         {"exec.compute_dtype=fp8", "exec.optimizer_parallel=true", "exec.fp8_params=true"}, Moves::Memory,
         "the FP8 weights without their BF16 parameter"},
        {"fp8_reduce_scatter", kDense, {"exec.compute_dtype=fp8", "exec.sequence_parallel=true", "exec.tp_comm_overlap=true"},
         {"exec.compute_dtype=fp8", "exec.sequence_parallel=true", "exec.tp_comm_overlap=true", "exec.fp8_reduce_scatter=true"},
         Moves::Time, "the forward reduce-scatters at one byte an element"},
        {"seq_length", kDense, {}, {"exec.seq_length=8192"}, Moves::Memory, "tokens per sequence"},
        {"train_tokens", kDense, {"exec.train_tokens=1000000000000"}, {"exec.train_tokens=15000000000000"}, Moves::Days,
         "the run's steps at the priced step time; no byte or second of a step"},
        {"visual_seq_len", kVision, {}, {"exec.visual_seq_len=1024"}, Moves::Memory, "the vision tower's patches on the first stage"},
        {"vision_partition", kVision, {}, {"exec.vision_partition=[16, 16]", "exec.pp_partition=[0, 32]"}, Moves::Memory,
         "MindSpeed-MM's vision_encoder pipeline_num_layers: half the tower's blocks on the second stage, with every text layer"},
        {"freeze_vision_tower", kVision, {}, {"exec.freeze_vision_tower=true"}, Moves::Memory,
         "MindSpeed vision_encoder.freeze: no gradients, states or kept activations for the tower"},
        {"device_memory", kDense, {}, {"exec.device_memory=40 GiB"}, Moves::Budget, "the budget"},
        {"memory_reserve", kDense, {}, {"exec.memory_reserve=0"}, Moves::Memory, "the seed's 1 GiB safety buffer"},
        {"activation_offload", kDense, {}, {"exec.activation_offload=4"}, Moves::Memory,
         "Megatron-LM --cpu-offloading-num-layers: four layers' activations on the host"},
        {"host_link_overlap", kDense, {"exec.activation_offload=8"}, {"exec.activation_offload=8", "exec.host_link_overlap=0"},
         Moves::Time, "copies hidden behind none of the compute"},
        {"optimizer_offload", kDense, {}, {"exec.optimizer_offload=1"}, Moves::Memory,
         "Megatron-LM --optimizer-cpu-offload --optimizer-offload-fraction 1"},
        {"optimizer_offload_overlap", kDense, {"exec.optimizer_offload=1"},
         {"exec.optimizer_offload=1", "exec.optimizer_offload_overlap=true"}, Moves::Time,
         "Megatron-LM --overlap-cpu-optimizer-d2h-h2d"},
    };
    return kRows;
}

// The unpriced fields stated with a value Tessera does not price.
const std::map<std::string, QString>& unpricedStatements() {
    static const std::map<std::string, QString> kStated = {
        {"seq_split", "exec.seq_split=4"},       {"param_casts", "exec.param_casts=true"},
        {"emb_out_in_offset", "exec.emb_out_in_offset=true"}, {"expert_shard_group", "exec.expert_shard_group=false"},
        {"emb_dp_sharded", "exec.emb_dp_sharded=true"},
    };
    return kStated;
}

}  // namespace

class TestPriced : public QObject {
    Q_OBJECT
private slots:
    // Every field of the table: a row or the mark, never neither.
    void everyFieldIsPricedOrMarked() {
        FieldKeys lister;
        ExecSpec spec;
        visit(spec, lister);
        QVERIFY(lister.keys.size() >= 60);
        std::set<std::string> withRow;
        for (const Row& r : rows()) withRow.insert(r.key);
        QStringList missing;
        for (const std::string& key : lister.keys) {
            const bool marked = std::any_of(unpricedFields().begin(), unpricedFields().end(),
                                            [&](const UnpricedField& f) { return f.key == key; });
            if (!withRow.contains(key) && !marked) missing << QString::fromStdString("exec." + key);
            if (withRow.contains(key) && marked) missing << QString::fromStdString("exec." + key + " (both a row and the mark)");
        }
        QVERIFY2(missing.isEmpty(), qPrintable("neither an effect row nor the not-priced mark: " + missing.join(", ")));
    }

    void statedTwoWaysPricesTwoWays_data() {
        QTest::addColumn<int>("row");
        for (std::size_t i = 0; i < rows().size(); ++i) QTest::newRow(rows()[i].key) << int(i);
    }
    void statedTwoWaysPricesTwoWays() {
        QFETCH(int, row);
        const Row& r = rows()[std::size_t(row)];
        const Outcome a = price(r.base, r.a), b = price(r.base, r.b);
        if (r.moves == Moves::Verdict) {
            QVERIFY2(a.refused.empty() != b.refused.empty(), qPrintable(QString::fromStdString(a.refused + " | " + b.refused)));
            return;
        }
        QVERIFY2(a.refused.empty() && b.refused.empty(), qPrintable(QString::fromStdString(a.refused + " | " + b.refused)));
        switch (r.moves) {
        case Moves::Memory: QVERIFY2(!sameMemory(a.estimate, b.estimate), r.why); break;
        case Moves::Time: QVERIFY2(a.estimate.stepSeconds != b.estimate.stepSeconds, r.why); break;
        case Moves::Budget: QVERIFY2(a.estimate.deviceMemory != b.estimate.deviceMemory, r.why); break;
        case Moves::Days:
            QVERIFY2(a.estimate.trainDays && b.estimate.trainDays && *a.estimate.trainDays != *b.estimate.trainDays, r.why);
            QCOMPARE(a.estimate.stepSeconds, b.estimate.stepSeconds);
            QVERIFY(sameMemory(a.estimate, b.estimate));
            break;
        case Moves::Verdict: break;
        }
    }

    // An unpriced field changes nothing - and says so, in `show`, `estimate` and the GUI.
    void unpricedFieldsChangeNothingAndSaySo_data() {
        QTest::addColumn<QString>("key");
        for (const UnpricedField& f : unpricedFields()) QTest::newRow(f.key.data()) << QString::fromUtf8(f.key.data(), int(f.key.size()));
    }
    void unpricedFieldsChangeNothingAndSaySo() {
        QFETCH(QString, key);
        const auto it = unpricedStatements().find(key.toStdString());
        QVERIFY2(it != unpricedStatements().end(), "an unpriced field without a statement to check");
        const char* base = key == "expert_shard_group" ? kMoe : kDense;
        const Outcome plain = price(base, {}), stated = price(base, {it->second});
        QVERIFY2(stated.refused.empty(), stated.refused.c_str());
        QVERIFY(sameMemory(plain.estimate, stated.estimate));
        QCOMPARE(plain.estimate.stepSeconds, stated.estimate.stepSeconds);
        Value doc = parseDocument(base, "row.yaml", Format::Yaml);
        applyOverride(doc, it->second.toStdString());
        const std::vector<NotPriced> reported = notPriced(resolve(scenarioFromValue(doc, "row.yaml", "")).scenario.exec);
        QCOMPARE(int(reported.size()), 1);
        QCOMPARE(QString::fromStdString(reported.front().key), "exec." + key);
        QVERIFY(notPriced(resolve(scenarioFromValue(parseDocument(base, "row.yaml", Format::Yaml), "row.yaml", "")).scenario.exec).empty());
    }

    // A capacity factor beside grouped_gemm: true (dropless experts, the seed's gmm, as
    // its DeepSeek search file states) pads nothing: it is read, priced as no padding,
    // and marked - where grouped_gemm: false prices it (the capacity_factor row).
    void capacityFactorBesideDroplessExpertsIsMarked() {
        const Outcome plain = price(kMoe, {}), stated = price(kMoe, {"exec.capacity_factor=1.5"});
        QVERIFY2(stated.refused.empty(), stated.refused.c_str());
        QVERIFY(sameMemory(plain.estimate, stated.estimate));
        QCOMPARE(plain.estimate.stepSeconds, stated.estimate.stepSeconds);
        Value doc = parseDocument(kMoe, "row.yaml", Format::Yaml);
        applyOverride(doc, "exec.capacity_factor=1.5");
        const std::vector<NotPriced> reported = notPriced(resolve(scenarioFromValue(doc, "row.yaml", "")).scenario.exec);
        QCOMPARE(int(reported.size()), 1);
        QCOMPARE(QString::fromStdString(reported.front().key), QStringLiteral("exec.capacity_factor"));
        QVERIFY(QString::fromStdString(reported.front().why).contains("dropless"));
        applyOverride(doc, "exec.grouped_gemm=false");
        QVERIFY(notPriced(resolve(scenarioFromValue(doc, "row.yaml", "")).scenario.exec).empty());
    }

    // DeepSeek-V3 §3.3.2's E5M6: an FP8 run with flash attention keeps the attention output
    // twice (BF16 for the attention backward, FP8 for the projection's weight gradient, 3
    // bytes an element); E5M6 keeps it once at 1.5. Llama-3 8B at tp 2, one micro-batch in
    // flight: 32 layers x 4096 tokens x 4096 / 2 elements x 1.5 bytes fewer, to the byte.
    void e5m6KeepsTheAttentionOutputOnce() {
        const Outcome two = price(kOneBatch, {"exec.compute_dtype=fp8"});
        const Outcome once = price(kOneBatch, {"exec.compute_dtype=fp8", "exec.attention_output_e5m6=true"});
        QVERIFY2(two.refused.empty() && once.refused.empty(), (two.refused + once.refused).c_str());
        const Bytes saved = two.estimate.stages[0].memory.activations - once.estimate.stages[0].memory.activations;
        QCOMPARE(saved, Bytes(32) * 4096 * 4096 / 2 * 3 / 2);
        QCOMPARE(once.estimate.stepSeconds, two.estimate.stepSeconds);
        const Outcome bf16 = price(kOneBatch, {"exec.attention_output_e5m6=true"});
        QVERIFY2(bf16.refused.find("exec.attention_output_e5m6") != std::string::npos, bf16.refused.c_str());
    }

    // fp8_params (Megatron-LM --fp8-param-gather): the FP8 weight is the parameter, so
    // each FP8 GEMM's weight drops its two BF16 bytes and keeps its two FP8 ones. Llama-3
    // 8B at tp 2: 32 layers of q, o (4096 x 4096), k, v (4096 x 1024) and three 4096 x
    // 14336 MLP matrices, halved, two bytes each fewer, to the byte; the distributed
    // optimizer gathers them at one byte, so the step is no slower. Refused outside FP8,
    // and without the distributed optimizer or under FSDP.
    void fp8ParamsStoreTheWeightOnce() {
        const Outcome copies = price(kOneBatch, {"exec.compute_dtype=fp8", "exec.optimizer_parallel=true"});
        const Outcome once = price(kOneBatch, {"exec.compute_dtype=fp8", "exec.optimizer_parallel=true", "exec.fp8_params=true"});
        QVERIFY2(copies.refused.empty() && once.refused.empty(), (copies.refused + once.refused).c_str());
        const Bytes saved = copies.estimate.stages[0].memory.parameters - once.estimate.stages[0].memory.parameters;
        const Bytes perLayer = 2 * Bytes(4096) * 4096 + 2 * Bytes(4096) * 1024 + 3 * Bytes(4096) * 14336;
        QCOMPARE(saved, Bytes(32) * perLayer / 2 * 2);
        QVERIFY(once.estimate.stepSeconds < copies.estimate.stepSeconds);
        for (const QStringList& refused :
             {QStringList{"exec.fp8_params=true"},
              {"exec.compute_dtype=fp8", "exec.optimizer_parallel=false", "exec.fp8_params=true"},
              {"exec.compute_dtype=fp8", "exec.optimizer_parallel=true", "exec.grad_shard=true", "exec.grad_shard_as_params=true",
               "exec.fp8_params=true"}}) {
            const Outcome o = price(kOneBatch, refused);
            QVERIFY2(o.refused.find("exec.fp8_params") != std::string::npos, o.refused.c_str());
        }
    }

    // fp8_reduce_scatter (NeMo's proj_fprop / fc2_fprop fp8_buf): the forward's two
    // reduce-scatters move one byte an element; the all-gathers already do under FP8
    // userbuffers, and the backward's reduce-scatters stay BF16. Of a layer's twelve
    // byte-units of TP traffic (two pairs a direction, each an FP8 gather and a BF16
    // scatter) two go: the TP time drops by a sixth, less the latencies that stay.
    void fp8ReduceScatterHalvesTheForwardScatters() {
        const QStringList overlap{"exec.compute_dtype=fp8", "exec.sequence_parallel=true", "exec.tp_comm_overlap=true"};
        const Outcome bf16 = price(kOneBatch, overlap);
        const Outcome fp8 = price(kOneBatch, overlap + QStringList{"exec.fp8_reduce_scatter=true"});
        QVERIFY2(bf16.refused.empty() && fp8.refused.empty(), (bf16.refused + fp8.refused).c_str());
        const double ratio = fp8.estimate.stages[0].time.tp / bf16.estimate.stages[0].time.tp;
        QVERIFY2(ratio > 5.0 / 6 - 0.03 && ratio < 5.0 / 6 + 0.03, qPrintable(QString::number(ratio)));
        QVERIFY(fp8.estimate.stepSeconds < bf16.estimate.stepSeconds);
        QCOMPARE(fp8.estimate.stages[0].memory.activations, bf16.estimate.stages[0].memory.activations);
        for (const QStringList& refused : {QStringList{"exec.sequence_parallel=true", "exec.tp_comm_overlap=true",
                                                       "exec.fp8_reduce_scatter=true"},
                                           QStringList{"exec.compute_dtype=fp8", "exec.fp8_reduce_scatter=true"}}) {
            const Outcome o = price(kOneBatch, refused);
            QVERIFY2(o.refused.find("exec.fp8_reduce_scatter") != std::string::npos, o.refused.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestPriced)
#include "tst_priced.moc"
