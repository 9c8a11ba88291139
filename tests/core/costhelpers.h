#pragma once
// Shared by the cost-model tests: a resolved scenario and its cost input from YAML.
#include <string>

#include "io/scenarioio.h"
#include "model/costinput.h"
#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::testing {

inline core::ResolvedScenario resolveYaml(const std::string& yaml) {
    return core::resolve(core::parseScenario(yaml, "test.yaml", core::Format::Yaml, ""));
}

inline core::CostInput inputYaml(const std::string& yaml) { return core::costInput(resolveYaml(yaml)); }

// The detailed estimate of a scenario from YAML.
inline core::Estimate estimateOfYaml(const std::string& yaml) {
    core::Estimate e;
    core::evaluate(inputYaml(yaml), &e);
    return e;
}

}  // namespace tessera::testing
