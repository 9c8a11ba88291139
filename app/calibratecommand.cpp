#include "calibratecommand.h"

#include <filesystem>
#include <iostream>

#include "calibrate/calibrate.h"
#include "cli.h"
#include "doc/files.h"
#include "io/calibrationio.h"
#include "report/calibratereport.h"

namespace tessera::app {

using namespace tessera::core;

int cmdCalibrate(const std::vector<std::string>& args) {
    std::string runs, output;
    std::vector<std::string> fit;
    bool force = false;
    auto next = [&](std::size_t& i, const char* what) -> const std::string& {
        if (i + 1 >= args.size()) throw UsageError{std::string("calibrate: ") + args[i] + " needs " + what};
        return args[++i];
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--force") force = true;
        else if (a == "-o" || a == "--output") output = next(i, "a file name");
        else if (a == "--fit") {
            const std::string& list = next(i, "parameter names, comma-separated");
            for (std::size_t start = 0; start <= list.size();) {
                const std::size_t comma = std::min(list.find(',', start), list.size());
                if (comma > start) fit.push_back(list.substr(start, comma - start));
                start = comma + 1;
            }
            if (fit.empty()) throw UsageError{"calibrate: --fit needs parameter names"};
        } else if (a.starts_with("-")) throw UsageError{"calibrate: unknown option " + a};
        else if (runs.empty()) runs = a;
        else throw UsageError{"calibrate takes one RUNS file"};
    }
    if (runs.empty()) throw UsageError{"calibrate needs a RUNS file"};
    if (output.empty()) throw UsageError{"calibrate needs -o FILE: where to write the calibration"};

    const Calibration c = calibrate(readRunsFile(runs), fit);
    std::cout << calibrationText(c);
    writeFileAtomically(output, calibrationYaml(c.spec), force);
    std::cout << "\nWrote " << output << ": a scenario uses it with cluster: {calibration: "
              << std::filesystem::path(output).filename().string() << "} (relative to the scenario's folder)\n";
    return kExitOk;
}

}  // namespace tessera::app
