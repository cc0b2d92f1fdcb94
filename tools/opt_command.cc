// `mxla opt FILE.hlo [--passes=a,b] [--disable-pass=P] [--dump-dir=DIR]
//  [--time-passes] [--verify-each-pass]
//  [--emit=hlo|fused|llvm|llvm-opt|asm|dot|svg]
//  [--collapse-fusions]`: parse, verify, run the default pipeline (or the
// named passes; `--passes=` runs none), print the result at the requested
// stage.
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "driver/compile.h"
#include "driver/compile_pipeline.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "tools/commands.h"
#include "tools/file_util.h"
#include "tools/hlo_dot.h"

namespace mxla::tools {
namespace {

struct OptOptions {
  std::string input;
  std::optional<std::string> passes;  // absent: the default pipeline
  std::string dump_dir;
  std::vector<std::string> disabled;
  bool time_passes = false;
  bool verify_each_pass = false;
  std::string emit = "hlo";
  bool collapse_fusions = false;
  bool metadata = false;
};

// --emit: what to print, and whether it needs the jit's lowering + fusion.
enum class Picture { kNone, kDot, kSvg };
struct EmitStage {
  const char* name;
  bool fused;
  const char* dump_file = nullptr;  // the kernels' stage dump it prints
  Picture picture = Picture::kNone;
};
constexpr EmitStage kEmitStages[] = {
    {"hlo", false},
    {"fused", true},
    {"llvm", true, "llvm.ll"},
    {"llvm-opt", true, "llvm-opt.ll"},
    {"asm", true, "kernels.s"},
    {"dot", true, nullptr, Picture::kDot},
    {"svg", true, nullptr, Picture::kSvg},
};

absl::StatusOr<EmitStage> ParseEmit(const std::string& name) {
  std::vector<std::string> names;
  for (const EmitStage& stage : kEmitStages) {
    if (name == stage.name) return stage;
    names.push_back(stage.name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown --emit stage '", name, "' (stages: ", absl::StrJoin(names, ", "),
      ")"));
}

absl::StatusOr<CompileOptions> MakeCompileOptions(const OptOptions& options,
                                                  const EmitStage& stage) {
  CompileOptions compile;
  compile.backend = stage.fused ? Backend::kJit : Backend::kInterpreter;
  compile.pipeline.dump_dir = options.dump_dir;
  compile.pipeline.verify_each_pass_in_groups = options.verify_each_pass;
  // Nothing runs: no module is too large to inspect.
  compile.memory_limit_bytes = std::numeric_limits<int64_t>::max();
  for (const std::string& name : options.disabled) {
    RETURN_IF_ERROR(CreatePass(name).status());
    compile.pipeline.disabled_passes.insert(name);
  }
  if (options.passes.has_value()) {
    compile.passes = absl::StrSplit(*options.passes, ',', absl::SkipEmpty());
  }
  return compile;
}

absl::Status Optimize(const OptOptions& options) {
  ASSIGN_OR_RETURN(EmitStage stage, ParseEmit(options.emit));
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ReadHloModule(options.input);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module, VerifierMode::kBuilder);
  if (!verified.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.input, ": ", verified.message()));
  }
  ASSIGN_OR_RETURN(CompileOptions compile, MakeCompileOptions(options, stage));
  // The compile pipeline up to what the stage shows: the HLO passes, or the
  // kernels' optimized IR (its stages dump; nothing is linked or run).
  const bool kernels =
      stage.dump_file != nullptr || (stage.fused && !options.dump_dir.empty());
  ASSIGN_OR_RETURN(
      CompiledModule compiled,
      RunCompilePipeline(**module, compile, DefaultSubprogramCompilers(),
                         {.first = "hlo-passes",  // verified above
                          .last = kernels ? "optimize" : "hlo-passes",
                          .keep_dumps = stage.dump_file != nullptr}));
  if (options.time_passes) {
    std::cerr << PassTimingReport(compiled.report.passes);
    if (kernels) std::cerr << compiled.report.ToString();
  }
  module = std::move(compiled.module);
  if (stage.picture != Picture::kNone) {
    std::string dot =
        HloModuleToDot(**module, {.collapse_fusions = options.collapse_fusions});
    if (stage.picture == Picture::kSvg) {
      ASSIGN_OR_RETURN(dot, RenderSvg(dot));
    }
    std::cout << dot;
    return absl::OkStatus();
  }
  if (stage.dump_file == nullptr) {
    std::cout << (*module)->ToString({.metadata = options.metadata});
    return absl::OkStatus();
  }
  std::cout << compiled.dumps[stage.dump_file];
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
                  "Write the module after every pass that changes it and "
                  "passes.txt (per-pass timings) into this directory; with "
                  "a fused --emit stage also fused.hlo, llvm.ll, "
                  "llvm-opt.ll and kernels.s");
  opt->add_flag("--time-passes", options->time_passes,
                "Print a per-pass timing table to stderr");
  opt->add_flag("--verify-each-pass", options->verify_each_pass,
                "Verify the module after every pass that changes it, also "
                "inside the simplify-cse-dce group (by default verified "
                "once, after the group settles): names the pass that "
                "broke a module");
  opt->add_option("--emit", options->emit,
                  "What to print: hlo (after the passes), fused (after the "
                  "jit's lowering, fusion and row fusion), llvm, llvm-opt "
                  "(the kernels' LLVM IR before/after optimization), asm, or "
                  "the fused module as a Graphviz graph: dot (text) or svg "
                  "(rendered with Graphviz's dot)")
      ->capture_default_str();
  opt->add_flag("--metadata", options->metadata,
                "With --emit=hlo/fused: print each instruction's metadata "
                "(op_name, source_file, source_line), as dumps do");
  opt->add_flag("--collapse-fusions", options->collapse_fusions,
                "With --emit=dot/svg: draw each fusion as one node instead of "
                "a cluster holding its body");
  return [options] {
    absl::Status status = Optimize(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
