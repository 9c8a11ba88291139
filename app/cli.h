#pragma once
// The command-line front door: `tessera validate|show|presets|import-hf ...`.
// Runs without Qt; returns the process exit code (see usage()).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spec/scenario.h"

namespace tessera::app {

// A scenario from a path, or from a scenario preset id when no such file exists,
// with --set overrides applied to its document before it is read.
core::Scenario loadStated(const std::string& nameOrPath, const std::vector<std::string>& overrides = {});

// Whether argv names a CLI command (otherwise the GUI starts).
bool isCliInvocation(const std::vector<std::string>& args);
int runCli(const std::vector<std::string>& args);
// When the first argument is a word that is neither a command, a file nor a scenario
// preset ("estimat"): what to say, with the nearest command ("did you mean estimate?").
// main() prints it and exits kExitUsage rather than opening the window.
std::optional<std::string> unknownCommand(const std::vector<std::string>& args);
std::string usage();

// A command line that is wrong (exit 64, with the usage).
struct UsageError {
    std::string message;
};

// Runs a command body and maps what it throws to the exit codes below: usage
// errors (with `usageText`), unreadable files, refused input, anything else.
int runGuarded(const std::function<int()>& body, const std::string& usageText);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // could not read or write a file
inline constexpr int kExitInvalid = 2;   // the input was refused
inline constexpr int kExitUsage = 64;    // the command line itself is wrong

}  // namespace tessera::app
