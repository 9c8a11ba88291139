#pragma once
// tessera plan FILE [--json] [--set k=v]... [--keep-partition] [--keep-recompute]
//                   [--ppb OUT.json] [-o OUT.yaml] [--force]
#include <string>
#include <vector>

namespace tessera::app {

int cmdPlan(const std::vector<std::string>& args);

}  // namespace tessera::app
