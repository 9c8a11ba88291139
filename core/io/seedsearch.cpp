#include "io/seedsearch.h"

#include <algorithm>
#include <cctype>

#include "io/specreader.h"

namespace tessera::core {

namespace {

const Value* present(const Value& map, std::string_view key) {
    const Value* v = map.isMap() ? map.find(key) : nullptr;
    return v && !v->isNull() ? v : nullptr;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// A parallelism entry: scalar -> exec value, list -> search candidates, auto -> auto.
void dimension(const Value& parallelism, std::string_view seedKey, const std::string& key, Value& exec, Value& space) {
    const Value* v = present(parallelism, seedKey);
    if (!v || (v->kind() == Value::Kind::String && v->asString() == "auto")) {
        space.set(key, Value::string("auto", v ? v->mark() : parallelism.mark()));
        return;
    }
    if (v->isList()) space.set(key, *v, v->mark());
    else exec.set(key, *v, v->mark());
}

}  // namespace

bool isSeedSearchConfig(const Value& doc) {
    return doc.isMap() && (present(doc, "parallelism") || present(doc, "constraint") || present(doc, "pp_config"));
}

Value scenarioFromSeedSearch(const Value& config, Diagnostics& d) {
    Value model = Value::map(), exec = Value::map(), cluster = Value::map(), space = Value::map();
    Value constraints = Value::map();
    if (present(config, "train_yaml"))
        d.add(present(config, "train_yaml")->mark(), "train_yaml",
              "a search config that points at a train.yaml: import it with `tessera import-train` and state the model here");

    // Model: ModelSpec fields, plus the run keys the seed keeps beside them.
    static constexpr std::string_view kRunKeys[] = {"local_batch_size", "use_seq_parallel", "optimizer_weight_shard_size",
                                                    "recompute_slice_activation", "visual_seq_len", "seq_length",
                                                    "capacity_factor", "cap_fact", "use_gmm", "gmm", "offset", "full_rec",
                                                    "sel_rec", "moe_enabled", "max_position_embeddings"};
    if (const Value* m = present(config, "model"); m && m->isMap()) {
        for (const Value::Entry& e : m->entries())
            if (std::find(std::begin(kRunKeys), std::end(kRunKeys), e.key) == std::end(kRunKeys))
                model.set(e.key, e.value, e.keyMark);
        if (const Value* mp = present(*m, "max_position_embeddings")) {
            model.set("max_position_embeddings", *mp, mp->mark());
            exec.set("seq_length", *mp, mp->mark());  // the seed's dataset max_seq_len
        } else if (const Value* s = present(*m, "seq_length")) {
            exec.set("seq_length", *s, s->mark());
        } else {
            exec.set("seq_length", Value::integer(4096, m->mark()));  // seed default (§3.6)
        }
        if (const Value* b = present(*m, "local_batch_size")) exec.set("micro_batch_size", *b, b->mark());
        if (const Value* sp = present(*m, "use_seq_parallel")) exec.set("sequence_parallel", *sp, sp->mark());
        if (const Value* cf = present(*m, "capacity_factor")) exec.set("capacity_factor", *cf, cf->mark());
        if (const Value* r = present(*m, "recompute_slice_activation")) exec.set("recompute_slice_activation", *r, r->mark());
        if (!present(*m, "arch")) {
            // The seed infers the family from the name; Tessera asks for it, with a guess.
            const std::string name = present(*m, "name") && present(*m, "name")->kind() == Value::Kind::String
                                         ? lower(present(*m, "name")->asString()) : "";
            const char* arch = name.find("mixtral") != std::string::npos  ? "mixtral"
                               : name.find("deepseek") != std::string::npos ? "deepseek"
                               : name.find("qwen3") != std::string::npos    ? "qwen3"
                               : name.find("qwen") != std::string::npos     ? "qwen"
                               : name.find("gpt") != std::string::npos      ? "gpt"
                                                                            : "llama";
            model.set("arch", Value::string(arch, m->mark()));
        }
        if (!present(*m, "tie_word_embeddings")) model.set("tie_word_embeddings", Value::boolean(false, m->mark()));
    } else {
        d.add(config.mark(), "model", "required: the model the search is for");
    }

    // Cluster.
    if (const Value* c = present(config, "cluster"); c && c->isMap()) {
        std::string device = "ascend-910b";
        if (const Value* t = present(*c, "device_type"); t && t->kind() == Value::Kind::String) {
            const std::string type = lower(t->asString());
            if (type == "a3" || type == "ascend910c" || type == "ascend910_93") device = "ascend-910c";
            else if (type == "v100") device = "v100-32gb";
            else if (type != "a2" && type != "ascend" && type != "ascend910" && type != "ascend910b")
                d.add(t->mark(), "cluster.device_type", "expected a2, a3 or v100 (or their aliases), got " + t->describe());
        }
        Value dev = Value::map(c->mark());
        dev.set("preset", Value::string(device, c->mark()));
        if (const Value* gb = present(*c, "device_memory_gb")) {
            if (gb->kind() == Value::Kind::Int || gb->kind() == Value::Kind::Float)
                dev.set("memory", Value::string(numberText(gb->asDouble()) + " GiB", gb->mark()), gb->mark());
            else d.add(gb->mark(), "cluster.device_memory_gb", "expected a number, got " + gb->describe());
        }
        if (const Value* per = present(*c, "cards_per_node")) dev.set("devices_per_node", *per, per->mark());
        cluster.set("device", dev);
        if (const Value* n = present(*c, "num_nodes")) cluster.set("nodes", *n, n->mark());
        else d.add(c->mark(), "cluster.num_nodes", "required: how many nodes");
    } else {
        d.add(config.mark(), "cluster", "required: num_nodes, cards_per_node, device_memory_gb, device_type");
    }

    // Parallelism: pinned, listed or searched.
    const Value empty = Value::map(config.mark());
    const Value* par = present(config, "parallelism");
    const Value& p = par && par->isMap() ? *par : empty;
    dimension(p, "tp", "tp", exec, space);
    dimension(p, "pp", "pp", exec, space);
    dimension(p, "cp", "cp", exec, space);
    dimension(p, "ep", "ep", exec, space);
    dimension(p, "dp", "dp", exec, space);
    dimension(p, "micro_batch_num", "micro_batch_num", exec, space);
    if (const Value* etp = present(p, "etp")) exec.set("etp", *etp, etp->mark());  // never searched (seed)
    if (const Value* f = present(p, "fsdp")) {
        auto sharded = [](const Value& v) { return v.kind() == Value::Kind::Int && v.asInt() > 1; };
        if (f->isList()) {
            Value list = Value::list(f->mark());
            bool on = false, off = false;
            for (const Value& v : f->items()) (sharded(v) ? on : off) = true;
            if (off) list.push(Value::boolean(false, f->mark()));
            if (on) list.push(Value::boolean(true, f->mark()));
            space.set("grad_shard_as_params", list);
            space.set("optimizer_parallel", Value::string("auto", f->mark()));
        } else if (sharded(*f)) {
            exec.set("optimizer_parallel", Value::boolean(true, f->mark()));
            exec.set("grad_shard_as_params", Value::boolean(true, f->mark()));
        }
    }
    if (const Value* pc = present(config, "pp_config"); pc && pc->isMap()) {
        if (const Value* v = present(*pc, "pp_interleave_num")) exec.set("vpp", *v, v->mark());
        if (const Value* v = present(*pc, "pipeline_schedule"); v && v->kind() == Value::Kind::String)
            exec.set("pp_schedule", Value::string(lower(v->asString()), v->mark()));
    }
    if (const Value* r = present(config, "recompute")) {
        const std::string mode = r->kind() == Value::Kind::String ? r->asString() : "";
        if (mode == "auto" || mode == "per_layer") space.set("recompute", Value::string("auto", r->mark()));
        else if (mode == "none" || mode == "full" || mode == "selective") {
            Value range = Value::map(r->mark());
            range.set("first", Value::integer(0, r->mark()));
            range.set("option", Value::string(mode, r->mark()));
            Value list = Value::list(r->mark());
            list.push(range);
            exec.set("recompute", list);
        } else {
            d.add(r->mark(), "recompute", "expected none, full, selective, auto or per_layer, got " + r->describe());
        }
    }
    if (const Value* c = present(config, "constraint"); c && c->isMap()) {
        if (const Value* g = present(*c, "global_batch_size")) constraints.set("global_batch_size", *g, g->mark());
        if (const Value* m = present(*c, "memory_limit_gb")) constraints.set("memory_limit_gb", *m, m->mark());
    }
    refuseUnknownKeys(config, {"train_yaml", "model", "cluster", "parallelism", "constraint", "recompute", "pp_config", "estimator"},
                      "", d);

    Value search = Value::map(config.mark());
    search.set("space", space);
    search.set("constraints", constraints);
    Value scenario = Value::map(config.mark());
    scenario.set("model", model);
    scenario.set("exec", exec);
    scenario.set("cluster", cluster);
    scenario.set("search", search);
    return scenario;
}

}  // namespace tessera::core
