// `mxla stats DIR...`: tools/corpus_stats.h over every .hlo file given or
// found in the directories given (not recursively), in name order.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tools/commands.h"
#include "tools/corpus_stats.h"

namespace mxla::tools {
namespace {

struct StatsOptions {
  std::vector<std::string> inputs;
  CorpusOptions corpus;
  int64_t most_reasons = 40;
  bool verbose = false;
};

absl::StatusOr<std::vector<std::string>> ModuleFiles(
    const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (!std::filesystem::is_directory(input, error)) {
      if (!std::filesystem::exists(input, error)) {
        return absl::InvalidArgumentError(
            absl::StrCat(input, ": no such file or directory"));
      }
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(input, error)) {
      if (entry.path().extension() == ".hlo") found.push_back(entry.path());
    }
    if (error) {
      return absl::InvalidArgumentError(
          absl::StrCat(input, ": ", error.message()));
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

int RunStats(const StatsOptions& options) {
  absl::StatusOr<std::vector<std::string>> files = ModuleFiles(options.inputs);
  if (!files.ok()) return ReportError(std::string(files.status().message()));
  std::vector<ModuleOutcome> outcomes;
  for (const std::string& file : *files) {
    outcomes.push_back(EvaluateModuleFile(file, options.corpus));
    if (options.verbose) {
      std::cerr << file << ": " << DescribeOutcome(outcomes.back()) << "\n";
    }
  }
  std::cout << FormatCorpusReport(outcomes, options.most_reasons);
  return 0;
}

}  // namespace

CommandRunner RegisterStatsCommand(CLI::App& app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* stats = app.add_subcommand(
      "stats",
      "Report how many HLO modules in the given files and directories parse, "
      "verify, compile and run (matching the interpreter), and why the rest "
      "stop, grouped");
  stats->add_option("inputs", options->inputs,
                    ".hlo files, or directories whose .hlo files to read")
      ->required();
  stats->add_option("--max-run-elements", options->corpus.max_run_elements,
                    "Compile but do not run modules whose arguments and "
                    "results hold more elements")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  stats->add_option("--max-run-work", options->corpus.max_run_work,
                    "Compile but do not run modules whose instructions, each "
                    "once, take more element steps (a window's taps per "
                    "result, a reduce's inputs, a dot's products)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  stats->add_option("--max-loop-trips", options->corpus.max_loop_trips,
                    "Fail a module whose while loop goes through its body "
                    "more often (a loop on generated arguments may never end)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  stats->add_option("--reasons", options->most_reasons,
                    "How many reasons to list")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  stats->add_flag("--verbose", options->verbose,
                  "Print each module's outcome to stderr as it is known");
  return [options] { return RunStats(*options); };
}

}  // namespace mxla::tools
