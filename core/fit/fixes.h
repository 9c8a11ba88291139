#pragma once
// Mechanical fixes for the problems whose fix is determined: dp·tp·pp·cp ≠ devices
// (dp from the devices), a batch whose three sizes disagree (the micro-batches from
// the other two, else the global batch; the nearest multiples where a size must be
// one), a degree that must divide heads or experts (the nearest divisors below and
// above), and the switches one rule ties to another (sequence parallelism at tp 1, a
// schedule without the chunks it runs, ...). A problem is matched by its path and its
// rule checked again on the document's numbers, never by parsing its message, so a
// problem that only shares the path gets no fix.
#include <optional>
#include <string>
#include <vector>

#include "fit/rederive.h"

namespace tessera::core {

struct Fix {
    std::string path;               // "exec.dp"
    std::optional<Value> value;     // nullopt: remove the key (it derives, or is the run default)
    std::string sentence;           // "set exec.dp to 4 so dp·tp·pp·cp = 64"
    std::vector<Change> alongside;  // what the fix binds, re-derived (rederive.h), written with it
};

// Fixes for `problems` (resolve()'s, on the scenario `document` states; `baseDir` for
// the files it names). Nothing when the document does not read as a scenario.
std::vector<Fix> proposeFixes(const Value& document, const std::vector<Diagnostic>& problems, const std::string& baseDir = {});

// The fix written into the document, with what it binds.
void applyFix(Value& document, const Fix& fix);

}  // namespace tessera::core
