#pragma once
// `tessera import-train TRAIN.yaml [-o SCENARIO.yaml] [--force] [--device PRESET] [--devices N]`:
// a HyperParallel train.yaml turned into a Tessera scenario.
//
// A train.yaml never names the device, and names the device count only in a
// context section, so those two come from the command line; a train.yaml that
// states a count and a --devices that disagrees is refused rather than one
// silently winning. The scenario is resolved before it is written, as
// import-hf resolves its model: a file that imports but cannot be priced is
// refused now, each problem at its line in the train.yaml, not later.
#include <string>
#include <vector>

namespace tessera::app {

// args: everything after `import-train`. Returns 0, 1 (a file could not be read
// or written), 2 (the input was refused) or 64 (the command line is wrong);
// prints its own messages.
int runImportTrain(const std::vector<std::string>& args);

// The usage lines for `tessera --help`.
std::string importTrainUsage();

}  // namespace tessera::app
