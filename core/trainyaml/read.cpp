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

#include "io/dtype.h"
#include "trainyaml/shared.h"

namespace tessera::core {

using namespace trainyaml;
namespace fs = std::filesystem;


// Reading: the scenario a train.yaml states.

namespace {

// Where a field was found: its value and its dotted path in the train.yaml.
struct Source {
    const Value* value = nullptr;
    std::string path;
    explicit operator bool() const { return value != nullptr; }
    const Mark& mark() const { return value->mark(); }
};

class TrainReader {
public:
    TrainReader(const Value& root, Diagnostics& d) : m_root(root), m_d(d) {}

    // The first of `paths` the file states; `key:` with nothing after it is unstated.
    Source find(std::initializer_list<std::string_view> paths) {
        for (std::string_view path : paths)
            if (const Value* v = walk(path); v && !v->isNull()) return {v, std::string(path)};
        return {};
    }
    std::optional<std::int64_t> integer(const Source& s, IntRange range) {
        return s ? readInteger(*s.value, range, s.path, m_d) : std::nullopt;
    }
    std::optional<double> real(const Source& s, RealRange range) {
        return s ? readReal(*s.value, range, s.path, m_d) : std::nullopt;
    }
    std::optional<bool> flag(const Source& s) {
        if (!s) return std::nullopt;
        if (s.value->kind() == Value::Kind::Bool) return s.value->asBool();
        refuse(s, "expected true or false, got " + s.value->describe());
        return std::nullopt;
    }
    std::optional<std::string> text(const Source& s) {
        if (!s) return std::nullopt;
        if (s.value->kind() == Value::Kind::String) return s.value->asString();
        refuse(s, "expected text, got " + s.value->describe());
        return std::nullopt;
    }
    void refuse(const Source& s, const std::string& message) { m_d.add(s.mark(), s.path, message); }
    Diagnostics& diagnostics() { return m_d; }
    const Mark& rootMark() const { return m_root.mark(); }

private:
    const Value* walk(std::string_view path) {
        const Value* at = &m_root;
        std::size_t start = 0;
        while (true) {
            const std::size_t dot = path.find('.', start);
            const Value* next = at->find(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
            if (!next || dot == std::string_view::npos) return next;
            if (next->isNull()) return nullptr;
            if (!next->isMap()) {
                // A section given as a scalar: say so once, whichever field looked into it.
                const std::string section(path.substr(0, dot));
                if (m_badSections.insert(section).second)
                    m_d.add(next->mark(), section, "expected a mapping, got " + next->describe());
                return nullptr;
            }
            at = next;
            start = dot + 1;
        }
    }

    const Value& m_root;
    Diagnostics& m_d;
    std::set<std::string> m_badSections;
};

// The body and MTP layers of the model section, for placing the tail of a
// per-layer plan; nullopt when the model cannot be read (reported elsewhere).
std::optional<std::int64_t> modelLayers(const Value& model, const std::string& baseDir) {
    try {
        Value holder = Value::map();
        holder.set("model", model);
        holder.set("exec", Value::map());
        holder.set("cluster", Value::map());
        const ModelSpec m = resolveModel(scenarioFromValue(holder, "train.yaml", baseDir).model);
        return *m.num_hidden_layers + m.mtp_depth.value_or(0);
    } catch (const SpecError&) {
        return std::nullopt;
    }
}

Value readModel(TrainReader& in, const std::string& baseDir) {
    Value section = Value::map();
    // Trainer keys (attn_implementation, rope_scaling, ...) share config_overrides
    // with the architecture; only ModelSpec's fields describe it.
    const Source overrides = in.find({"model.config_overrides"});
    if (overrides && !overrides.value->isMap()) in.refuse(overrides, "expected a mapping, got " + overrides.value->describe());
    else if (overrides)
        for (const Value::Entry& e : overrides.value->entries())
            if (contains(fieldKeys<ModelSpec>(), e.key)) section.set(e.key, e.value, e.keyMark);
    const Source where = in.find({"model.pretrained_model_name_or_path", "model.config_path"});
    bool refused = false;  // one message about the model is enough
    if (const std::optional<std::string> path = in.text(where)) {
        fs::path p(*path);
        if (p.is_relative()) p = fs::path(baseDir.empty() ? "." : baseDir) / p;
        std::error_code ec;
        if (fs::is_directory(p, ec)) p /= "config.json";
        if (fs::exists(p, ec)) {
            Value withFile = Value::map(where.mark());
            withFile.set("file", Value::string(fs::absolute(p).lexically_normal().string(), where.mark()));
            for (const Value::Entry& e : section.entries()) withFile.set(e.key, e.value, e.keyMark);
            section = std::move(withFile);
        } else if (section.entries().empty()) {
            refused = true;
            in.refuse(where, "'" + *path + "' is no local folder or file (Tessera reads no model hub): point it at a "
                             "folder holding config.json, or state the model under model.config_overrides");
        }
    }
    // HyperParallel's model.name picks its model module, which for Tessera's
    // families is the family itself.
    if (const Source name = in.find({"model.name"}); name && name.value->kind() == Value::Kind::String) {
        if (!section.find("arch") && !section.find("file") && contains(modelFamilies(), name.value->asString()))
            section.set("arch", *name.value);
        if (!section.find("name")) section.set("name", *name.value);
    }
    if (!section.find("file") && section.entries().size() == (section.find("name") ? 1u : 0u) && !refused) {
        const Source model = in.find({"model"});
        in.diagnostics().add(model ? model.mark() : in.rootMark(), "model",
                             "states no model Tessera can read: give its fields under model.config_overrides, or point "
                             "model.pretrained_model_name_or_path at a local folder holding config.json");
    }
    return section;
}

// activation_checkpoint.layers key: "12" or "12-15".
std::optional<std::pair<std::int64_t, std::int64_t>> layerSpan(const std::string& key) {
    const auto dash = key.find('-');
    auto number = [](std::string_view t) -> std::optional<std::int64_t> {
        if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        return std::stoll(std::string(t));
    };
    const auto first = number(std::string_view(key).substr(0, dash));
    const auto last = dash == std::string::npos ? first : number(std::string_view(key).substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    return std::pair{*first, *last};
}

std::optional<std::string> optionOf(TrainReader& in, const Source& s) {
    const std::optional<std::string> mode = in.text(s);
    if (!mode) return std::nullopt;
    if (*mode == "off" || *mode == "none") return std::string("none");  // `none` is the older schema's off
    if (*mode == "full" || *mode == "selective") return mode;
    in.refuse(s, "expected off, full or selective, got " + s.value->describe());
    return std::nullopt;
}

Value rangeValue(std::int64_t first, std::optional<std::int64_t> count, const std::string& option, const Mark& mark) {
    Value v = Value::map(mark);
    v.set("first", Value::integer(first, mark));
    if (count) v.set("count", Value::integer(*count, mark));
    v.set("option", Value::string(option, mark));
    return v;
}

// activation_checkpoint as recompute ranges covering the model in order.
void readRecompute(TrainReader& in, const Value& model, const std::string& baseDir, Value& exec) {
    const Source modeAt = in.find({"activation_checkpoint.mode", "train.gradient_checkpointing.activation_checkpoint"});
    const Source layersAt = in.find({"activation_checkpoint.layers"});
    if (!modeAt && !layersAt) return;
    const std::string base = modeAt ? optionOf(in, modeAt).value_or("") : "none";
    if (base.empty()) return;
    const Mark& mark = (modeAt ? modeAt : layersAt).mark();
    struct Span { std::int64_t first, last; std::string option; Mark mark; };
    std::vector<Span> spans;
    if (layersAt && !layersAt.value->isMap()) in.refuse(layersAt, "expected a mapping of layers to modes, got " + layersAt.value->describe());
    else if (layersAt) {
        for (const Value::Entry& e : layersAt.value->entries()) {
            const Source at{&e.value, layersAt.path + "." + e.key};
            const auto span = layerSpan(e.key);
            if (!span) in.diagnostics().add(e.keyMark, at.path, "expected a layer \"i\" or a range \"first-last\", got '" + e.key + "'");
            const std::optional<std::string> option = optionOf(in, at);
            if (span && option && *option != base) spans.push_back({span->first, span->second, *option, e.keyMark});
        }
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.first < b.first; });
    Value ranges = Value::list(mark);
    std::int64_t next = 0;  // first layer not yet covered
    for (const Span& s : spans) {
        if (s.first < next) {
            in.diagnostics().add(s.mark, layersAt.path, "layers " + num(s.first) + "-" + num(s.last) + " overlap a range before them");
            return;
        }
        if (s.first > next && base != "none") ranges.push(rangeValue(next, s.first - next, base, mark));
        ranges.push(rangeValue(s.first, s.last - s.first + 1, s.option, s.mark));
        next = s.last + 1;
    }
    if (spans.empty() || base != "none") {
        // Ranges must stay inside the model, so an open tail after the last
        // listed layer needs the model's layer count.
        const std::optional<std::int64_t> layers = spans.empty() ? std::nullopt : modelLayers(model, baseDir);
        if (!spans.empty() && !layers) {
            in.refuse(layersAt, "the model's layer count is needed to run the remaining layers " + modeOf(base) + ", and the model cannot be read");
            return;
        }
        if (spans.empty() || next < *layers) ranges.push(rangeValue(next, std::nullopt, base, mark));
    }
    exec.set("recompute", std::move(ranges), mark);
    // The trainer's selective mode is its own op policy, whatever Tessera would pick.
    bool selective = base == "selective";
    for (const Span& s : spans) selective = selective || s.option == "selective";
    if (selective) exec.set("selective_rule", Value::string("hyperparallel", mark), mark);
}

}  // namespace

Value scenarioFromTrainYaml(const Value& root, const std::string& baseDir, Diagnostics& d) {
    Value scenario = Value::map(root.mark());
    if (!root.isMap()) {
        d.add(root.mark(), "", "a train.yaml is a mapping of sections (model, training, accelerator, ...); got " + root.describe());
        return scenario;
    }
    TrainReader in(root, d);
    Value exec = Value::map(root.mark());
    auto state = [&](const char* key, const Source& s, Value v) { exec.set(key, std::move(v), s.mark()); };
    // A whole number at the first of `paths`, stated as exec.<key>.
    auto count = [&](const char* key, std::initializer_list<std::string_view> paths, IntRange range = IntRange{1}) {
        const Source s = in.find(paths);
        const std::optional<std::int64_t> n = in.integer(s, range);
        if (n) state(key, s, Value::integer(*n, s.mark()));
        return n;
    };

    // The AutoModels keys first, then the older aliases the seed's parsers read.
    count("tp", {"accelerator.tp_size", "accelerator.tp_degree", "train.accelerator.tp_degree"});
    count("pp", {"accelerator.pp_size", "accelerator.pipeline_parallel_degree", "train.accelerator.pipeline_parallel_degree"});
    const auto vpp = count("vpp", {"accelerator.pp_interleave_num", "train.accelerator.pp_interleave_num"});
    const auto cp = count("cp", {"accelerator.cp_size", "accelerator.context_parallel_degree", "train.accelerator.context_parallel_degree"});
    count("ep", {"accelerator.ep_size", "accelerator.expert_parallel_degree", "train.accelerator.expert_parallel_degree"});
    count("etp", {"accelerator.expert_tensor_parallel_degree", "train.accelerator.expert_tensor_parallel_degree"}, IntRange{0});
    const Source sp = in.find({"accelerator.sequence_parallel", "accelerator.use_seq_parallel", "train.accelerator.use_seq_parallel"});
    if (const auto on = in.flag(sp)) state("sequence_parallel", sp, Value::boolean(*on, sp.mark()));
    count("micro_batch_size", {"training.micro_batch_size", "train.micro_batch_size"});
    count("micro_batch_num", {"training.micro_batch_num", "train.micro_batch_num"});
    count("global_batch_size", {"training.global_batch_size", "train.global_batch_size"});
    count("seq_length", {"dataset.data_transform.max_seq_len", "dataset.data_config.seq_length", "data.max_seq_len",
                         "model.config_overrides.seq_length"});

    // FSDP: HyperParallel's dp_shard above 1 is FSDP - parameters, gradients and
    // optimizer states sharded over dp_shard ranks of its domain, which spans context
    // parallelism (dp·cp); the rest of the domain replicates. optimizer_weight_shard_size,
    // when stated, is the shard (the seed's os_max_shard, reference §3.5).
    const Source shardAt = in.find({"fsdp_config.dp_shard_size", "accelerator.dp_shard", "train.accelerator.dp_shard"});
    const std::optional<std::int64_t> shard = in.integer(shardAt, IntRange{1});
    if (shard) {
        const bool sharded = *shard > 1;
        state("optimizer_parallel", shardAt, Value::boolean(sharded, shardAt.mark()));
        state("grad_shard_as_params", shardAt, Value::boolean(sharded, shardAt.mark()));
        const Source owssAt = in.find({"accelerator.optimizer_weight_shard_size", "train.accelerator.optimizer_weight_shard_size"});
        const std::optional<std::int64_t> owss = in.integer(owssAt, IntRange{0});
        if (sharded && owss.value_or(0) > 0) state("optimizer_shard", owssAt, Value::integer(*owss, owssAt.mark()));
        else if (sharded) state("optimizer_shard", shardAt, Value::integer(*shard, shardAt.mark()));
        if (sharded && cp.value_or(1) > 1) state("shard_spans_cp", shardAt, Value::boolean(true, shardAt.mark()));
    }
    if (const Source at = in.find({"fsdp_config.reshard_after_forward"}))
        if (const auto on = in.flag(at)) state("reshard_params", at, Value::boolean(*on, at.mark()));
    if (const Source at = in.find({"accelerator.loss_parallel"}))
        if (const auto on = in.flag(at)) state("loss_parallel", at, Value::boolean(*on, at.mark()));
    // Byte widths, where the seed's parser looks for them (reference §3.5).
    auto width = [&](const char* key, const char* bytesKey, std::initializer_list<std::string_view> paths) {
        const Source at = in.find(paths);
        const std::optional<std::string> name = in.text(at);
        if (!name) return;
        const std::optional<DtypeWidth> dtype = dtypeOf(*name);
        if (!dtype) return in.refuse(at, "expected a dtype (bfloat16, float16, float32), got " + at.value->describe());
        state(bytesKey, at, Value::integer(dtype->bytes, at.mark()));
        if (key) state(key, at, Value::string(dtype->name, at.mark()));
    };
    width(nullptr, "param_bytes", {"fsdp_config.mix_precision.param_dtype", "model.model_init_dtype", "model.param_init_type"});
    width("compute_dtype", "compute_bytes", {"model.torch_dtype", "model.compute_dtype"});
    width(nullptr, "softmax_bytes", {"model.softmax_compute_type"});

    Value cluster = Value::map(root.mark());
    const Source devicesAt = in.find({"context.device_num"});
    if (const auto devices = in.integer(devicesAt, IntRange{1, 1 << 24})) {
        cluster.set("devices", Value::integer(*devices, devicesAt.mark()), devicesAt.mark());
    } else if (const Source replicateAt = in.find({"accelerator.dp_replicate", "train.accelerator.dp_replicate"})) {
        // Without a device count the data-parallel domain is replicas × shards,
        // which is dp·cp in HyperParallel (its shards span cp).
        if (const auto replicas = in.integer(replicateAt, IntRange{1})) {
            // Both are any whole number: their product can pass 2^63-1 (checked, not wrapped).
            std::int64_t domain = 0;
            const std::int64_t c = cp.value_or(1);
            if (__builtin_mul_overflow(*replicas, shard.value_or(1), &domain))
                in.refuse(replicateAt, "dp_replicate · dp_shard = " + num(*replicas) + "·" + num(shard.value_or(1)) +
                                       " is beyond 2^63-1, more ranks than any cluster has");
            else if (domain % c != 0)
                in.refuse(replicateAt, "dp_replicate · dp_shard = " + num(domain) + " is the data-parallel domain dp·cp, "
                                       "and must be a multiple of cp (" + num(c) + ")");
            else state("dp", replicateAt, Value::integer(domain / c, replicateAt.mark()));
        }
    }

    // HyperParallel names the interleaved schedule 1f1b with pp_interleave_num > 1.
    const Source scheduleAt = in.find({"accelerator.pipeline_scheduler", "train.accelerator.pipeline_scheduler"});
    const bool chunks = vpp.value_or(1) > 1;
    if (const auto name = in.text(scheduleAt)) {
        if (*name == "1f1b" || *name == "gpipe")
            state("pp_schedule", scheduleAt, Value::string(*name == "1f1b" && chunks ? "interleaved" : *name, scheduleAt.mark()));
        else if (*name == "zero_bubble_v")  // the V-shaped zero-bubble schedule, pp_interleave_num 2 (reference §4.8)
            state("pp_schedule", scheduleAt, Value::string("zbv", scheduleAt.mark()));
        else if (*name == "seqpipe" || *name == "seqsmartvpp")
            in.refuse(scheduleAt, "Tessera prices " + *name + ", but a train.yaml states no seq_split it knows how to "
                                  "read: state pp_schedule: " + *name + " and seq_split in a scenario");
        else
            in.refuse(scheduleAt, "unknown pipeline schedule " + scheduleAt.value->describe() + "; HyperParallel's are 1f1b "
                                  "(interleaved with pp_interleave_num > 1), gpipe, seqpipe, seqsmartvpp and zero_bubble_v");
    } else if (chunks) {
        state("pp_schedule", in.find({"accelerator.pp_interleave_num", "train.accelerator.pp_interleave_num"}),
              Value::string("interleaved"));
    }
    const Source algoAt = in.find({"accelerator.context_parallel_algo", "train.accelerator.context_parallel_algo"});
    if (auto algo = in.text(algoAt)) {
        if (*algo == "hybird_cp") algo = "hybrid_cp";  // the seed accepts its own typo
        if (contains(kCpAlgorithms, *algo))
            state("cp_algo", algoAt, Value::string(*algo, algoAt.mark()));
        else in.refuse(algoAt, "expected one of " + choicesText(kCpAlgorithms) + ", got " + algoAt.value->describe());
    }

    const Source clipAt = in.find({"training.max_grad_norm", "train.max_grad_norm"});
    if (const auto norm = in.real(clipAt, RealRange{0})) state("grad_clip", clipAt, Value::boolean(*norm > 0, clipAt.mark()));
    const Source optimizerAt = in.find({"optimizer.name", "optimizer._target_"});
    if (auto name = in.text(optimizerAt)) {
        // "...optim.optimizer.AdamW" -> "adamw"
        name = name->substr(name->find_last_of('.') == std::string::npos ? 0 : name->find_last_of('.') + 1);
        std::transform(name->begin(), name->end(), name->begin(), [](unsigned char c) { return std::tolower(c); });
        if (name->find("muon") != std::string::npos) state("optimizer", optimizerAt, Value::string("muon", optimizerAt.mark()));
        else if (name->find("adam") != std::string::npos) state("optimizer", optimizerAt, Value::string("adamw", optimizerAt.mark()));
        else in.refuse(optimizerAt, "an optimizer Tessera does not model (it models AdamW and Muon), got " + optimizerAt.value->describe());
    }
    const Source sliceAt = in.find({"activation_checkpoint.recompute_slice_activation"});
    if (const auto on = in.flag(sliceAt)) state("recompute_slice_activation", sliceAt, Value::boolean(*on, sliceAt.mark()));
    const Source memoryAt = in.find({"context.max_device_memory"});
    if (const auto text = in.text(memoryAt)) {
        if (parseMemory(*text)) state("device_memory", memoryAt, *memoryAt.value);
        else in.refuse(memoryAt, "expected an amount of memory such as \"64GB\", got " + memoryAt.value->describe());
    }
    const Source capacityAt = in.find({"model.config_overrides.capacity_factor", "model.config_overrides.cap_fact"});
    if (const auto cf = in.real(capacityAt, RealRange{0, 1e6, true, false}))
        state("capacity_factor", capacityAt, Value::number(*cf, capacityAt.mark()));
    if (const Source offsetAt = in.find({"model.config_overrides.offset"})) state("offset", offsetAt, *offsetAt.value);

    Value model = readModel(in, baseDir);
    readRecompute(in, model, baseDir, exec);

    const Source modelAt = in.find({"model"});
    scenario.set("model", inTableOrder<ModelSpec>(model), modelAt ? modelAt.mark() : root.mark());
    scenario.set("exec", inTableOrder<ExecSpec>(exec));
    scenario.set("cluster", std::move(cluster));
    return scenario;
}

Value trainScenario(const Value& train, const std::string& baseDir, const TrainCluster& given, Diagnostics& d) {
    Value scenario = scenarioFromTrainYaml(train, baseDir, d);
    const Value* cluster = scenario.find("cluster");
    const Value* stated = cluster ? cluster->find("devices") : nullptr;
    Value out = Value::map(cluster ? cluster->mark() : train.mark());
    if (given.device) out.set("device", *given.device);
    else d.add(train.mark(), "cluster.device", "a train.yaml does not name the device: give a device preset (import-train --device "
                                               "PRESET; `tessera presets` lists them)");
    if (stated && given.devices && !given.devicesOffered && stated->asInt() != *given.devices)
        d.add(stated->mark(), "context.device_num",
              "states " + num(stated->asInt()) + " devices, and the command line says " + num(*given.devices));
    if (stated) out.set("devices", *stated, stated->mark());
    else if (given.devices) out.set("devices", Value::integer(*given.devices));
    else d.add(train.mark(), "cluster.devices", "the train.yaml states no device count (context.device_num): give one "
                                                "(import-train --devices N)");
    scenario.set("cluster", std::move(out));
    return scenario;
}

}  // namespace tessera::core
