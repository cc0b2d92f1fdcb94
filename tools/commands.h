// The subcommands of the `mxla` tool. Each registers its CLI11 subcommand
// and returns the function that runs it; the function returns the process
// exit status (0 success, 1 user error after printing "error: ..." to
// stderr).
#ifndef MXLA_TOOLS_COMMANDS_H_
#define MXLA_TOOLS_COMMANDS_H_

#include <functional>

#include "CLI/CLI.hpp"

namespace mxla::tools {

using CommandRunner = std::function<int()>;

CommandRunner RegisterOptCommand(CLI::App& app);
CommandRunner RegisterDemoCommand(CLI::App& app);
CommandRunner RegisterRunCommand(CLI::App& app);
CommandRunner RegisterBenchCommand(CLI::App& app);
CommandRunner RegisterStatsCommand(CLI::App& app);
CommandRunner RegisterCompileCommand(CLI::App& app);

// Prints "error: <message>" to stderr and returns 1.
int ReportError(const std::string& message);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_COMMANDS_H_
