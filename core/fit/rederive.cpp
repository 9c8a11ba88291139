#include "fit/rederive.h"

#include <algorithm>
#include <numeric>

#include "io/overrides.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "pipeline/closedform.h"

namespace tessera::core {

std::string execKey(const std::string& key) { return key.starts_with("exec.") ? key.substr(5) : key; }

std::int64_t statedDevices(const ClusterSpec& c) {
    if (c.devices) return *c.devices;
    if (c.nodes && c.device && c.device->devices_per_node) return *c.nodes * *c.device->devices_per_node;
    return 0;
}

std::int64_t checkedProduct(std::initializer_list<std::int64_t> factors) {
    std::int64_t p = 1;
    for (std::int64_t f : factors)
        if (__builtin_mul_overflow(p, f, &p)) return 0;
    return p;
}

Layout layoutOf(const ExecSpec& e, std::int64_t devices) {
    Layout l;
    l.tp = e.tp.value_or(1), l.pp = e.pp.value_or(1), l.cp = e.cp.value_or(1), l.vpp = e.vpp.value_or(1), l.ep = e.ep.value_or(1);
    const std::int64_t q = checkedProduct({l.tp, l.pp, l.cp});
    l.dp = e.dp ? *e.dp : q > 0 && devices % q == 0 ? devices / q : 0;
    const auto& mbs = e.micro_batch_size;
    const auto& mbn = e.micro_batch_num;
    const auto& gbs = e.global_batch_size;
    auto quotient = [](std::int64_t n, std::int64_t d) { return d > 0 && n % d == 0 ? n / d : 0; };
    if (l.dp == 0) return l;
    if (mbs && mbn) l.mbs = *mbs, l.mbn = *mbn, l.gbs = gbs ? *gbs : checkedProduct({*mbs, *mbn, l.dp});
    else if (gbs && mbs) l.mbs = *mbs, l.gbs = *gbs, l.mbn = quotient(*gbs, checkedProduct({*mbs, l.dp}));
    else if (gbs && mbn) l.mbn = *mbn, l.gbs = *gbs, l.mbs = quotient(*gbs, checkedProduct({*mbn, l.dp}));
    else if (gbs) l.mbs = 1, l.gbs = *gbs, l.mbn = quotient(*gbs, l.dp);
    return l;
}

namespace {

// Schedule, chunks and what follows the schedule (Resolver::resolveExecStrategy's rules).
void rederiveSchedule(const ExecSpec& before, ExecSpec& next, const std::set<std::string>& held) {
    auto free = [&](const char* key) { return !held.contains(key); };
    const std::int64_t vpp = next.vpp.value_or(1), pp = next.pp.value_or(1);
    std::string schedule = next.pp_schedule.value_or("1f1b");
    // An edited vpp picks the schedule that runs it; an edited schedule the vpp it runs.
    if (free("pp_schedule") && next.vpp != before.vpp) {
        const bool vShape = isVShape(scheduleNamed(schedule));
        const bool tabled = interleavesChunks(scheduleNamed(schedule));
        if (vpp > 1 && !tabled && !(vShape && vpp == 2)) schedule = schedule == "seqpipe" ? "seqsmartvpp" : "interleaved";
        else if (vpp == 1 && (tabled || vShape)) schedule = schedule == "seqsmartvpp" ? "seqpipe" : "1f1b";
        if (schedule != next.pp_schedule.value_or("1f1b")) next.pp_schedule = schedule;
    }
    const bool vShape = isVShape(scheduleNamed(schedule)), tabled = interleavesChunks(scheduleNamed(schedule));
    if (free("vpp")) {
        if (vShape && vpp != 2) next.vpp = 2;
        else if (tabled && vpp == 1) next.vpp = 2;
        else if (!vShape && !tabled && vpp > 1) next.vpp = 1;
    }
    if (free("seq_split")) {
        const bool sequenced = runsSequenceParts(scheduleNamed(schedule));
        if (!sequenced && next.seq_split.value_or(1) > 1) next.seq_split.reset();
        else if (sequenced && next.seq_split.value_or(1) == 1) next.seq_split = 2;
        // seqsmartvpp: a micro-batch's parts in one group of pp (resolve refuses the rest).
        if (schedule == "seqsmartvpp" && pp % next.seq_split.value_or(1) != 0) next.seq_split = std::gcd(pp, *next.seq_split);
    }
    const bool interleaved = schedule == "interleaved";
    if (free("overlap_p2p_comm") && next.overlap_p2p_comm.value_or(false) && pp > 1 && !tabled)
        next.overlap_p2p_comm.reset();  // unstated, it follows the schedule
    if (free("overlap_moe_expert_parallel_comm") && next.overlap_moe_expert_parallel_comm.value_or(false) && pp > 1 &&
        !interleaved)
        next.overlap_moe_expert_parallel_comm = false;
}

// The layers a stated pp_partition places, spread over `pp` stages of `vpp` chunks: a
// stage keeps its layers when pp stays, else the stages are as even as they go with the
// extra layers on the middle stages (the first and last hold the embedding and the
// output); each stage's chunks even, the extra layers on the later chunks (as the
// planner places them).
StageCounts replaced(const StageCounts& stated, std::int64_t ppWas, std::int64_t pp, std::int64_t vpp) {
    std::vector<std::int64_t> perStage(std::size_t(ppWas), 0);
    if (const auto* flat = std::get_if<StageCounts::Flat>(&stated.value)) perStage = *flat;
    if (const auto* nested = std::get_if<StageCounts::Nested>(&stated.value))
        for (const auto& chunk : *nested)
            for (std::size_t s = 0; s < chunk.size() && s < perStage.size(); ++s) perStage[s] += chunk[s];
    if (std::int64_t(perStage.size()) != pp) {
        std::int64_t total = 0;
        for (std::int64_t n : perStage) total += n;
        perStage.assign(std::size_t(pp), total / pp);
        std::vector<std::size_t> order;
        for (std::int64_t s = 1; s + 1 < pp; ++s) order.push_back(std::size_t(s));
        order.push_back(std::size_t(pp - 1)), order.push_back(0);
        for (std::int64_t extra = 0; extra < total % pp; ++extra) ++perStage[order[std::size_t(extra)]];
    }
    if (vpp == 1) return StageCounts{perStage};
    StageCounts::Nested grid(std::size_t(vpp), std::vector<std::int64_t>(perStage.size()));
    for (std::size_t s = 0; s < perStage.size(); ++s)
        for (std::int64_t c = 0; c < vpp; ++c)
            grid[std::size_t(c)][s] = perStage[s] / vpp + (c >= vpp - perStage[s] % vpp ? 1 : 0);
    return StageCounts{grid};
}

// A placement stated per stage or chunk no longer places the layers of another pp or vpp.
void rederivePlacement(const ExecSpec& before, ExecSpec& next, const std::set<std::string>& held) {
    const std::int64_t ppWas = before.pp.value_or(1), pp = next.pp.value_or(1), vpp = next.vpp.value_or(1);
    if (pp == ppWas && vpp == before.vpp.value_or(1)) return;
    auto free = [&](const char* key) { return !held.contains(key); };
    auto perStage = [](const std::optional<StageCounts>& c) {
        return c &&
               (std::holds_alternative<StageCounts::Flat>(c->value) || std::holds_alternative<StageCounts::Nested>(c->value));
    };
    if (free("pp_partition") && perStage(next.pp_partition)) {
        std::int64_t layers = 0;  // at most one stage a layer, and the 64 chunks resolve() models
        if (const auto* flat = std::get_if<StageCounts::Flat>(&next.pp_partition->value))
            for (std::int64_t n : *flat) layers += n;
        if (const auto* nested = std::get_if<StageCounts::Nested>(&next.pp_partition->value))
            for (const auto& chunk : *nested)
                for (std::int64_t n : chunk) layers += n;
        if (pp >= 1 && pp <= layers && vpp >= 1 && vpp <= 64) next.pp_partition = replaced(*next.pp_partition, ppWas, pp, vpp);
        else next.pp_partition.reset();
    }
    if (free("offset") && perStage(next.offset)) next.offset.reset();
    for (auto [key, field] : {std::pair{"full_recompute", &next.full_recompute},
                              {"selective_recompute", &next.selective_recompute},
                              {"selective_comm_recompute", &next.selective_comm_recompute}})
        if (free(key) && perStage(*field)) field->reset();
    if (free("activation_offload") && pp != ppWas && next.activation_offload)
        if (const auto* each = std::get_if<StageCounts::Flat>(&next.activation_offload->value); each && !each->empty())
            next.activation_offload = StageCounts{*std::min_element(each->begin(), each->end())};
}

// dp from the devices, then the batch: the global batch kept, the micro-batches re-derived.
void rederiveBatch(const ExecSpec& before, ExecSpec& next, std::int64_t devices, const std::set<std::string>& held) {
    auto free = [&](const char* key) { return !held.contains(key); };
    const Layout was = layoutOf(before, devices);
    Layout now = layoutOf(next, devices);
    const std::int64_t q = checkedProduct({now.tp, now.pp, now.cp});
    if (free("dp") && next.dp && (now.tp != was.tp || now.pp != was.pp || now.cp != was.cp) && q > 0 && devices % q == 0)
        next.dp = devices / q;
    now = layoutOf(next, devices);
    if (now.dp == 0) return;
    const bool gbsEdited = held.contains("global_batch_size") && next.global_batch_size != before.global_batch_size;
    const bool mbnEdited = held.contains("micro_batch_num") && next.micro_batch_num != before.micro_batch_num;
    const std::int64_t mbs = next.micro_batch_size.value_or(was.mbs > 0 ? was.mbs : 1);
    if (mbnEdited) {  // more or fewer micro-batches: the global batch follows
        // the micro-batch size stays as stated, or as it derived
        const std::int64_t gbs = checkedProduct({mbs, next.micro_batch_num.value_or(0), now.dp});
        if (free("global_batch_size") && next.global_batch_size && gbs > 0) next.global_batch_size = gbs;
        return;
    }
    const std::int64_t gbs = gbsEdited ? *next.global_batch_size : was.gbs;
    if (gbs == 0 || !free("micro_batch_num")) return;
    if (now.dp == was.dp && mbs == was.mbs && !gbsEdited) return;
    const std::int64_t step = checkedProduct({mbs, now.dp});
    if (step <= 0 || gbs % step != 0) return;  // no whole count: resolve() says why
    const std::int64_t mbn = gbs / step;
    // Stated, or the one that states the batch when the global batch is unstated; an
    // unstated count beside a stated global batch and micro-batch size derives itself.
    if (next.micro_batch_num || !next.global_batch_size || !next.micro_batch_size) next.micro_batch_num = mbn;
}

// The sharding levels build on each other; the shard divides its domain.
void rederiveSharding(const ExecSpec& before, ExecSpec& next, std::int64_t devices, const std::set<std::string>& held) {
    auto free = [&](const char* key) { return !held.contains(key); };
    const bool optimizer = next.optimizer_parallel.value_or(false);
    if (!optimizer) {
        if (free("optimizer_shard")) next.optimizer_shard.reset();
        if (free("grad_shard") && next.grad_shard.value_or(false)) next.grad_shard = false;
        if (free("grad_shard_as_params") && next.grad_shard_as_params.value_or(false)) next.grad_shard_as_params = false;
    }
    if (free("deferred_grad_accumulation") && next.deferred_grad_accumulation.value_or(false) &&
        !next.grad_shard_as_params.value_or(false))
        next.deferred_grad_accumulation = false;
    if (!optimizer || !next.optimizer_shard || !free("optimizer_shard")) return;
    const Layout was = layoutOf(before, devices), now = layoutOf(next, devices);
    const std::int64_t domainWas = checkedProduct({was.dp, before.shard_spans_cp.value_or(false) ? was.cp : 1});
    const std::int64_t domain = checkedProduct({now.dp, next.shard_spans_cp.value_or(false) ? now.cp : 1});
    if (domain == domainWas || domain == 0) return;
    if (*next.optimizer_shard == domainWas) next.optimizer_shard = domain;  // the whole group stays the whole group
    else if (domain % *next.optimizer_shard != 0) next.optimizer_shard.reset();
}

}  // namespace

void rederiveCoupled(const ExecSpec& before, ExecSpec& next, std::int64_t devices, const std::set<std::string>& heldKeys) {
    std::set<std::string> held;
    for (const std::string& k : heldKeys) held.insert(execKey(k));
    auto free = [&](const char* key) { return !held.contains(key); };
    rederiveSchedule(before, next, held);
    rederivePlacement(before, next, held);
    rederiveBatch(before, next, devices, held);
    rederiveSharding(before, next, devices, held);
    if (next.tp.value_or(1) == 1) {  // sequence parallelism and its overlap split over TP ranks
        if (free("sequence_parallel") && next.sequence_parallel.value_or(false)) next.sequence_parallel = false;
        if (free("tp_comm_overlap") && next.tp_comm_overlap.value_or(false)) next.tp_comm_overlap = false;
    }
}

namespace {

// A list as a line: runs of one count shortened, "[3, 4×14, 3]", "[[1, 2×14, 1], [2×16]]";
// recompute ranges by their option when one covers every layer.
std::string listText(const Value& v) {
    if (!v.items().empty() && v.items().front().isMap()) {
        const Value& range = v.items().front();
        const Value* option = range.find("option");
        const Value* first = range.find("first");
        if (v.items().size() == 1 && option && first && first->asInt() == 0 && !range.find("count") && !range.find("ops"))
            return option->asString();
        return "per-layer ranges";
    }
    std::string out = "[";
    for (std::size_t i = 0; i < v.items().size();) {
        const Value& item = v.items()[i];
        std::size_t run = 1;
        while (item.kind() == Value::Kind::Int && i + run < v.items().size() && v.items()[i + run].sameAs(item)) ++run;
        out += (i ? ", " : "") + (item.isList() ? listText(item) : item.describe()) + (run > 1 ? "×" + std::to_string(run) : "");
        i += run;
    }
    return out + "]";
}

}  // namespace

std::string Change::text() const {
    auto show = [](const Value& v) -> std::string {
        switch (v.kind()) {
        case Value::Kind::Null: return "unstated";
        case Value::Kind::String: return v.asString();
        case Value::Kind::List: return listText(v);
        default: return v.describe();
        }
    };
    return execKey(key) + " " + show(before) + " → " + show(after) + (derived ? " (derived)" : "");
}

std::vector<std::string> statedChanges(const ExecSpec& before, const ExecSpec& after) {
    const Value a = SpecWriter::write(before), b = SpecWriter::write(after);
    std::vector<std::string> keys;
    for (const Value::Entry& e : a.entries())
        if (const Value* other = b.find(e.key); !other || !other->sameAs(e.value)) keys.push_back(e.key);
    for (const Value::Entry& e : b.entries())
        if (!a.find(e.key)) keys.push_back(e.key);
    return keys;
}

std::vector<Change> changesBetween(const ExecSpec& before, const ExecSpec& after, std::int64_t devices,
                                   const std::set<std::string>& editedKeys) {
    std::set<std::string> edited;
    for (const std::string& k : editedKeys) edited.insert(execKey(k));
    const Value a = SpecWriter::write(before), b = SpecWriter::write(after);
    std::vector<std::string> keys = statedChanges(before, after);
    // The unstated degrees and batch sizes that derive otherwise.
    const Layout was = layoutOf(before, devices), now = layoutOf(after, devices);
    const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> derivable[] = {{"dp", {was.dp, now.dp}},
                                                                                       {"micro_batch_size", {was.mbs, now.mbs}},
                                                                                       {"micro_batch_num", {was.mbn, now.mbn}},
                                                                                       {"global_batch_size", {was.gbs, now.gbs}}};
    for (const auto& [key, values] : derivable)
        if (values.first != values.second && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    auto derivedValue = [&](const std::string& key, bool after) {
        for (const auto& [name, values] : derivable)
            if (key == name) {
                const std::int64_t n = after ? values.second : values.first;
                return n > 0 ? Value::integer(n) : Value::null();
            }
        return Value::null();
    };
    std::vector<Change> out;
    for (const std::string& key : keys) {
        const Value* x = a.find(key);
        const Value* y = b.find(key);
        out.push_back({"exec." + key, x ? *x : derivedValue(key, false), y ? *y : derivedValue(key, true), !edited.contains(key),
                       !x && !y});
    }
    // The edit first, then what it binds, each in the field table's order.
    std::stable_sort(out.begin(), out.end(), [](const Change& x, const Change& y) { return !x.derived && y.derived; });
    return out;
}

std::vector<Change> rederive(const Scenario& stated, const std::string& key, const Value& newValue,
                             const std::set<std::string>& pinned) {
    const std::string k = execKey(key);
    Value exec = SpecWriter::write(stated.exec);
    exec.set(k, newValue);
    Diagnostics d;
    ExecSpec next;
    SpecReader(exec, "exec", d).read(next);
    d.raiseIfAny();
    std::set<std::string> held = pinned;
    held.insert(k);
    const std::int64_t devices = statedDevices(stated.cluster);
    rederiveCoupled(stated.exec, next, devices, held);
    return changesBetween(stated.exec, next, devices, {k});
}

void applyChanges(Value& document, const std::vector<Change>& changes) {
    for (const Change& c : changes)
        if (!c.implicit) setAt(document, c.key, c.after.isNull() ? std::nullopt : std::optional<Value>(c.after));
}

}  // namespace tessera::core
