#include "fit/fixes.h"

#include <functional>
#include <numeric>
#include <limits>
#include <set>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "pipeline/closedform.h"
#include "resolve/resolve.h"

namespace tessera::core {

namespace {

std::string num(std::int64_t n) { return std::to_string(n); }

// What the fixers read: the stated scenario, its resolved model, its layout.
struct Context {
    Scenario stated;
    std::optional<ModelSpec> model;
    std::int64_t devices = 0;
    Layout layout;
};

// A fix that sets `key` to a whole number, with what it binds re-derived.
Fix degreeFix(const Context& c, const std::string& key, std::int64_t value, const std::string& why) {
    Fix f{"exec." + key, Value::integer(value), "set exec." + key + " to " + num(value) + " " + why, {}};
    for (Change& change : rederive(c.stated, key, Value::integer(value)))
        if (change.derived) f.alongside.push_back(std::move(change));
    if (!f.alongside.empty()) {
        f.sentence += " (";
        for (std::size_t i = 0; i < f.alongside.size(); ++i) f.sentence += (i ? ", " : "") + f.alongside[i].text();
        f.sentence += ")";
    }
    return f;
}

Fix setFix(const std::string& path, Value value, const std::string& sentence) { return {path, std::move(value), sentence, {}}; }
Fix removeFix(const std::string& path, const std::string& sentence) { return {path, std::nullopt, sentence, {}}; }

// The nearest values below and above `now` that `valid` admits, within [1, most].
std::vector<std::int64_t> nearest(std::int64_t now, std::int64_t most, const std::function<bool(std::int64_t)>& valid) {
    std::vector<std::int64_t> out;
    for (std::int64_t v = std::min(now - 1, most); v >= 1; --v)
        if (valid(v)) {
            out.push_back(v);
            break;
        }
    for (std::int64_t v = now + 1; v <= most; ++v)
        if (valid(v)) {
            out.push_back(v);
            break;
        }
    return out;
}

// The nearest multiples of `step` to `n` (at least one step).
std::vector<std::int64_t> multiples(std::int64_t n, std::int64_t step) {
    if (step <= 0) return {};
    std::vector<std::int64_t> out;
    if (n / step >= 1) out.push_back(n / step * step);
    if (n / step < std::numeric_limits<std::int64_t>::max() / step - 1) out.push_back((n / step + 1) * step);
    return out;
}

void fixDp(const Context& c, std::vector<Fix>& out) {
    const ExecSpec& e = c.stated.exec;
    const Layout& l = c.layout;
    const std::int64_t q = checkedProduct({l.tp, l.pp, l.cp});
    if (!e.dp || q <= 0 || c.devices % q != 0 || checkedProduct({*e.dp, q}) == c.devices) return;
    out.push_back(degreeFix(c, "dp", c.devices / q, "so dp·tp·pp·cp = " + num(c.devices) + ", the devices"));
}

void fixBatch(const Context& c, std::vector<Fix>& out) {
    const ExecSpec& e = c.stated.exec;
    const std::int64_t dp = c.layout.dp;
    if (dp <= 0 || !e.global_batch_size) return;
    const std::int64_t gbs = *e.global_batch_size;
    const auto& mbs = e.micro_batch_size;
    const auto& mbn = e.micro_batch_num;
    if (mbs && mbn) {
        const std::int64_t all = checkedProduct({*mbs, *mbn, dp}), step = checkedProduct({*mbs, dp});
        if (all == gbs || step == 0) return;
        if (gbs % step == 0)
            out.push_back(setFix("exec.micro_batch_num", Value::integer(gbs / step),
                                 "set exec.micro_batch_num to " + num(gbs / step) +
                                     " so micro_batch_size · micro_batch_num · dp = " + num(gbs) + ", the global batch"));
        else if (all > 0)
            out.push_back(setFix("exec.global_batch_size", Value::integer(all),
                                 "set exec.global_batch_size to " + num(all) + " = micro_batch_size · micro_batch_num · dp"));
        return;
    }
    const std::int64_t step = checkedProduct({mbs ? *mbs : mbn ? *mbn : 1, dp});
    if (step == 0 || gbs % step == 0) return;
    const std::string what = mbs ? "micro_batch_size · dp" : mbn ? "micro_batch_num · dp" : "dp";
    for (std::int64_t g : multiples(gbs, step))
        out.push_back(
            setFix("exec.global_batch_size", Value::integer(g),
                   "set exec.global_batch_size to " + num(g) + ", the nearest multiple of " + what + " (" + num(step) + ")"));
}

void fixTp(const Context& c, std::vector<Fix>& out) {
    if (!c.model || !c.model->num_attention_heads || !c.model->num_key_value_heads) return;
    const ModelSpec& m = *c.model;
    const std::int64_t a = *m.num_attention_heads, g = *m.num_key_value_heads;
    auto valid = [&](std::int64_t t) {
        if (a % t != 0 || (!isMla(m) && g % t != 0)) return false;
        return !(m.linear_num_key_heads && m.linear_num_value_heads &&
                 (*m.linear_num_key_heads % t != 0 || *m.linear_num_value_heads % t != 0));
    };
    if (valid(c.layout.tp)) return;
    const std::string heads = isMla(m) ? num(a) + " attention heads" : num(a) + " attention and " + num(g) + " key/value heads";
    for (std::int64_t t : nearest(c.layout.tp, a, valid)) out.push_back(degreeFix(c, "tp", t, "(divides the " + heads + ")"));
}

void fixEp(const Context& c, std::vector<Fix>& out) {
    if (!c.model || !isMoe(*c.model)) return;
    const std::int64_t experts = *c.model->num_experts;
    if (experts % c.layout.ep == 0) return;
    for (std::int64_t v : nearest(c.layout.ep, experts, [&](std::int64_t x) { return experts % x == 0; }))
        out.push_back(degreeFix(c, "ep", v, "(divides the " + num(experts) + " experts)"));
}

// The rules that tie one switch to another.
void fixSwitches(const Context& c, const std::string& path, std::vector<Fix>& out) {
    const ExecSpec& e = c.stated.exec;
    const Layout& l = c.layout;
    const std::string schedule = e.pp_schedule.value_or("1f1b");
    const bool vShape = schedule == "zbv" || schedule == "dualpipev" || schedule == "v-half" || schedule == "v-min";
    const bool sharded = e.optimizer_parallel.value_or(false);
    if (path == "exec.sequence_parallel" && e.sequence_parallel.value_or(false) && l.tp == 1)
        out.push_back(setFix(path, Value::boolean(false), "set exec.sequence_parallel to false: it needs tp > 1"));
    else if (path == "exec.tp_comm_overlap" && e.tp_comm_overlap.value_or(false) && l.tp > 1 &&
             !e.sequence_parallel.value_or(false))
        out.push_back(setFix("exec.sequence_parallel", Value::boolean(true),
                             "set exec.sequence_parallel to true: tp_comm_overlap pipelines its collectives"));
    else if ((path == "exec.grad_shard" || path == "exec.grad_shard_as_params") && !sharded)
        out.push_back(setFix("exec.optimizer_parallel", Value::boolean(true),
                             "set exec.optimizer_parallel to true: sharded gradients need sharded optimizer states"));
    else if (path == "exec.optimizer_shard" && e.optimizer_shard && !sharded)
        out.push_back(setFix("exec.optimizer_parallel", Value::boolean(true),
                             "set exec.optimizer_parallel to true: optimizer_shard says how far the states shard"));
    else if (path == "exec.optimizer_shard" && e.optimizer_shard && l.dp > 0 &&
             checkedProduct({l.dp, e.shard_spans_cp.value_or(false) ? l.cp : 1}) % *e.optimizer_shard != 0)
        out.push_back(removeFix(path, "remove exec.optimizer_shard: the states shard over the whole data-parallel group"));
    else if (path == "exec.deferred_grad_accumulation" && e.deferred_grad_accumulation.value_or(false) &&
             !e.grad_shard_as_params.value_or(false))
        out.push_back(setFix(path, Value::boolean(false), "set exec.deferred_grad_accumulation to false: it needs FSDP"));
    else if (path == "exec.pp_schedule" && l.vpp > 1 && !interleavesChunks(scheduleNamed(schedule)) && !vShape)
        out.push_back(setFix(path, Value::string("interleaved"), "set exec.pp_schedule to interleaved, which runs vpp chunks"));
    else if (path == "exec.pp_schedule" && l.vpp == 1 && interleavesChunks(scheduleNamed(schedule))) {
        out.push_back(degreeFix(c, "vpp", 2, "so the " + schedule + " schedule has chunks to interleave"));
        const char* one = schedule == "interleaved" ? "1f1b" : "seqpipe";
        out.push_back(setFix(path, Value::string(one), "set exec.pp_schedule to " + std::string(one) + ", its schedule of one chunk a stage"));
    } else if (path == "exec.vpp" && vShape && l.vpp != 2)
        out.push_back(degreeFix(c, "vpp", 2, "(" + schedule + " runs two chunks a stage in a V)"));
    else if (path == "exec.seq_split" && e.seq_split.value_or(1) > 1 && !runsSequenceParts(scheduleNamed(schedule)))
        out.push_back(removeFix(path, "remove exec.seq_split: only the seqpipe and seqsmartvpp schedules split sequences"));
    else if (path == "exec.seq_split" && schedule == "seqsmartvpp" && l.pp > 0 && l.pp % e.seq_split.value_or(1) != 0)
        out.push_back(setFix(path, Value::integer(std::gcd(l.pp, e.seq_split.value_or(1))),
                             "set exec.seq_split to a divisor of pp, as seqsmartvpp needs"));
    else if (path == "exec.overlap_p2p_comm" && e.overlap_p2p_comm.value_or(false) && !interleavesChunks(scheduleNamed(schedule)))
        out.push_back(removeFix(path, "remove exec.overlap_p2p_comm: unstated, it follows the schedule"));
}

}  // namespace

std::vector<Fix> proposeFixes(const Value& document, const std::vector<Diagnostic>& problems, const std::string& baseDir) {
    Context c;
    try {
        c.stated = scenarioFromValue(document, "<document>", baseDir);
    } catch (const SpecError&) {
        return {};
    }
    try {
        c.model = resolveModel(c.stated);
    } catch (const SpecError&) {
    }
    c.devices = statedDevices(c.stated.cluster);
    c.layout = layoutOf(c.stated.exec, c.devices);
    std::vector<Fix> out;
    std::set<std::string> seen;  // one pass per path: a path with two problems gets its fixes once
    for (const Diagnostic& d : problems) {
        if (!seen.insert(d.path).second) continue;
        try {
            if (d.path == "exec.dp") fixDp(c, out);
            else if (d.path == "exec.global_batch_size") fixBatch(c, out);
            else if (d.path == "exec.tp") fixTp(c, out);
            else if (d.path == "exec.ep") fixEp(c, out);
            else fixSwitches(c, d.path, out);
        } catch (const SpecError&) {  // a fix whose re-derivation does not read is not offered
        }
    }
    return out;
}

void applyFix(Value& document, const Fix& fix) {
    setAt(document, fix.path, fix.value);
    applyChanges(document, fix.alongside);
}

}  // namespace tessera::core
