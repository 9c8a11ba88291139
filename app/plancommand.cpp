#include "plancommand.h"

#include <iostream>

#include "cli.h"
#include "doc/files.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "plan/describe.h"
#include "plan/planexec.h"
#include "report/planreport.h"
#include "resolve/resolve.h"

namespace tessera::app {

using namespace tessera::core;

int cmdPlan(const std::vector<std::string>& args) {
    std::string file, ppb, output;
    std::vector<std::string> overrides;
    bool json = false, force = false, keepPartition = false, keepRecompute = false, offload = false;
    auto next = [&](std::size_t& i, const char* what) -> const std::string& {
        if (i + 1 >= args.size()) throw UsageError{std::string("plan: ") + args[i] + " needs " + what};
        return args[++i];
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") json = true;
        else if (a == "--force") force = true;
        else if (a == "--keep-partition") keepPartition = true;
        else if (a == "--keep-recompute") keepRecompute = true;
        else if (a == "--offload") offload = true;
        else if (a == "--ppb") ppb = next(i, "a file name");
        else if (a == "-o" || a == "--output") output = next(i, "a file name");
        else if (a == "--set") overrides.push_back(next(i, "section.key=value"));
        else if (a.starts_with("--set=")) overrides.push_back(a.substr(6));
        else if (a.starts_with("-")) throw UsageError{"plan: unknown option " + a};
        else if (file.empty()) file = a;
        else throw UsageError{"plan takes one FILE"};
    }
    if (file.empty()) throw UsageError{"plan needs a FILE"};
    if (keepPartition && keepRecompute) throw UsageError{"plan: --keep-partition and --keep-recompute leave nothing to plan"};

    const Scenario stated = loadStated(file, overrides);
    const ResolvedScenario r = resolve(stated);
    const CostInput in = costInput(r);
    const Estimate before = estimate(r);
    const PlanRequest request = planRequest(r, !keepPartition, !keepRecompute, offload);
    if (!ppb.empty()) {
        const std::string name = r.scenario.model.name.value_or(r.scenario.model.arch.value_or("model"));
        writeFileAtomically(ppb, ppbJson(describeLayers(in, request.selectiveKeep, name)), force);
    }
    const Plan plan = planStrategy(in, request);
    // The plan as the exec section states it, resolved and priced again: what `estimate`
    // of the written scenario says, which the plan's own figures must equal.
    std::optional<ResolvedScenario> planned;
    std::optional<Estimate> after;
    Scenario withPlan = stated;
    if (plan.planned && plan.fits) {
        withPlan.exec = planExec(stated.exec, plan);
        planned = resolve(withPlan);
        after = estimate(*planned);
    }
    const PlanReport report{r, before, plan, planned ? &*planned : nullptr, after ? &*after : nullptr};
    std::cout << (json ? planJson(report) : planText(report));
    if (!output.empty()) {
        if (!planned) throw std::runtime_error("no plan fits: nothing to write to " + output);
        writeFileAtomically(output, scenarioYaml(withPlan), force);
        if (!json) std::cout << "\nWrote " << output << " with the plan in its exec section\n";
    }
    if (!ppb.empty() && !json) std::cout << "Wrote the layer descriptions to " << ppb << '\n';
    return plan.fits ? kExitOk : kExitInvalid;
}

}  // namespace tessera::app
