#pragma once
// Megatron-LM's arguments as a launch script passes them, and as its YAML
// configuration (--yaml-cfg) states them, read into one list (internal to
// core/trainers).
//
// The launch text is read as a shell would split it - comments, `\` line
// continuations, single and double quotes - and may start with the launcher
// (`torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py`, `python
// pretrain_gpt.py`). So that a published script's argument arrays can be pasted as
// they are, `NAME=(` and `)` around arguments are taken as grouping, a reference
// `${NAME[@]}` to an array the text defines is skipped (its arguments were read
// where it was defined), and a quoted "--flag value" is split as the unquoted
// expansion of such an array splits it. Anything else that is not an argument is
// refused at its line and column.
#include <string>
#include <string_view>
#include <vector>

#include "doc/document.h"

namespace tessera::core::trainers {

struct LaunchArg {
    std::string name;                 // canonical: "tensor-model-parallel-size"
    std::string spelled;              // as the file spells it: "--tensor-model-parallel-size", "model_parallel.sequence_parallel"
    std::vector<std::string> values;  // none for a flag given without one
    Mark mark;
};

struct Launch {
    std::vector<LaunchArg> launcher;  // the launcher's own options (torchrun's)
    std::string launcherProgram;      // "torchrun", "python", or empty
    Mark launcherMark;
    std::vector<LaunchArg> args;      // the training script's
};

// Whether the text reads as a list of Megatron-LM arguments (it names at least one
// of the arguments every run states).
bool looksLikeMegatronArgs(std::string_view text);
Launch parseLaunch(std::string_view text, const std::string& file, Diagnostics& d);
// Megatron-LM's YAML configuration: language_model and model_parallel flattened with
// the top level, each key spelled as its argument (underscores as hyphens).
Launch megatronYamlArgs(const Value& root, Diagnostics& d);
bool isMegatronYaml(const Value& root);

}  // namespace tessera::core::trainers
