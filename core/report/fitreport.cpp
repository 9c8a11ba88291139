#include "report/fitreport.h"

#include "doc/emit.h"
#include "io/specwriter.h"
#include "units/units.h"

namespace tessera::core {

namespace {

// "sets tp 1 → 2; derived: dp 128 → 64, micro_batch_num 120 → 240"
std::string changesLine(const std::vector<Change>& changes) {
    std::string set, derived;
    for (const Change& c : changes) {
        Change shown = c;
        shown.derived = false;  // the group says it
        std::string& to = c.derived ? derived : set;
        to += (to.empty() ? "" : ", ") + shown.text();
    }
    std::string out = "sets " + set;
    if (!derived.empty()) out += "; derived: " + derived;
    return out;
}

}  // namespace

std::string fitText(const FitAdvice& a) {
    std::string out = a.fits ? "Headroom\n" : "Why it does not fit\n";
    out += "  " + a.dominant.sentence + "\n";
    out += a.summary + "\n";
    for (std::size_t i = 0; i < a.suggestions.size(); ++i) {
        const Suggestion& s = a.suggestions[i];
        out += formatText("%3zu. %s\n       %s\n", i + 1, s.sentence.c_str(), changesLine(s.changes).c_str());
    }
    return out;
}

nlohmann::ordered_json fitJson(const FitAdvice& a) {
    using json = nlohmann::ordered_json;
    const DominantTerm& d = a.dominant;
    json out;
    out["fits"] = a.fits;
    out["dominant"] = {{"stage", d.stage},
                       {"device", d.device},
                       {"term", d.key},
                       {"name", d.name},
                       {"bytes", d.bytes},
                       {"share", d.share},
                       {"stage_total_bytes", d.total},
                       {"limit_bytes", d.limit},
                       {"over_bytes", d.over},
                       {"sentence", d.sentence}};
    out["summary"] = a.summary;
    out["priced"] = a.priced;
    out["refused"] = a.refused;
    json suggestions = json::array();
    for (const Suggestion& s : a.suggestions) {
        json changes = json::array();
        for (const Change& c : s.changes)
            changes.push_back({{"key", c.key},
                               {"before", toJson(c.before)},
                               {"after", toJson(c.after)},
                               {"derived", c.derived},
                               {"implicit", c.implicit}});
        suggestions.push_back({{"knobs", s.knobs},
                               {"changes", changes},
                               {"peak_bytes", s.peakMemory},
                               {"step_seconds", s.stepSeconds},
                               {"tokens_per_second", s.tokensPerSecond},
                               {"fits", s.fits},
                               {"sentence", s.sentence},
                               {"exec", toJson(SpecWriter::write(s.exec))}});
    }
    out["suggestions"] = suggestions;
    return out;
}

}  // namespace tessera::core
