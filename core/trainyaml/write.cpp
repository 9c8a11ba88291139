#include "trainyaml/trainyaml.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <span>

#include "doc/emit.h"
#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"

#include "trainyaml/shared.h"

namespace tessera::core {

using namespace trainyaml;
namespace fs = std::filesystem;


// Writing: the resolved train.yaml for a strategy.

namespace {

// Each layer's recompute option in model order (body, then MTP layers).
std::vector<std::string> layerOptions(const ResolvedScenario& r) {
    const ExecSpec& e = r.scenario.exec;
    const ModelSpec& m = r.scenario.model;
    const auto layers = static_cast<std::size_t>(*m.num_hidden_layers + m.mtp_depth.value_or(0));
    std::vector<std::string> out(layers, "none");
    if (e.recompute) {
        for (const RecomputeRange& range : *e.recompute) {
            const auto first = static_cast<std::size_t>(range.first);
            const std::size_t end = range.count ? first + static_cast<std::size_t>(*range.count) : layers;
            for (std::size_t i = first; i < std::min(end, layers); ++i) out[i] = range.option;
        }
        return out;
    }
    // The per-stage forms count the first layers of every chunk on every stage;
    // full goes last so it wins where both are stated, as the cost model does.
    auto apply = [&](const std::optional<StageCounts>& counts, const std::string& option) {
        if (!counts) return;
        std::size_t layer = 0;
        for (std::size_t c = 0; c < r.partition.layers.size(); ++c) {
            for (std::size_t s = 0; s < r.partition.layers[c].size(); ++s) {
                const std::int64_t held = r.partition.layers[c][s];
                std::int64_t n = 0;
                if (auto* all = std::get_if<bool>(&counts->value)) n = *all ? held : 0;
                else if (auto* one = std::get_if<std::int64_t>(&counts->value)) n = *one;
                else if (auto* flat = std::get_if<StageCounts::Flat>(&counts->value)) n = s < flat->size() ? (*flat)[s] : 0;
                else if (auto* nested = std::get_if<StageCounts::Nested>(&counts->value))
                    n = c < nested->size() && s < (*nested)[c].size() ? (*nested)[c][s] : 0;
                for (std::int64_t i = 0; i < std::min(n, held); ++i)
                    if (layer + static_cast<std::size_t>(i) < layers) out[layer + static_cast<std::size_t>(i)] = option;
                layer += static_cast<std::size_t>(held);
            }
        }
    };
    apply(e.selective_recompute, "selective");
    apply(e.full_recompute, "full");
    return out;
}

// A section of the document to write into, made when the file has none.
Value& sectionOf(Value& parent, const std::string& key, const std::string& path) {
    Value* v = parent.find(key);
    if (!v || v->isNull()) {
        parent.set(key, Value::map());
        return *parent.find(key);
    }
    if (!v->isMap())
        throw SpecError(Diagnostic{v->mark(), path, "expected a mapping to write the strategy into, got " + v->describe()});
    return *v;
}

// Sets `key`, taking the place of an alias the file spells it by (so the order
// stays the user's) and removing the other aliases (so it is not stated twice).
void put(Value& map, std::string_view key, Value v, std::initializer_list<std::string_view> aliases = {}) {
    if (!map.find(key)) {
        for (std::string_view alias : aliases) {
            if (!map.find(alias)) continue;
            Value renamed = Value::map(map.mark());
            for (const Value::Entry& e : map.entries())
                renamed.set(e.key == alias ? std::string(key) : e.key, e.value, e.keyMark);
            map = std::move(renamed);
            break;
        }
    }
    map.set(std::string(key), std::move(v));
    for (std::string_view alias : aliases) map.erase(alias);
}

// The layer placement as the seed's offset (layers beyond the even split per
// stage, per chunk with vpp), or nullopt when the split is even.
std::optional<Value> offsetValue(const ResolvedScenario& r) {
    const auto& grid = r.partition.layers;
    const auto chunks = static_cast<std::int64_t>(grid.size() * grid.front().size());
    const std::int64_t base = r.totalLayers / chunks;
    StageCounts::Nested extra = grid;
    bool even = true;
    for (auto& row : extra)
        for (std::int64_t& n : row) {
            n -= base;
            even = even && n == 0;
        }
    if (even) return std::nullopt;
    if (extra.size() == 1) return stageCountsValue(StageCounts{extra.front()});
    return stageCountsValue(StageCounts{extra});
}

Value minimalTrainYaml(const ResolvedScenario& r) {
    const ModelSpec& m = r.scenario.model;
    // Only what the scenario stated: the family fills the rest again on reading.
    const Value stated = SpecWriter::write(m);
    Value overrides = Value::map();
    for (const Value::Entry& e : stated.entries())
        if (e.key != "name" && !r.filled.contains("model." + e.key)) overrides.set(e.key, e.value);
    Value model = Value::map();
    model.set("name", Value::string(m.name.value_or(*m.arch)));
    model.set("config_overrides", std::move(overrides));
    Value doc = Value::map();
    doc.set("model", std::move(model));
    for (const char* section : {"training", "accelerator", "fsdp_config", "activation_checkpoint", "dataset"})
        doc.set(section, Value::map());
    return doc;
}

}  // namespace

CheckpointPlan checkpointPlan(const ResolvedScenario& r) {
    const std::vector<std::string> options = layerOptions(r);
    CheckpointPlan plan;
    if (options.empty()) return plan;
    std::map<std::string, std::size_t> counts;
    for (const std::string& o : options) ++counts[o];
    std::string base = options.front();
    for (const auto& [option, n] : counts)
        if (n > counts[base]) base = option;
    plan.mode = modeOf(base);
    for (std::size_t i = 0; i < options.size();) {
        std::size_t j = i;
        while (j + 1 < options.size() && options[j + 1] == options[i]) ++j;
        if (options[i] != base)
            plan.layers.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), modeOf(options[i])});
        i = j + 1;
    }
    return plan;
}

std::vector<std::string> trainYamlUnexpressed(const ResolvedScenario& r) {
    // Besides Tessera's own settings (tesseraOnlyReason), what the AutoModels schema has no key for.
    static const std::pair<const char*, const char*> kNowhere[] = {
        {"train_tokens", "the AutoModels train.yaml has no step or token count; the run's length is set where it is launched"},
        {"visual_seq_len", "the seed reads it from context.visual_seq_len, and the trainer refuses a context section, so it "
                           "is not written"},
        {"freeze_vision_tower", "Tessera writes no train.yaml key that freezes the vision tower"},
        {"attention_output_e5m6", "the AutoModels schema has no storage format for the attention output (DeepSeek-V3's "
                                  "E5M6 is its own)"},
        {"optimizer_post_validation", "the AutoModels schema has no optimizer post-validation switch (the zero-bubble "
                                      "fork's --enable-optimizer-post-validation)"},
        {"vision_partition", "the seed places a vision tower by its own sub-model's offset, which Tessera does not write; "
                             "the trainer would run the whole tower on stage 0"},
        {"device_memory", ""}, {"memory_reserve", ""}, {"host_link_overlap", ""},
        {"selective_rule", ""},  // worded below, with the rule
    };
    const Value stated = scenarioValue(r.scenario);
    const Value* exec = stated.find("exec");
    std::vector<std::string> out;
    for (const auto& [key, why] : kNowhere) {
        const std::string path = std::string("exec.") + key;
        if (!exec || !exec->find(key) || r.filled.contains(path)) continue;
        if (std::string_view(key) == "freeze_vision_tower" && !*r.scenario.exec.freeze_vision_tower) continue;  // false: nothing lost
        if (std::string_view(key) == "optimizer_post_validation" && !*r.scenario.exec.optimizer_post_validation) continue;
        if (std::string_view(key) == "attention_output_e5m6" && !*r.scenario.exec.attention_output_e5m6) continue;
        // The rule a train.yaml itself implies (read back from one) is not a loss.
        if (std::string_view(key) == "selective_rule" && *r.scenario.exec.selective_rule == "hyperparallel") continue;
        if (std::string_view(key) == "selective_rule")
            out.push_back(path + ": the trainer's selective checkpointing runs its own policy (priced as selective_rule: "
                                 "hyperparallel), not " + *r.scenario.exec.selective_rule + "'s, wherever a layer recomputes selectively");
        else
            out.push_back(path + ": " + (*why ? std::string(why) : std::string(tesseraOnlyReason(key))));
    }
    return out;
}

std::string trainYaml(const ResolvedScenario& r, const Value* original) {
    const ExecSpec& e = r.scenario.exec;
    const std::int64_t dp = *e.dp, mbs = *e.micro_batch_size, mbn = *e.micro_batch_num, gbs = *e.global_batch_size;
    // The trainer has no micro-batch count: it divides the global batch by
    // micro_batch_size · dp. Anything else would run a strategy nobody priced.
    if (gbs != mbn * mbs * dp)
        throw SpecError(Diagnostic{r.scenario.markOf("exec.global_batch_size"), "exec.global_batch_size",
                                   "resolved strategy is inconsistent with the trainer batch derivation: global_batch_size " +
                                       num(gbs) + " != micro_batch_num · micro_batch_size · dp = " + num(mbn) + "·" +
                                       num(mbs) + "·" + num(dp) + " = " + num(mbn * mbs * dp)});
    Value doc = original ? *original : minimalTrainYaml(r);
    if (!doc.isMap())
        throw SpecError(Diagnostic{doc.mark(), "", "a train.yaml is a mapping of sections, got " + doc.describe()});
    if (const Value* train = doc.find("train"))
        throw SpecError(Diagnostic{train->mark(), "train",
                                   "this is the older train: schema; Tessera writes the AutoModels schema "
                                   "(model, training, accelerator, fsdp_config, activation_checkpoint, dataset)"});
    doc.erase("context");

    // An uneven placement goes where the seed's parser reads it; an even one needs none.
    if (std::optional<Value> offset = offsetValue(r))
        put(sectionOf(sectionOf(doc, "model", "model"), "config_overrides", "model.config_overrides"), "offset", std::move(*offset));
    else if (Value* model = doc.find("model"); model && model->isMap() && model->find("config_overrides"))
        if (Value* overrides = model->find("config_overrides"); overrides->isMap()) overrides->erase("offset");

    // Every section written below is made here, in the order a new one is appended:
    // a reference into the document stays valid only while nothing is added beside it,
    // so no later sectionOf() may grow `doc` under a reference still in use.
    for (const char* section : {"training", "accelerator", "fsdp_config", "activation_checkpoint", "dataset"})
        (void)sectionOf(doc, section, section);

    Value& training = sectionOf(doc, "training", "training");
    put(training, "global_batch_size", Value::integer(gbs));
    put(training, "micro_batch_size", Value::integer(mbs));
    training.erase("micro_batch_num");

    Value& acc = sectionOf(doc, "accelerator", "accelerator");
    put(acc, "tp_size", Value::integer(*e.tp), {"tp_degree"});
    put(acc, "pp_size", Value::integer(*e.pp), {"pipeline_parallel_degree"});
    put(acc, "cp_size", Value::integer(*e.cp), {"context_parallel_degree"});
    put(acc, "ep_size", Value::integer(*e.ep), {"expert_parallel_degree"});
    if (*e.vpp > 1) put(acc, "pp_interleave_num", Value::integer(*e.vpp));
    else acc.erase("pp_interleave_num");
    // HyperParallel's schedulers are 1f1b (interleaved with pp_interleave_num), gpipe,
    // seqpipe, seqsmartvpp and zero_bubble_v (zbv): zb-h1, zb-h2, dualpipe, dualpipev, v-half
    // and v-min have no spelling there.
    if (*e.pp_schedule == "zb-h1" || *e.pp_schedule == "zb-h2" || *e.pp_schedule == "dualpipe" || *e.pp_schedule == "dualpipev" ||
        *e.pp_schedule == "v-half" || *e.pp_schedule == "v-min")
        throw SpecError(Diagnostic{r.scenario.markOf("exec.pp_schedule"), "exec.pp_schedule",
                                   "HyperParallel's accelerator.pipeline_scheduler has no " + *e.pp_schedule +
                                   " (its schedulers are 1f1b, gpipe, seqpipe, seqsmartvpp and zero_bubble_v), so this "
                                   "strategy cannot be written as a train.yaml; state 1f1b to export it (priced differently)"});
    if (*e.pp_schedule == "seqpipe" || *e.pp_schedule == "seqsmartvpp")
        throw SpecError(Diagnostic{r.scenario.markOf("exec.pp_schedule"), "exec.pp_schedule",
                                   "HyperParallel names a " + *e.pp_schedule + " scheduler, but no train.yaml key for the "
                                   "seq_split it runs is known here (reference §7), so this strategy cannot be written "
                                   "without guessing it; state " + (*e.pp_schedule == "seqpipe" ? "1f1b" : "1f1b with vpp") +
                                   " to export it (priced differently)"});
    put(acc, "pipeline_scheduler", Value::string(*e.pp_schedule == "interleaved" ? "1f1b"
                                                 : *e.pp_schedule == "zbv"        ? "zero_bubble_v"
                                                                                  : *e.pp_schedule));
    put(acc, "sequence_parallel", Value::boolean(*e.sequence_parallel), {"use_seq_parallel"});
    put(acc, "context_parallel_algo", Value::string(*e.cp_algo));
    // HyperParallel's expert_tensor_parallel_degree is the seed's etp: at most 1 means the
    // dense tp (resolve/expertgrid.h), so experts whole beside tp > 1 (Megatron-LM's
    // --expert-tensor-parallel-size 1) have no spelling there: refused rather than written
    // as experts at tp. A degree at tp is written out when the seed's estimator would read
    // an unstated one as 1 (it does when tp·ep passes dp·tp, reference §4.2).
    const ModelSpec& m = r.scenario.model;
    const std::int64_t expertDegree = isMoe(m) ? expertTp(e) : e.etp.value_or(0);
    if (isMoe(m) && expertDegree == 1 && *e.tp > 1)
        throw SpecError(Diagnostic{r.scenario.markOf("exec.expert_tp"), "exec.expert_tp",
                                   "HyperParallel's accelerator.expert_tensor_parallel_degree reads 1 or less as the dense "
                                   "tp (" + num(*e.tp) + "), so experts whole on each ep rank (expert_tp: 1 beside tp " +
                                   num(*e.tp) + ") cannot be written as a train.yaml; state expert_tp: " + num(*e.tp) +
                                   " to export it (priced differently)"});
    if (expertDegree > 1 && (e.etp.value_or(0) > 1 || expertDegree != *e.tp || *e.ep > dp))
        put(acc, "expert_tensor_parallel_degree", Value::integer(expertDegree));
    else acc.erase("expert_tensor_parallel_degree");
    // The FSDP degree below is the whole sharding statement; these would override it.
    for (const char* key : {"dp_replicate", "dp_shard", "micro_batch_num", "optimizer_weight_shard_size"}) acc.erase(key);

    // AutoModels shards only with FSDP: dp_shard_size shards parameters, gradients and
    // optimizer states alike. A ZeRO-1/2 strategy has no spelling there, so it is refused
    // rather than written as the FSDP run it would read back as.
    if (*e.optimizer_parallel && !*e.grad_shard_as_params)
        throw SpecError(Diagnostic{r.scenario.markOf("exec.optimizer_parallel"), "exec.optimizer_parallel",
                                   "HyperParallel's AutoModels trainer shards optimizer states only with FSDP "
                                   "(fsdp_config.dp_shard_size shards parameters, gradients and states); this strategy "
                                   "shards " + std::string(*e.grad_shard ? "gradients and states (ZeRO-2)" : "states only (ZeRO-1)") +
                                   ", which it cannot run: state grad_shard_as_params: true to export FSDP (priced differently)"});
    // Offload has no train.yaml spelling (the seed prices it as advice only: "the trainer
    // cannot offload yet", reference §6.7): refused, not written as a run without it.
    const bool activationOffload = !(std::holds_alternative<std::int64_t>(e.activation_offload->value) &&
                                     std::get<std::int64_t>(e.activation_offload->value) == 0) &&
                                   !(std::holds_alternative<StageCounts::Flat>(e.activation_offload->value) &&
                                     std::all_of(std::get<StageCounts::Flat>(e.activation_offload->value).begin(),
                                                 std::get<StageCounts::Flat>(e.activation_offload->value).end(),
                                                 [](std::int64_t k) { return k == 0; }));
    for (const auto& [on, key] : {std::pair{activationOffload, "exec.activation_offload"},
                                  std::pair{*e.optimizer_offload > 0, "exec.optimizer_offload"}})
        if (on)
            throw SpecError(Diagnostic{r.scenario.markOf(key), key,
                                       "HyperParallel's train.yaml has no offload switch, so this strategy cannot be "
                                       "written as one (Megatron-LM runs it: --cpu-offloading, --optimizer-cpu-offload); "
                                       "state 0 to export the strategy without offload (priced differently)"});
    // Megatron's combined 1F1B changes the schedule's order and its price; HyperParallel
    // has no such scheduler.
    if (*e.overlap_moe_expert_parallel_comm)
        throw SpecError(Diagnostic{r.scenario.markOf("exec.overlap_moe_expert_parallel_comm"),
                                   "exec.overlap_moe_expert_parallel_comm",
                                   "HyperParallel's train.yaml has no schedule that pairs micro-batches to hide the expert "
                                   "all-to-all (Megatron-LM runs it: --overlap-moe-expert-parallel-comm), so this strategy "
                                   "cannot be written as one; state false to export it without (priced differently)"});
    // Its trainer states no FP8 training: an FP8 run's price (its GEMMs at the FP8 peak, the
    // casts, the FP8 weight copies) would not be the run the file launches.
    if (*e.compute_dtype == "fp8")
        throw SpecError(Diagnostic{r.scenario.markOf("exec.compute_dtype"), "exec.compute_dtype",
                                   "HyperParallel's train.yaml has no FP8 switch (Megatron-LM runs it: --fp8-format "
                                   "hybrid --fp8-recipe " + *e.fp8_recipe + "), so this strategy cannot be written as one; "
                                   "state compute_dtype: bf16 to export it in BF16 (priced differently)"});
    // Its MoE layers dispatch with a plain all-to-all; DeepEP's two-step route is priced
    // cheaper over the network, so a run that asks for it cannot be written as one without.
    if (*e.moe_enable_deepep)
        throw SpecError(Diagnostic{r.scenario.markOf("exec.moe_enable_deepep"), "exec.moe_enable_deepep",
                                   "HyperParallel's train.yaml has no DeepEP dispatcher (Megatron-LM runs it: "
                                   "--moe-token-dispatcher-type flex --moe-enable-deepep), so this strategy cannot be "
                                   "written as one; state false to export it with the plain all-to-all (priced differently)"});
    Value& fsdp = sectionOf(doc, "fsdp_config", "fsdp_config");
    put(fsdp, "dp_shard_size", Value::integer(*e.optimizer_parallel ? *e.optimizer_shard : 1));
    if (*e.optimizer_parallel) put(fsdp, "reshard_after_forward", Value::boolean(*e.reshard_params));
    put(acc, "loss_parallel", Value::boolean(*e.loss_parallel));

    const CheckpointPlan plan = checkpointPlan(r);
    Value& checkpoint = sectionOf(doc, "activation_checkpoint", "activation_checkpoint");
    put(checkpoint, "mode", Value::string(plan.mode));
    if (plan.layers.empty()) {
        checkpoint.erase("layers");
    } else {
        Value layers = Value::map();
        for (const CheckpointRange& range : plan.layers)
            layers.set(range.first == range.last ? num(range.first) : num(range.first) + "-" + num(range.last),
                       Value::string(range.mode));
        put(checkpoint, "layers", std::move(layers));
    }

    Value& dataset = sectionOf(doc, "dataset", "dataset");
    put(sectionOf(dataset, "data_transform", "dataset.data_transform"), "max_seq_len", Value::integer(*e.seq_length));
    // Lower-priority spellings of the length keep their place but not a stale value.
    if (Value* config = dataset.find("data_config"); config && config->isMap() && config->find("seq_length"))
        config->set("seq_length", Value::integer(*e.seq_length));
    if (Value* data = doc.find("data"); data && data->isMap() && data->find("max_seq_len"))
        data->set("max_seq_len", Value::integer(*e.seq_length));
    std::string header;
    if (const std::vector<std::string> no = trainYamlUnexpressed(r); !no.empty()) {
        header = "# Not expressed (stated in the scenario, no train.yaml key for it):\n";
        for (const std::string& line : no) header += "#   " + line + "\n";
    }
    return header + toYaml(doc);
}

}  // namespace tessera::core
