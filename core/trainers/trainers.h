#pragma once
// The trainers' own files, both ways: what a team already launches with, read as the
// scenario it states, and a scenario written back as what the trainer launches.
//
// Reading recognises a file by what it holds, never by its name: a Hugging Face
// config.json (model only), HyperParallel's train.yaml and search configuration,
// Megatron-LM's command-line arguments (a launch script's list, `\` continuations,
// comments, a leading `torchrun ... pretrain_gpt.py`) and its YAML configuration
// (--yaml-cfg), torchtitan's TOML job configuration, MindSpeed's model JSON and
// MindFormers' YAML. Every argument or key is either priced (it becomes a model,
// exec or cluster field whose value keeps the file's position, so a later refusal
// points at its line), refused by name, or listed in `unpriced` with why: none is
// dropped. What the reader fills from the trainer's own defaults (Megatron-LM's
// 0.1 dropout, its allgather dispatcher, ...) is recorded in `assumed`.
//
// Writing states every strategy field in the trainer's spelling, or names the
// stated field the trainer cannot express in `unexpressed`, which the file's header
// repeats: nothing is left out silently.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doc/document.h"
#include "resolve/resolve.h"

namespace tessera::core {

enum class ConfigFormat { HfConfig, TrainYaml, SeedSearch, MegatronArgs, MegatronYaml, Torchtitan, MindSpeed, MindFormers };
// "Megatron-LM arguments", "torchtitan TOML", ...
std::string formatName(ConfigFormat format);

// An argument or key of the file that changes nothing Tessera prices, and why.
struct Unpriced {
    Mark mark;
    std::string key;  // as the file spells it: "--lr", "[optimizer] lr", "training.seed"
    std::string why;
    std::string text() const;  // "file:3:5: --lr: why"
};

struct Imported {
    ConfigFormat format = ConfigFormat::HfConfig;
    Value scenario;                               // model, exec, cluster (and search)
    std::vector<Unpriced> unpriced;               // in file order
    std::map<std::string, std::string> assumed;   // "exec.overlapped_grad_reduce" -> why
};

// What the command line adds: the device (no trainer file names it) and the device
// count where the file does not state one (a stated count must agree with it).
struct ImportCluster {
    std::optional<Value> device;
    std::optional<std::int64_t> devices;
};

// The format the text is in; nullopt when it is none of them (`why` says what it
// looked like). Throws LoadError when it is YAML or JSON that does not parse.
std::optional<ConfigFormat> detectFormat(std::string_view text, const std::string& name, std::string* why = nullptr);
// The scenario the file states; problems go to `d`, each at its place in the file.
Imported importConfig(std::string_view text, const std::string& name, const std::string& baseDir,
                      const ImportCluster& cluster, Diagnostics& d);

enum class ExportTarget { Megatron, Torchtitan, TrainYaml };
std::optional<ExportTarget> exportTargetOf(std::string_view name);  // megatron, torchtitan, train-yaml

struct Exported {
    std::string text;
    std::vector<std::string> unexpressed;  // "exec.memory_reserve: why", also in the text's header
};
// The trainer's file for the resolved strategy. Throws SpecError for a strategy the
// trainer would run differently than priced (the train.yaml writer's refusals).
Exported exportScenario(const ResolvedScenario& r, ExportTarget target);

}  // namespace tessera::core
