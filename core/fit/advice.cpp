#include "fit/advice.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "fit/moves.h"
#include "units/units.h"

namespace tessera::core {

DominantTerm dominantTerm(const Estimate& e) {
    DominantTerm d;
    d.limit = e.deviceMemory;
    if (e.stages.empty()) return d;
    const StageEstimate& st = e.stages[std::size_t(std::clamp(e.peakStage, 0, int(e.stages.size()) - 1))];
    d.stage = st.stage;
    d.device = st.hasMirror;
    d.total = st.memory.total();
    for (const MemoryTerm& term : kMemoryTerms)
        if (st.memory.*term.bytes > d.bytes || d.key.empty())
            d.key = term.key, d.name = term.name, d.bytes = st.memory.*term.bytes;
    d.share = d.total > 0 ? double(d.bytes) / double(d.total) : 0;
    d.over = std::int64_t(d.total) - std::int64_t(d.limit);
    std::string name = d.name;
    if (!name.empty()) name[0] = char(std::tolower(static_cast<unsigned char>(name[0])));
    d.sentence = formatText("%s %d holds %s GiB of %s GiB", d.device ? "device" : "stage", d.stage, gibNumber(d.total).c_str(),
                            gibNumber(d.limit).c_str());
    if (d.over > 0) d.sentence += formatText(" (%s GiB over)", gibNumber(Bytes(d.over)).c_str());
    else d.sentence += formatText(" (%s GiB to spare)", gibNumber(Bytes(-d.over)).c_str());
    d.sentence += formatText(": %s %s GiB (%.0f %%) %s", name.c_str(), gibNumber(d.bytes).c_str(), d.share * 100,
                             d.over > 0 ? "dominate" : "are the largest term");
    return d;
}

namespace {

struct Move {
    std::vector<std::size_t> knobs;  // indices into the knob list
    ExecSpec exec;
    std::set<std::string> edited;
    bool priced = false;
    Estimate estimate;
};

// The knobs set on the stated exec, what they bind re-derived; nullopt when they change nothing.
std::optional<Move> moveOf(const Scenario& stated, const std::vector<Knob>& knobs, std::vector<std::size_t> ids,
                           std::int64_t devices) {
    Move m;
    m.exec = stated.exec;
    for (std::size_t i : ids) knobs[i].set(m.exec);
    const std::vector<std::string> edited = statedChanges(stated.exec, m.exec);
    m.edited = {edited.begin(), edited.end()};
    if (m.edited.empty()) return std::nullopt;
    rederiveCoupled(stated.exec, m.exec, devices, m.edited);
    m.knobs = std::move(ids);
    return m;
}

// As `tessera estimate` prices it: resolve(), then estimate().
void price(const Scenario& stated, Move& m) {
    Scenario s = stated;
    s.exec = m.exec;
    try {
        m.estimate = estimate(resolve(s));
        m.priced = true;
    } catch (const Error&) {  // refused (SpecError), or anything else Tessera throws: not offered
        m.priced = false;
    }
}

// The best `n` priced moves by `better` among those `keep` admits, one a knob group.
template <class Keep, class Better>
std::vector<std::size_t> best(const std::vector<Move>& moves, const std::vector<Knob>& knobs, std::size_t n, Keep keep,
                              Better better) {
    std::vector<std::size_t> admitted, out;
    for (std::size_t i = 0; i < moves.size(); ++i)
        if (moves[i].priced && keep(moves[i])) admitted.push_back(i);
    std::stable_sort(admitted.begin(), admitted.end(), [&](std::size_t a, std::size_t b) { return better(moves[a], moves[b]); });
    std::set<std::string> groups;
    for (std::size_t i : admitted)
        if (out.size() < n && groups.insert(knobs[moves[i].knobs.front()].group).second) out.push_back(i);
    return out;
}

// A fitting strategy's move is offered as faster when it saves at least this share of the step.
constexpr double kFaster = 1e-3;

// Which two knobs are worth pricing together. Every move is a resolve() and an estimate,
// and a schedule priced by simulating it (dualpipe, zbv, the V schedules) takes
// milliseconds, so not every pair: the few single moves that are fastest (F) and the few
// that are lightest (L), one a group, paired F×F and F×L for a strategy that fits (two
// speed-ups, or a speed-up that needs room and a knob that makes it), F×L and L×L for
// one that does not (a knob that is not enough, and another).
constexpr std::size_t kPairPool = 4;

std::vector<Move> pairsOf(const Scenario& stated, const std::vector<Knob>& knobs, const std::vector<Move>& singles,
                          const Estimate& now, std::int64_t devices) {
    const std::vector<std::size_t> fast = best(
        singles, knobs, kPairPool, [&](const Move& m) { return m.estimate.stepSeconds < now.stepSeconds; },
        [](const Move& a, const Move& b) { return a.estimate.stepSeconds < b.estimate.stepSeconds; });
    const std::vector<std::size_t> light = best(
        singles, knobs, kPairPool, [&](const Move& m) { return m.estimate.peakMemory < now.peakMemory; },
        [](const Move& a, const Move& b) { return a.estimate.peakMemory < b.estimate.peakMemory; });
    std::set<std::pair<std::size_t, std::size_t>> pairs;  // knob indices, in knob order
    auto pairUp = [&](const std::vector<std::size_t>& xs, const std::vector<std::size_t>& ys) {
        for (std::size_t x : xs)
            for (std::size_t y : ys) {
                const std::size_t a = singles[x].knobs.front(), b = singles[y].knobs.front();
                if (knobs[a].group != knobs[b].group) pairs.insert({std::min(a, b), std::max(a, b)});
            }
    };
    pairUp(fast, light);
    pairUp(now.fits ? fast : light, now.fits ? fast : light);
    std::vector<Move> out;
    for (const auto& [a, b] : pairs)
        if (auto m = moveOf(stated, knobs, {a, b}, devices)) out.push_back(std::move(*m));
    return out;
}

std::string suggestionSentence(const Suggestion& s, const Estimate& now) {
    std::string knobs;
    for (const std::string& k : s.knobs) knobs += (knobs.empty() ? "" : " + ") + k;
    double change = now.stepSeconds > 0 ? (s.stepSeconds / now.stepSeconds - 1) * 100 : 0;
    if (std::abs(change) < 0.05) change = 0;  // no "-0.0 %"
    return formatText("%s: %s GiB, %s; step %s (%+.1f %%)", knobs.c_str(), gibNumber(s.peakMemory).c_str(),
                      s.fits ? "fits" : "does not fit", formatSeconds(s.stepSeconds).c_str(), change);
}

// A two-knob move one of whose knobs alone does as well (fits as it does, as fast) says nothing more.
bool dominated(const Move& m, const std::vector<Move>& moves) {
    if (m.knobs.size() < 2) return false;
    return std::any_of(moves.begin(), moves.end(), [&](const Move& single) {
        return single.priced && single.knobs.size() == 1 &&
               std::find(m.knobs.begin(), m.knobs.end(), single.knobs.front()) != m.knobs.end() &&
               single.estimate.fits >= m.estimate.fits && single.estimate.stepSeconds <= m.estimate.stepSeconds;
    });
}

std::string summaryOf(const FitAdvice& a, std::size_t fitting) {
    const std::string of = formatText("of %zu one- and two-knob moves priced (%zu refused by the rules)", a.priced, a.refused);
    if (!a.fits)
        return fitting ? formatText("What would fit, fewest changes first (%zu fit, %s):", fitting, of.c_str())
                       : "None " + of + " fits; the closest:";
    return a.suggestions.empty() ? "None " + of + " is faster and still fits."
                                 : "Faster strategies that still fit, fastest first (" + of + "):";
}

}  // namespace

FitAdvice adviseFit(const Scenario& stated, const ResolvedScenario& r, const Estimate& now, const FitOptions& options) {
    FitAdvice out;
    out.fits = now.fits, out.peakMemory = now.peakMemory;
    out.stepSeconds = now.stepSeconds, out.tokensPerSecond = now.tokensPerSecond;
    out.dominant = dominantTerm(now);
    const std::int64_t devices = *r.scenario.cluster.devices;
    const std::vector<Knob> knobs = knobsAround(stated, r);
    std::vector<Move> moves;
    for (std::size_t i = 0; i < knobs.size(); ++i)
        if (auto m = moveOf(stated, knobs, {i}, devices)) moves.push_back(std::move(*m));
    for (Move& m : moves) price(stated, m);
    // Over the device, suggestions go fewest knobs first: with `limit` single moves that
    // fit, no pair would be shown.
    const auto fittingSingles =
        std::count_if(moves.begin(), moves.end(), [](const Move& m) { return m.priced && m.estimate.fits; });
    if (options.pairs && (now.fits || std::size_t(fittingSingles) < options.limit)) {
        std::vector<Move> pairs = pairsOf(stated, knobs, moves, now, devices);
        for (Move& m : pairs) {
            // Two knobs that bind to the same strategy as a priced move are that move.
            if (std::any_of(moves.begin(), moves.end(), [&](const Move& o) { return o.exec == m.exec; })) continue;
            price(stated, m);
            moves.push_back(std::move(m));
        }
    }
    out.priced = moves.size();
    out.refused = std::size_t(std::count_if(moves.begin(), moves.end(), [](const Move& m) { return !m.priced; }));

    std::vector<const Move*> chosen, closest;
    for (const Move& m : moves) {
        if (!m.priced || m.exec == stated.exec || dominated(m, moves)) continue;
        const Estimate& e = m.estimate;
        if (e.fits && (!now.fits || e.stepSeconds < now.stepSeconds * (1 - kFaster))) chosen.push_back(&m);
        else if (!now.fits && !e.fits && e.peakMemory < now.peakMemory) closest.push_back(&m);
    }
    std::stable_sort(chosen.begin(), chosen.end(), [&](const Move* a, const Move* b) {
        if (!now.fits && a->knobs.size() != b->knobs.size()) return a->knobs.size() < b->knobs.size();
        return a->estimate.stepSeconds < b->estimate.stepSeconds;
    });
    std::stable_sort(closest.begin(), closest.end(),
                     [](const Move* a, const Move* b) { return a->estimate.peakMemory < b->estimate.peakMemory; });
    // Two moves that price alike, to the byte and to the second, are one suggestion (beside
    // flash attention, Megatron's selective recompute keeps what none keeps): the first.
    auto alike = [](const Move* a, const Move* b) {
        return a->estimate.peakMemory == b->estimate.peakMemory && a->estimate.stepSeconds == b->estimate.stepSeconds;
    };
    chosen.erase(std::unique(chosen.begin(), chosen.end(), alike), chosen.end());
    closest.erase(std::unique(closest.begin(), closest.end(), alike), closest.end());
    const std::size_t fitting = chosen.size();
    chosen.insert(chosen.end(), closest.begin(), closest.end());
    if (chosen.size() > options.limit) chosen.resize(options.limit);
    for (const Move* m : chosen) {
        Suggestion s;
        for (std::size_t k : m->knobs) s.knobs.push_back(knobs[k].label);
        s.changes = changesBetween(stated.exec, m->exec, devices, m->edited);
        s.exec = m->exec;
        s.peakMemory = m->estimate.peakMemory, s.stepSeconds = m->estimate.stepSeconds;
        s.tokensPerSecond = m->estimate.tokensPerSecond, s.fits = m->estimate.fits;
        s.sentence = suggestionSentence(s, now);
        out.suggestions.push_back(std::move(s));
    }
    out.summary = summaryOf(out, fitting);
    return out;
}

FitAdvice adviseFit(const Scenario& stated, const FitOptions& options) {
    const ResolvedScenario r = resolve(stated);
    return adviseFit(stated, r, estimate(r), options);
}

}  // namespace tessera::core
