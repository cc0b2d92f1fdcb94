// `mxla opt FILE.hlo [--passes=a,b] [--dump-dir=DIR] [--time-passes]`: parse,
// verify, run the default pipeline (or the named passes; `--passes=` runs
// none), print the result.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "tools/commands.h"
#include "tools/file_util.h"

namespace mxla::tools {
namespace {

struct OptOptions {
  std::string input;
  std::optional<std::string> passes;  // absent: the default pipeline
  std::string dump_dir;
  std::vector<std::string> disabled;
  bool time_passes = false;
};

absl::StatusOr<std::unique_ptr<PassPipeline>> MakePipeline(
    const OptOptions& options) {
  PipelineOptions pipeline_options;
  pipeline_options.dump_dir = options.dump_dir;
  for (const std::string& name : options.disabled) {
    if (!CreatePass(name).ok()) return CreatePass(name).status();
    pipeline_options.disabled_passes.insert(name);
  }
  if (!options.passes.has_value()) {
    return CreateDefaultPipeline(std::move(pipeline_options));
  }
  std::vector<std::string> names =
      absl::StrSplit(*options.passes, ',', absl::SkipEmpty());
  return CreatePipeline(names, std::move(pipeline_options));
}

absl::Status Optimize(const OptOptions& options) {
  ASSIGN_OR_RETURN(std::string text, ReadFileOrStdin(options.input));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.input, ":", module.status().message()));
  }
  absl::Status verified = VerifyModule(**module, VerifierMode::kBuilder);
  if (!verified.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.input, ": ", verified.message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                   MakePipeline(options));
  ASSIGN_OR_RETURN(bool changed, pipeline->Run(**module));
  (void)changed;
  std::cout << (*module)->ToString();
  if (options.time_passes) std::cerr << pipeline->TimingReport();
  return absl::OkStatus();
}

}  // namespace

CommandRunner RegisterOptCommand(CLI::App& app) {
  auto options = std::make_shared<OptOptions>();
  CLI::App* opt = app.add_subcommand(
      "opt", "Parse and verify an HLO text file, run passes, print the result");
  opt->add_option("file", options->input, "HLO text file ('-' for stdin)")
      ->required();
  opt->add_option("--passes", options->passes,
                  absl::StrCat("Comma-separated passes to run instead of the "
                               "default pipeline; empty runs none. Passes: ",
                               absl::StrJoin(AvailablePassNames(), ", ")));
  opt->add_option("--disable-pass", options->disabled,
                  "Skip this pass wherever it appears (repeatable)");
  opt->add_option("--dump-dir", options->dump_dir,
                  "Write the module after every pass that changes it, and "
                  "passes.txt, into this directory");
  opt->add_flag("--time-passes", options->time_passes,
                "Print a per-pass timing table to stderr");
  return [options] {
    absl::Status status = Optimize(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
