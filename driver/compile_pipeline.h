// The compile pipeline: every stage from builder HLO to linked kernels, one
// plain function per stage that takes what it needs and returns what it
// makes, called in order by one function that reads top to bottom
// (CompilePipeline::RunInOrder in compile_pipeline.cc). The list also
// declares what differs between the backends. Each stage is timed
// (CompileReport) and, with a dump directory, dumped by the one compile
// that runs it:
//
//   stage           backends          dumps
//   verify          jit, interpreter  -
//   hlo-passes      jit, interpreter  00-input.hlo, NN-<pass>.hlo, passes.txt
//     the default pass list (or the user's), then, for the jit, the passes
//     codegen needs (expanders, fusion, fusion-planning), which do nothing
//     when their work is done: CreateCompilePasses in passes/pass_registry.h
//     is the one list, and docs/passes.md, checked against it by
//     tests/docs/passes_doc_test.cc, says what each pass does
//   assign-buffers  jit               fused.hlo (its input)
//   emit            jit               llvm.ll
//   optimize        jit               llvm-opt.ll, kernels.s
//   link            jit               -
//
// and stages.txt, every stage run with its time (written on failure too).
// The interpreter runs the module the HLO passes leave. (This table is
// checked against the pipeline by tests/docs/passes_doc_test.cc.)
//
// "link" makes the program's subprograms (driver/subprogram.h) with the
// compilers its caller passes down: Compile() passes its own
// (DefaultSubprogramCompilers, driver/compile.h), so the pipeline never
// calls back up.
#ifndef MXLA_DRIVER_COMPILE_PIPELINE_H_
#define MXLA_DRIVER_COMPILE_PIPELINE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/kernel_info.h"
#include "driver/compile_options.h"
#include "driver/subprogram.h"
#include "ir/hlo_module.h"
#include "passes/pass_pipeline.h"
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
  // The stages for `options.backend`; "link" makes subprograms with
  // `compilers`. InvalidArgument for an unknown pass name in
  // options.passes.
  static absl::StatusOr<std::unique_ptr<CompilePipeline>> Create(
      const CompileOptions& options, SubprogramCompilers compilers);

  // Every stage's name, in order.
  std::vector<std::string> StageNames() const;

  // Runs the stages of `range` on `module`, which must be in the form the
  // first of them expects (verify: any builder-form module; assign-buffers:
  // fused and planned). Errors: an unknown stage name (InvalidArgument);
  // "verify": the verifier's InvalidArgument; "hlo-passes": as
  // PassPipeline::Run; "assign-buffers": a run over the memory limit
  // (InvalidArgument, JitExecutable::CheckMemoryLimit); "emit", "optimize",
  // "link": as KernelIr's and JitKernels', and the subprograms' compiles;
  // InvalidArgument for an unwritable dump. Not thread-safe: use one
  // pipeline per compile.
  absl::StatusOr<CompiledModule> Run(std::unique_ptr<HloModule> module,
                                     const StageRange& range = {});
  // The same on a module the caller keeps: the stages rewrite a copy, made
  // once "verify" has checked the module (or up front if it does not run).
  absl::StatusOr<CompiledModule> Run(const HloModule& module,
                                     const StageRange& range = {});

  // What RunInOrder hands the stages (compile_pipeline.cc): the range's
  // stages, timed, and where their dumps go.
  class Stages;
  class Dumps;

 private:
  CompilePipeline(CompileOptions options, SubprogramCompilers compilers,
                  std::unique_ptr<PassPipeline> hlo_passes);
  absl::StatusOr<std::pair<size_t, size_t>> Find(const StageRange& range) const;
  absl::StatusOr<CompiledModule> RunStages(const HloModule* input,
                                           std::unique_ptr<HloModule> module,
                                           const StageRange& range);
  absl::Status RunInOrder(const HloModule& input,
                          std::unique_ptr<HloModule> module,
                          bool keep_objects, Stages& stages, Dumps& dumps,
                          CompiledModule& result);

  CompileOptions options_;
  SubprogramCompilers compilers_;
  std::string dump_dir_;
  std::unique_ptr<PassPipeline> hlo_passes_;
};

// Verifies `module` (builder form allowed) and runs every stage of `range`
// for `options` on a copy; with `compilers` from DefaultSubprogramCompilers
// (driver/compile.h), Compile() without the compile cache.
absl::StatusOr<CompiledModule> RunCompilePipeline(
    const HloModule& module, const CompileOptions& options,
    const SubprogramCompilers& compilers, const StageRange& range = {});

// The jit's stages from "assign-buffers" on, alone, on a module that is
// already fused and planned (hand-written fused HLO, a dumped fused.hlo):
// the result's program is ready for a JitExecutable. Errors as Run's.
absl::StatusOr<CompiledModule> RunJitBackend(
    std::unique_ptr<HloModule> fused, const CompileOptions& options,
    const SubprogramCompilers& compilers, bool keep_dumps = false);

// The program of a compile that ran earlier, perhaps in another process
// (the persistent compile cache): `fused_hlo` is the text of its fused
// module, `kernels` and `objects` its kernels and their object files. Parses
// the module while it loads the objects (on the default pool), then runs
// buffer assignment, without the HLO passes or LLVM's optimizer and code
// generator; while loops, conditionals and other subprograms compile their
// computations (taken from `input`, the module Compile was given, when it
// has them) through `compilers`. The report has one stage, "load-cached".
// Errors: the parser's, JitKernels::Load's, and the subprograms' compiles.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> LoadJitProgram(
    absl::string_view fused_hlo, std::vector<KernelInfo> kernels,
    const std::vector<std::string>& objects, const HloModule* input,
    const CompileOptions& options, const SubprogramCompilers& compilers);

}  // namespace mxla

#endif  // MXLA_DRIVER_COMPILE_PIPELINE_H_
