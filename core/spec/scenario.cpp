#include "spec/scenario.h"

namespace tessera::core {

Mark Scenario::markOf(const std::string& path) const {
    std::string at = path;
    while (true) {
        if (auto it = marks.find(at); it != marks.end()) return it->second;
        const auto dot = at.find_last_of(".[");
        if (dot == std::string::npos) break;
        at.resize(dot);
    }
    return Mark{source};
}

}  // namespace tessera::core
