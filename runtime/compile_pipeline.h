// The compile pipeline: every stage from builder HLO to linked kernels, in
// one list (CompilePipeline::Create) that also declares what differs
// between the backends. Each stage is timed (CompileReport) and, with a
// dump directory, dumped by the one compile that runs it:
//
//   stage           backends          dumps
//   verify          jit, interpreter  -
//   hlo-passes      jit, interpreter  00-input.hlo, NN-<pass>.hlo, passes.txt
//     the default pass list (or the user's), then, for the jit, the passes
//     codegen needs (expanders, fusion, fusion-planning), which do nothing
//     when their work is done: MakeHloPasses in compile_pipeline.cc is the
//     one list, and docs/passes.md, checked against it by
//     tests/docs/passes_doc_test.cc, says what each pass does
//   assign-buffers  jit               fused.hlo (its input)
//   emit            jit               llvm.ll
//   optimize        jit               llvm-opt.ll, kernels.s
//   link            jit               -
//
// and stages.txt, every stage run with its time (written on failure too).
// The interpreter runs the module the HLO passes leave. (This table is
// checked against the pipeline by tests/docs/passes_doc_test.cc.)
#ifndef MXLA_RUNTIME_COMPILE_PIPELINE_H_
#define MXLA_RUNTIME_COMPILE_PIPELINE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"
#include "passes/pass_pipeline.h"
#include "runtime/compile.h"
#include "runtime/compile_report.h"
#include "runtime/jit_executable.h"

namespace mxla {

// What a run of the pipeline produces.
struct CompiledModule {
  // The module after the stages that ran; null once "link" has moved it
  // into `program`.
  std::unique_ptr<HloModule> module;
  std::shared_ptr<const JitExecutable::Program> program;  // after "link"
  CompileReport report;
  // With StageRange::keep_dumps: each stage dump's file name and text
  // (fused.hlo, llvm.ll, llvm-opt.ll, kernels.s; not the per-pass dumps).
  std::map<std::string, std::string> dumps;
  // With StageRange::keep_objects: the object files "link" loaded, one per
  // distinct kernel (what the persistent compile cache stores).
  std::vector<std::string> objects;
};

// Which stages a run covers, by name; empty: from the first, to the last.
struct StageRange {
  std::string first;
  std::string last;
  bool keep_dumps = false;
  bool keep_objects = false;
};

class CompilePipeline {
 public:
  // The stages for `options.backend`. InvalidArgument for an unknown pass
  // name in options.passes.
  static absl::StatusOr<std::unique_ptr<CompilePipeline>> Create(
      const CompileOptions& options);

  // Every stage's name, in order.
  std::vector<std::string> StageNames() const;

  // Runs the stages of `range` on `module`, which must be in the form the
  // first of them expects (verify: any builder-form module; assign-buffers:
  // fused and planned). Errors: an unknown stage name (InvalidArgument);
  // "verify": the verifier's InvalidArgument; "hlo-passes": as
  // PassPipeline::Run; "assign-buffers": a run over the memory limit
  // (InvalidArgument, JitExecutable::CheckMemoryLimit); "emit", "optimize",
  // "link": as KernelIr's and JitKernels'; InvalidArgument for an
  // unwritable dump. Not thread-safe: use one pipeline per compile.
  absl::StatusOr<CompiledModule> Run(std::unique_ptr<HloModule> module,
                                     const StageRange& range = {});
  // The same on a module the caller keeps: the stages rewrite a copy, made
  // once "verify" has checked the module (or up front if it does not run).
  absl::StatusOr<CompiledModule> Run(const HloModule& module,
                                     const StageRange& range = {});

 private:
  struct State;
  struct Stage {
    std::string name;
    std::function<absl::Status(State&)> run;
  };

  explicit CompilePipeline(CompileOptions options);
  void AddStage(std::string name, std::function<absl::Status(State&)> run);
  absl::StatusOr<std::pair<size_t, size_t>> Find(const StageRange& range) const;
  absl::StatusOr<CompiledModule> RunStages(const HloModule* input,
                                           std::unique_ptr<HloModule> module,
                                           const StageRange& range);

  CompileOptions options_;
  std::string dump_dir_;
  std::unique_ptr<PassPipeline> hlo_passes_;
  std::vector<Stage> stages_;
};

// Every array leaf of a loop state of shape `state` aliased to itself
// (must_alias): what a while body's module gets, so that it updates the
// state in place (the JIT's subprograms and the AOT driver alike).
std::vector<HloInputOutputAlias> LoopStateAliases(const Shape& state);

// Verifies `module` (builder form allowed) and runs every stage for
// `options` on a copy: Compile() without the compile cache.
absl::StatusOr<CompiledModule> RunCompilePipeline(
    const HloModule& module, const CompileOptions& options,
    const StageRange& range = {});

// The jit's stages from "assign-buffers" on, alone, on a module that is
// already fused and planned (hand-written fused HLO, a dumped fused.hlo):
// the result's program is ready for a JitExecutable. Errors as Run's.
absl::StatusOr<CompiledModule> RunJitBackend(std::unique_ptr<HloModule> fused,
                                             const CompileOptions& options,
                                             bool keep_dumps = false);

// The program of a compile that ran earlier, perhaps in another process
// (the persistent compile cache): `fused_hlo` is the text of its fused
// module, `kernels` and `objects` its kernels and their object files. Parses
// the module while it loads the objects (on the default pool), then runs
// buffer assignment, without the HLO passes or LLVM's optimizer and code
// generator; while loops, conditionals and other subprograms compile their
// computations (taken from `input`, the module Compile was given, when it
// has them) through Compile() and its caches. The report has one stage,
// "load-cached". Errors: the parser's, JitKernels::Load's, and the
// subprograms' compiles.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> LoadJitProgram(
    absl::string_view fused_hlo, std::vector<KernelInfo> kernels,
    const std::vector<std::string>& objects, const HloModule* input,
    const CompileOptions& options);

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_PIPELINE_H_
