#pragma once
// The command-line front door: `tessera validate|show|presets|import-hf ...`.
// Runs without Qt; returns the process exit code (see usage()).
#include <string>
#include <vector>

namespace tessera::app {

// Whether argv names a CLI command (otherwise the GUI starts).
bool isCliInvocation(const std::vector<std::string>& args);
int runCli(const std::vector<std::string>& args);
std::string usage();

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // could not read or write a file
inline constexpr int kExitInvalid = 2;   // the input was refused
inline constexpr int kExitUsage = 64;    // the command line itself is wrong

}  // namespace tessera::app
