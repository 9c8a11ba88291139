#pragma once
// The knobs the fit advice turns, one at a time or two together, around the stated
// strategy: recompute (none, selective, full), sharding (none, the distributed
// optimizer - ZeRO-1 -, ZeRO-2, FSDP), the degrees tp, pp, cp and ep (doubled and
// halved), the micro-batch size, the pipeline schedule (with the chunks it runs), and
// activation and optimizer offload where the device has a host link. A knob sets its
// own keys; rederive.h derives what they bind, so every move is one valid edit or
// one resolve() refuses (then it is not offered).
#include <functional>
#include <string>
#include <vector>

#include "resolve/resolve.h"

namespace tessera::core {

struct Knob {
    std::string label;  // "recompute: full", "tp 2 with sequence parallelism"
    std::string group;  // two knobs of one group do not combine ("tp", "schedule", ...)
    std::function<void(ExecSpec&)> set;
};

// The knobs around `resolved`'s strategy (the stated exec is `stated.exec`): each
// changes something, none repeats the strategy as it stands.
std::vector<Knob> knobsAround(const Scenario& stated, const ResolvedScenario& resolved);

}  // namespace tessera::core
