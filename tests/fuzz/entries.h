#pragma once
// The fuzz targets' bodies, as plain functions, so that the libFuzzer binaries
// (tests/fuzz, clang) and the regression test (tests/core/tst_fuzzregress.cpp,
// the normal build) run exactly the same code on an input.
//
// Each takes raw bytes and runs them the way the command line would: load, then
// (when the loader accepts) resolve and price the strategy. The contract under
// test: an input ends either accepted or refused with a SpecError that says
// something. Anything else - another exception type, an empty refusal, a NaN or
// negative figure in an accepted estimate, a crash, a sanitizer report - is a bug.
// The functions let such exceptions escape (libFuzzer reports them as crashes;
// the regression test fails on them); they return 0 when the input was accepted
// and 1 when it was refused.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "doc/document.h"

namespace tessera::fuzz {

// What one input came to: accepted, or the refusal's text (one diagnostic per line).
struct Outcome {
    bool accepted = false;
    std::string refusal;
};

// A scenario file: parseScenario, resolve, estimate and its report.
Outcome runScenario(std::string_view text, core::Format format);
// A Hugging Face config.json: the JSON loader, importHfConfig, the model section
// reader, resolveModel and the parameter count (as `import-hf`), then the model
// priced on a fixed small cluster.
Outcome runHfConfig(std::string_view text);
// A HyperParallel train.yaml: the YAML loader, scenarioFromTrainYaml, then (as
// `import-train --device h100-sxm --devices 64`) resolve, estimate, and the
// train.yaml written back over the original.
Outcome runTrainYaml(std::string_view text);
// Any trainer's file (tessera import): recognised by content, read as
// `import --device h100-sxm --devices 64` reads it, resolved and priced, then
// exported to Megatron-LM's arguments and torchtitan's TOML.
Outcome runImport(std::string_view text);

// Relative file references (`model: {file: ...}`) resolve against this folder,
// so the seed corpus's references to tests/data files still load.
std::string fuzzBaseDir();

}  // namespace tessera::fuzz

// The libFuzzer entry points: bytes in, 0 accepted, 1 refused.
int fuzzScenario(const std::uint8_t* data, std::size_t size);  // as YAML, then as JSON
int fuzzHf(const std::uint8_t* data, std::size_t size);
int fuzzTrainYaml(const std::uint8_t* data, std::size_t size);
int fuzzImport(const std::uint8_t* data, std::size_t size);
