#include "io/seedsearch.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "io/dtype.h"
#include "io/specreader.h"
#include "spec/execspec.h"
#include "units/units.h"

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

// The same value, written either way (4 and 4.0 alike).
bool same(const Value& a, const Value& b) {
    const bool numbers = (a.kind() == Value::Kind::Int || a.kind() == Value::Kind::Float) &&
                         (b.kind() == Value::Kind::Int || b.kind() == Value::Kind::Float);
    if (numbers) return a.asDouble() == b.asDouble();
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case Value::Kind::Null: return true;
    case Value::Kind::Bool: return a.asBool() == b.asBool();
    case Value::Kind::String: return a.asString() == b.asString();
    case Value::Kind::List:
        return a.items().size() == b.items().size() &&
               std::equal(a.items().begin(), a.items().end(), b.items().begin(), [](const Value& x, const Value& y) { return same(x, y); });
    default: return false;  // mappings are not compared: no seed key holds one
    }
}

bool isAuto(const Value& v) { return v.kind() == Value::Kind::String && lower(v.asString()) == "auto"; }
bool isInt(const Value* v) { return v && v->kind() == Value::Kind::Int; }
bool isText(const Value* v) { return v && v->kind() == Value::Kind::String; }

// One read of a seed search file: the four sections it becomes, and what the
// reader supplies that the file leaves to the seed's defaults.
class SeedReader {
public:
    SeedReader(const Value& config, Diagnostics& d, std::map<std::string, std::string>* assumed)
        : m_config(config), d(d), m_assumed(assumed) {}

    Value read();

private:
    void readModel(const Value& m);
    void readDtypes(const Value& m);
    void readFfnWidth(const Value& m);
    void readCluster(const Value& c);
    void readParallelism(const Value& p);
    void readRecompute();
    void readPipeline(const Value& pc);
    void readEstimator(const Value& est);

    void refuse(const Value& at, const std::string& path, const std::string& message) { d.add(at.mark(), path, message); }
    // `key` of `section` (a Tessera section: model, exec, search.space) holds `v`,
    // which the file does not state; `why` goes beside it in `tessera show`.
    void assume(Value& section, const std::string& sectionPath, const std::string& key, Value v, const std::string& why) {
        const Mark at = v.mark();
        section.set(key, std::move(v), at);
        if (m_assumed) (*m_assumed)[sectionPath + "." + key] = why;
    }
    // The value of either spelling of one key; both, differing, is refused.
    const Value* either(const Value& map, std::string_view a, std::string_view b, const std::string& section) {
        const Value *va = present(map, a), *vb = present(map, b);
        if (va && vb && !same(*va, *vb))
            refuse(*vb, section + "." + std::string(b),
                   "states what " + std::string(a) + " states (" + va->describe() + "), differently: state one");
        return va ? va : vb;
    }

    const Value& m_config;
    Diagnostics& d;
    std::map<std::string, std::string>* m_assumed;
    Value m_model = Value::map(), m_exec = Value::map(), m_cluster = Value::map(), m_space = Value::map();
    Value m_constraints = Value::map();
    std::optional<std::int64_t> m_gbs;
    bool m_shardStated = false;  // optimizer_weight_shard_size fixes the shard
};

// Keys of the seed's `model` section that are not ModelSpec fields: the run it
// keeps beside the model, and its own spellings (reference §3.6).
constexpr std::string_view kModelRunKeys[] = {
    "local_batch_size", "max_position_embeddings", "seq_length", "use_seq_parallel", "compute_dtype", "param_init_type",
    "softmax_compute_type", "use_flash_attention", "moe_enabled", "multiple_of", "ffn_dim_multiplier", "moe_inter_dim",
    "optimizer_weight_shard_size", "recompute_slice_activation", "visual_seq_len", "offset", "full_rec", "sel_rec",
    "capacity_factor", "cap_fact", "use_gmm", "gmm"};

void SeedReader::readModel(const Value& m) {
    for (const Value::Entry& e : m.entries())
        if (std::find(std::begin(kModelRunKeys), std::end(kModelRunKeys), e.key) == std::end(kModelRunKeys))
            m_model.set(e.key, e.value, e.keyMark);

    // The training length: the seed's dataset max_seq_len is max_position_embeddings
    // (seq_length its MindFormers spelling), 4096 when neither is stated.
    if (const Value* s = either(m, "max_position_embeddings", "seq_length", "model")) {
        m_model.set("max_position_embeddings", *s, s->mark());
        m_exec.set("seq_length", *s, s->mark());
    } else {
        assume(m_exec, "exec", "seq_length", Value::integer(4096, m.mark()), "the seed's training length when the model states none");
    }
    if (const Value* b = present(m, "local_batch_size")) m_exec.set("micro_batch_size", *b, b->mark());
    if (const Value* sp = present(m, "use_seq_parallel")) m_exec.set("sequence_parallel", *sp, sp->mark());
    else assume(m_exec, "exec", "sequence_parallel", Value::boolean(true, m.mark()),
                "the seed runs sequence parallelism wherever tp > 1");
    if (const Value* fa = present(m, "use_flash_attention")) m_exec.set("flash_attention", *fa, fa->mark());
    if (const Value* r = present(m, "recompute_slice_activation")) m_exec.set("recompute_slice_activation", *r, r->mark());
    if (const Value* cf = either(m, "capacity_factor", "cap_fact", "model")) m_exec.set("capacity_factor", *cf, cf->mark());
    if (const Value* g = either(m, "use_gmm", "gmm", "model")) m_exec.set("grouped_gemm", *g, g->mark());
    if (const Value* o = present(m, "offset")) m_exec.set("offset", *o, o->mark());
    if (const Value* f = present(m, "full_rec")) m_exec.set("full_recompute", *f, f->mark());
    if (const Value* s = present(m, "sel_rec")) m_exec.set("selective_recompute", *s, s->mark());
    if (const Value* v = present(m, "visual_seq_len")) m_exec.set("visual_seq_len", *v, v->mark());
    if (const Value* os = present(m, "optimizer_weight_shard_size")) {
        if (!isInt(os) || os->asInt() < 0) {
            refuse(*os, "model.optimizer_weight_shard_size", "expected a whole number of ranks (0: the whole group), got " + os->describe());
        } else if (os->asInt() > 0) {  // MindSpore's optimizer parallelism over that many ranks
            m_exec.set("optimizer_parallel", Value::boolean(true, os->mark()), os->mark());
            m_exec.set("optimizer_shard", *os, os->mark());
            m_shardStated = true;
        }
    }
    if (const Value* e = either(m, "moe_intermediate_size", "moe_inter_dim", "model"))
        m_model.set("moe_intermediate_size", *e, e->mark());
    // moe_enabled is derived in the seed (num_experts > 1): one that disagrees is refused.
    if (const Value* moe = present(m, "moe_enabled")) {
        const Value* experts = present(m, "num_experts");
        const bool routed = isInt(experts) && experts->asInt() > 1;
        if (moe->kind() != Value::Kind::Bool)
            refuse(*moe, "model.moe_enabled", "expected true or false, got " + moe->describe());
        else if (moe->asBool() != routed)
            refuse(*moe, "model.moe_enabled",
                   std::string(moe->asBool() ? "true" : "false") + ", but num_experts is " +
                       (experts ? experts->describe() : std::string("not stated")) + " (the seed derives it: num_experts > 1)");
    }
    readDtypes(m);
    readFfnWidth(m);

    // MLA: the non-rotary key width defaults to the value head width (reference §4.5.2).
    if (present(m, "kv_lora_rank") && !present(m, "qk_nope_head_dim")) {
        const Value* v = present(m, "v_head_dim");
        if (isInt(v)) assume(m_model, "model", "qk_nope_head_dim", *v, "the seed's default: v_head_dim");
    }
    if (!present(m, "arch")) {
        // The seed infers the family from the name; Tessera's nearest family.
        const std::string name = isText(present(m, "name")) ? lower(present(m, "name")->asString()) : "";
        const char* arch = name.find("mixtral") != std::string::npos    ? "mixtral"
                           : name.find("deepseek") != std::string::npos ? "deepseek"
                           : name.find("qwen3") != std::string::npos    ? "qwen3"
                           : name.find("qwen") != std::string::npos     ? "qwen"
                           : name.find("gpt") != std::string::npos      ? "gpt"
                                                                        : "llama";
        assume(m_model, "model", "arch", Value::string(arch, m.mark()),
               "inferred from the name, as the seed infers its family (" + std::string(arch) + " is Tessera's nearest)");
    }
    if (!present(m, "tie_word_embeddings"))
        assume(m_model, "model", "tie_word_embeddings", Value::boolean(false, m.mark()), "the seed's default: untied");
}

// The byte widths the seed reads from the model's dtype keys (reference §3.5):
// parameters fp32 and softmax fp32 unless stated, compute bf16.
void SeedReader::readDtypes(const Value& m) {
    auto width = [&](const char* key, const char* bytesKey, const char* nameKey, std::int64_t seedDefault) -> std::int64_t {
        const Value* v = present(m, key);
        if (!v) {
            if (seedDefault) assume(m_exec, "exec", bytesKey, Value::integer(seedDefault, m.mark()),
                                    std::string("the seed's width when ") + key + " is unstated");
            return seedDefault;
        }
        const std::optional<DtypeWidth> dtype = isText(v) ? dtypeOf(v->asString()) : std::nullopt;
        if (!dtype) {
            refuse(*v, "model." + std::string(key), "expected a dtype (bfloat16, float16, float32), got " + v->describe());
            return 0;
        }
        m_exec.set(bytesKey, Value::integer(dtype->bytes, v->mark()), v->mark());
        if (nameKey) m_exec.set(nameKey, Value::string(dtype->name, v->mark()), v->mark());
        return dtype->bytes;
    };
    const std::int64_t params = width("param_init_type", "param_bytes", nullptr, 4);
    width("compute_dtype", "compute_bytes", "compute_dtype", 0);
    width("softmax_compute_type", "softmax_bytes", nullptr, 4);
    // fp32 parameters are the optimizer's own copy: the seed keeps no other (main_param_bytes 0).
    if (params == 4)
        assume(m_exec, "exec", "main_param_bytes", Value::integer(0, m.mark()),
               "the seed keeps no master copy beside fp32 parameters");
}

// MindFormers sizes an FFN it is not given: 4h, times ffn_dim_multiplier (+0.01),
// two thirds of that, rounded up to multiple_of (LlamaFeedForward). A stated
// intermediate_size is used as it is, as MindFormers uses it.
void SeedReader::readFfnWidth(const Value& m) {
    const Value* multiple = present(m, "multiple_of");
    const Value* multiplier = present(m, "ffn_dim_multiplier");
    if (multiple && (!isInt(multiple) || multiple->asInt() < 1))
        return refuse(*multiple, "model.multiple_of", "expected a whole number of at least 1, got " + multiple->describe());
    if (multiplier && !(multiplier->kind() == Value::Kind::Int || multiplier->kind() == Value::Kind::Float))
        return refuse(*multiplier, "model.ffn_dim_multiplier", "expected a number, got " + multiplier->describe());
    if (multiplier && multiplier->asDouble() <= 0)
        return refuse(*multiplier, "model.ffn_dim_multiplier", "expected a positive number, got " + multiplier->describe());
    if (!multiple && !multiplier) return;
    const std::int64_t roundTo = multiple ? multiple->asInt() : 256;  // the seed parser's default
    if (present(m, "intermediate_size")) {
        if (m_assumed)
            (*m_assumed)["model.intermediate_size"] = "as stated: MindFormers rounds to multiple_of " + std::to_string(roundTo) +
                                                      " only a width it derives";
        return;
    }
    const Value* h = present(m, "hidden_size");
    if (!isInt(h) || h->asInt() < 1) return;  // the model reader refuses it
    double width = 4.0 * double(h->asInt());
    if (multiplier) width = std::floor((multiplier->asDouble() + 0.01) * width);
    width = std::floor(2.0 * width / 3.0);
    const std::int64_t rounded = roundTo * ((std::int64_t(width) + roundTo - 1) / roundTo);
    assume(m_model, "model", "intermediate_size", Value::integer(rounded, m.mark()),
           "MindFormers' width: 2/3 of 4·hidden_size" + std::string(multiplier ? " × ffn_dim_multiplier" : "") +
               ", rounded up to multiple_of " + std::to_string(roundTo));
}

void SeedReader::readCluster(const Value& c) {
    std::string device = "ascend-910b";
    if (const Value* t = present(c, "device_type")) {
        const std::string type = isText(t) ? lower(t->asString()) : "";
        if (type == "a3" || type == "ascend910c" || type == "ascend910_93") device = "ascend-910c";
        else if (type == "v100") device = "v100-32gb";
        else if (type != "a2" && type != "ascend" && type != "ascend910" && type != "ascend910b")
            refuse(*t, "cluster.device_type", "expected a2, a3 or v100 (or their aliases), got " + t->describe());
    } else if (m_assumed) {
        (*m_assumed)["cluster.device"] = "the seed's default device_type A2: ascend-910b";
    }
    Value dev = Value::map(c.mark());
    dev.set("preset", Value::string(device, c.mark()));
    if (const Value* gb = present(c, "device_memory_gb")) {
        if (gb->kind() == Value::Kind::Int || gb->kind() == Value::Kind::Float)
            dev.set("memory", Value::string(numberText(gb->asDouble()) + " GiB", gb->mark()), gb->mark());
        else refuse(*gb, "cluster.device_memory_gb", "expected a number, got " + gb->describe());
    }
    if (const Value* per = present(c, "cards_per_node")) dev.set("devices_per_node", *per, per->mark());
    else assume(dev, "cluster.device", "devices_per_node", Value::integer(8, c.mark()), "the seed's default cards_per_node");
    // Tessera's keys of the same names (GB/s, one direction, per device). The seed's
    // own search reads no bandwidth: its machine is the device type's.
    for (const char* key : {"intra_node_bandwidth_gbps", "inter_node_bandwidth_gbps"})
        if (const Value* bw = present(c, key)) dev.set(key, *bw, bw->mark());
    m_cluster.set("device", dev);
    if (const Value* n = present(c, "num_nodes")) m_cluster.set("nodes", *n, n->mark());
    else refuse(c, "cluster.num_nodes", "required: how many nodes");
    refuseUnknownKeys(c, {"num_nodes", "cards_per_node", "device_memory_gb", "device_type", "intra_node_bandwidth_gbps",
                          "inter_node_bandwidth_gbps"}, "cluster", d);
}

void SeedReader::readParallelism(const Value& p) {
    // A scalar pins, a list gives candidates, `auto` or absent lets the search decide.
    auto dimension = [&](std::string_view seedKey, const std::string& key) {
        const Value* v = present(p, seedKey);
        if (!v || isAuto(*v)) m_space.set(key, Value::string("auto", v ? v->mark() : p.mark()));
        else if (v->isList()) m_space.set(key, *v, v->mark());
        else m_exec.set(key, *v, v->mark());
    };
    for (const char* key : {"tp", "pp", "cp", "ep", "dp", "micro_batch_num"}) dimension(key, key);
    if (const Value* etp = present(p, "etp"); etp && !isAuto(*etp)) {
        if (etp->isList()) refuse(*etp, "parallelism.etp", "the seed never searches etp: state one value");
        else m_exec.set("etp", *etp, etp->mark());
    }
    // fsdp is HyperParallel's dp_shard: 1 shards nothing, n > 1 is FSDP over n ranks.
    const Value* f = present(p, "fsdp");
    if (f && m_shardStated) {
        refuse(*f, "parallelism.fsdp", "model.optimizer_weight_shard_size states the shard too: state one of the two");
    } else if (f && f->isList()) {
        m_space.set("dp_shard", *f, f->mark());
    } else if (f && !isAuto(*f)) {
        if (!isInt(f) || f->asInt() < 1) {
            refuse(*f, "parallelism.fsdp", "expected a shard degree of at least 1, a list of them, or auto, got " + f->describe());
        } else {
            const bool sharded = f->asInt() > 1;
            m_exec.set("optimizer_parallel", Value::boolean(sharded, f->mark()), f->mark());
            m_exec.set("grad_shard_as_params", Value::boolean(sharded, f->mark()), f->mark());
            if (sharded) m_exec.set("optimizer_shard", *f, f->mark());
        }
    } else if (!m_shardStated) {
        assume(m_space, "search.space", "dp_shard", Value::string("auto", f ? f->mark() : p.mark()),
               "the seed searches the shard degree when fsdp is not pinned");
    }
    refuseUnknownKeys(p, {"dp", "fsdp", "tp", "pp", "cp", "ep", "etp", "micro_batch_num"}, "parallelism", d);
}

void SeedReader::readRecompute() {
    const Value* top = present(m_config, "recompute");
    const Value* est = present(m_config, "estimator");
    const Value* strategy = est && est->isMap() ? present(*est, "recompute_strategy") : nullptr;
    if (top && strategy && !same(*top, *strategy))
        refuse(*strategy, "estimator.recompute_strategy", "says what recompute says (" + top->describe() + "), differently: state one");
    const Value* r = top ? top : strategy;
    const std::string path = top ? "recompute" : "estimator.recompute_strategy";
    // Selective recompute, stated or chosen by the search, drops what HyperParallel's rule drops.
    assume(m_exec, "exec", "selective_rule", Value::string("hyperparallel", m_config.mark()), "the seed's selective recompute");
    if (r && (present(m_exec, "full_recompute") || present(m_exec, "selective_recompute")))
        return refuse(*r, path, "model.full_rec or sel_rec states the recompute per stage too: state one of the two");
    if (!r) return;
    const std::string mode = isText(r) ? lower(r->asString()) : "";
    if (mode == "auto") {
        m_space.set("recompute", Value::string("auto", r->mark()));
        if (const Value* modes = est && est->isMap() ? present(*est, "recompute_modes") : nullptr)
            m_space.set("recompute", *modes, modes->mark());  // the modes auto chooses among
    } else if (mode == "per_layer") {
        // Each candidate's layers get the planner's fastest fitting options (plan/planner.h).
        // The seed chooses only under 1f1b and among recompute_modes (off, full); Tessera
        // under every schedule and among all five options, so never slower.
        m_space.set("recompute", Value::string("per_layer", r->mark()), r->mark());
    } else if (mode == "none" || mode == "full" || mode == "selective") {
        Value range = Value::map(r->mark());
        range.set("first", Value::integer(0, r->mark()));
        range.set("option", Value::string(mode, r->mark()));
        Value list = Value::list(r->mark());
        list.push(range);
        m_exec.set("recompute", list, r->mark());
    } else {
        refuse(*r, path, "expected none, full, selective, auto or per_layer, got " + r->describe());
    }
    if (const Value* modes = est && est->isMap() ? present(*est, "recompute_modes") : nullptr; modes && mode != "auto")
        refuse(*modes, "estimator.recompute_modes", "narrows the modes recompute: auto chooses among, and recompute is " + r->describe());
}

void SeedReader::readPipeline(const Value& pc) {
    const Value* par = present(m_config, "parallelism");
    auto pinned = [&](std::string_view seedKey, const std::string& key, const std::string& path) {
        const Value* v = present(pc, seedKey);
        if (!v) return;
        const Value* stated = par ? present(*par, key) : nullptr;
        if (stated && !isAuto(*stated) && !same(*stated, *v))
            return refuse(*v, path, "parallelism." + key + " states it (" + stated->describe() + "): state it once");
        m_space.set(key, Value::null());  // pinned here, not searched
        m_exec.set(key, *v, v->mark());
    };
    pinned("pp_degree", "pp", "pp_config.pp_degree");
    pinned("micro_batch_num", "micro_batch_num", "pp_config.micro_batch_num");
    if (const Value* m = present(pc, "stage_partition_mode"); m && !(isText(m) && lower(m->asString()) == "uniform"))
        refuse(*m, "pp_config.stage_partition_mode", "expected uniform (layers evenly, then the offset), got " + m->describe());
    if (const Value* s = present(pc, "stage_partition"); s && !(s->isList() && s->items().empty())) {
        if (present(m_exec, "offset")) refuse(*s, "pp_config.stage_partition", "model.offset places the layers too: state one of the two");
        else m_exec.set("pp_partition", *s, s->mark());
    }
    if (const Value* r = present(pc, "layer_offset_range")) {
        const bool none = r->isList() && std::all_of(r->items().begin(), r->items().end(),
                                                     [](const Value& x) { return x.kind() == Value::Kind::Int && x.asInt() == 0; });
        if (!none) refuse(*r, "pp_config.layer_offset_range", "a search over layer offsets is the planner's, which Tessera does "
                                                               "not have yet: state the offset (model.offset)");
    }
    if (const Value* l = present(pc, "layer_recompute_layers"); l && !(l->isList() && l->items().empty()))
        refuse(*l, "pp_config.layer_recompute_layers", "a recompute per layer is the planner's, which Tessera does not have yet: "
                                                       "state it per stage (model.full_rec, sel_rec)");
    if (const Value* v = present(pc, "pp_interleave_num")) m_exec.set("vpp", *v, v->mark());
    if (const Value* s = present(pc, "pipeline_schedule")) {
        std::string name = isText(s) ? lower(s->asString()) : "";
        const Value* vpp = present(pc, "pp_interleave_num");
        if (name == "1f1b" && isInt(vpp) && vpp->asInt() > 1) name = "interleaved";  // 1F1B over chunks
        // The seed's own spellings (Tessera's zb-h1, zbv, dualpipe and dualpipev are not among them).
        static constexpr std::string_view seedSchedules[] = {"1f1b", "interleaved", "gpipe"};
        if (std::find(std::begin(seedSchedules), std::end(seedSchedules), name) == std::end(seedSchedules))
            refuse(*s, "pp_config.pipeline_schedule", "expected one of " + choicesText(seedSchedules) + ", got " + s->describe());
        else m_exec.set("pp_schedule", Value::string(name, s->mark()), s->mark());
    }
    refuseUnknownKeys(pc, {"pp_degree", "stage_partition_mode", "stage_partition", "layer_offset_range", "layer_recompute_layers",
                           "micro_batch_num", "pp_interleave_num", "pipeline_schedule"}, "pp_config", d);
}

void SeedReader::readEstimator(const Value& est) {
    if (const Value* t = present(est, "type"); t && !(isText(t) && lower(t->asString()) == "symbolic"))
        refuse(*t, "estimator.type", "expected symbolic (Tessera's model is), got " + t->describe());
    if (const Value* p = present(est, "enable_profiling_calibration"); p && !(p->kind() == Value::Kind::Bool && !p->asBool()))
        refuse(*p, "estimator.enable_profiling_calibration",
               "calibrating on profiles needs the devices; Tessera prices from its model alone: set false or remove it");
    if (const Value* r = present(est, "ratios_file"))
        refuse(*r, "estimator.ratios_file", "regression ratios fitted for the seed's scores are not read: Tessera's times come "
                                            "from its device figures and kernel fits; remove it (tessera calibrate fits those to measured "
                                            "runs, for cluster.calibration)");
    if (const Value* a = present(est, "cp_algo")) m_exec.set("cp_algo", *a, a->mark());
    refuseUnknownKeys(est, {"type", "recompute_strategy", "enable_profiling_calibration", "cp_algo", "ratios_file", "recompute_modes"},
                      "estimator", d);
}

Value SeedReader::read() {
    if (const Value* t = present(m_config, "train_yaml"))
        refuse(*t, "train_yaml", "a search config that points at a train.yaml: import it with `tessera import-train` and state "
                                 "the model here");
    if (const Value* c = present(m_config, "constraint"); c && c->isMap()) {
        if (const Value* g = present(*c, "global_batch_size")) {
            m_constraints.set("global_batch_size", *g, g->mark());
            if (isInt(g) && g->asInt() > 0) m_gbs = g->asInt();
        }
        if (const Value* m = present(*c, "memory_limit_gb")) m_constraints.set("memory_limit_gb", *m, m->mark());
        refuseUnknownKeys(*c, {"global_batch_size", "memory_limit_gb"}, "constraint", d);
    }
    if (const Value* m = present(m_config, "model"); m && m->isMap()) readModel(*m);
    else refuse(m_config, "model", "required: the model the search is for");
    if (const Value* c = present(m_config, "cluster"); c && c->isMap()) readCluster(*c);
    else refuse(m_config, "cluster", "required: num_nodes, cards_per_node, device_memory_gb, device_type");
    const Value empty = Value::map(m_config.mark());
    const Value* par = present(m_config, "parallelism");
    readParallelism(par && par->isMap() ? *par : empty);
    if (const Value* pc = present(m_config, "pp_config"); pc && pc->isMap()) readPipeline(*pc);
    if (const Value* est = present(m_config, "estimator"); est && est->isMap()) readEstimator(*est);
    readRecompute();
    // The seed's search varies the micro-batch size over the divisors of the global batch.
    if (m_gbs) {
        Value sizes = Value::list(m_config.mark());
        for (std::int64_t b = 1; b <= std::min<std::int64_t>(*m_gbs, 1 << 20); ++b)
            if (*m_gbs % b == 0) sizes.push(Value::integer(b, m_config.mark()));
        assume(m_space, "search.space", "micro_batch_size", sizes, "the seed searches the micro-batch size (divisors of the global batch)");
    }
    refuseUnknownKeys(m_config, {"train_yaml", "model", "cluster", "parallelism", "constraint", "recompute", "pp_config", "estimator"},
                      "", d);

    Value space = Value::map(m_space.mark());  // without the dimensions pp_config pinned
    for (const Value::Entry& e : m_space.entries())
        if (!e.value.isNull()) space.set(e.key, e.value, e.keyMark);
    Value search = Value::map(m_config.mark());
    search.set("space", space);
    search.set("constraints", m_constraints);
    Value scenario = Value::map(m_config.mark());
    scenario.set("model", m_model);
    scenario.set("exec", m_exec);
    scenario.set("cluster", m_cluster);
    scenario.set("search", search);
    return scenario;
}

}  // namespace

bool isSeedSearchConfig(const Value& doc) {
    return doc.isMap() && (present(doc, "parallelism") || present(doc, "constraint") || present(doc, "pp_config"));
}

Value scenarioFromSeedSearch(const Value& config, Diagnostics& d, std::map<std::string, std::string>* assumed) {
    return SeedReader(config, d, assumed).read();
}

}  // namespace tessera::core
