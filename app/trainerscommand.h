#pragma once
// `tessera import CONFIG [--device PRESET] [--devices N] [--set S.K=V ...] [-o SCENARIO.yaml] [--force]`:
// a trainer's file, recognised by what it holds (core/trainers/trainers.h), turned
// into a scenario; what it does not price is listed in the scenario's header and on
// stderr. `tessera export SCENARIO --to megatron|torchtitan|train-yaml [--set ...] [-o OUT] [--force]`:
// the scenario's resolved strategy as that trainer's file; what the trainer cannot
// express is listed in the file's header and on stderr.
#include <string>
#include <vector>

namespace tessera::app {

int runImport(const std::vector<std::string>& args);
int runExport(const std::vector<std::string>& args);
std::string trainersUsage();

}  // namespace tessera::app
