// The LLVM backend's public face, free of LLVM headers. It takes a fused,
// planned module (the entry holds parameters, constants, fusions, tuples and
// get-tuple-elements; each fusion has its plan, ir/fusion_plan.h) and
// produces one kernel per fusion (kernel_emitter.h states the calling
// convention), JIT-compiled for the host CPU, in three stages: emit,
// optimize, link. The driver's compile pipeline (driver/compile_pipeline.h)
// runs, times and dumps each of them.
//
// Fusions that print alike in canonical form (ir/hlo_printer.h: same
// fused computation, plan and operand shapes; the repeated layers of a
// model) share one kernel: it is emitted, optimized and linked once, under
// the first such fusion's name. So do fusions that differ from it only in
// where they slice parameters (layers slicing one stacked weight): their
// kernel reads through moved buffers (KernelInfo::operand_offsets). Each distinct kernel lives in an LLVM
// module and context of its own, so that the three stages run the kernels
// in parallel on the ParallelTasks runner given to Emit.
#ifndef MXLA_CODEGEN_COMPILER_H_
#define MXLA_CODEGEN_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/kernel_info.h"
#include "codegen/parallel_tasks.h"
#include "ir/hlo_module.h"

namespace mxla {

struct KernelCompileTime {
  std::string kernel;  // the symbol
  int64_t fusions = 0;  // that run it
  double optimize_ms = 0;
  double codegen_ms = 0;
};

// One compile's kernels between the stages, LLVM hidden: Emit makes their
// IR, Optimize rewrites it in place, JitKernels::Link loads it.
class KernelIr {
 public:
  // Stage "emit": one kernel per fusion, as its plan says. An
  // optimization_level outside 0-3 is InvalidArgument, an instruction
  // outside any fusion FailedPrecondition, unsupported HLO inside a fusion
  // Unimplemented naming the instruction.
  // `tasks` runs this KernelIr's per-kernel jobs in every stage.
  static absl::StatusOr<std::unique_ptr<KernelIr>> Emit(
      const HloModule& fused_module, const CodegenOptions& options,
      ParallelTasks tasks = SequentialTasks());
  ~KernelIr();

  // Stage "optimize": the IR pipeline at CodegenOptions::optimization_level
  // (which also sets the machine code generator's level). Run it once.
  // Failures inside LLVM are Internal.
  absl::Status Optimize();
  // The IR as it stands (before or after Optimize): each distinct kernel's
  // module in turn.
  std::string Text() const;
  // The host assembly of the IR as it stands, from the target machines that
  // Link uses: the code Link would load.
  absl::StatusOr<std::string> Assembly() const;
  // Each distinct kernel's machine code as a relocatable object file, from
  // the target machines Link uses (the first half of Link). Failures inside
  // LLVM are Internal.
  absl::StatusOr<std::vector<std::string>> Objects() const;
  // One per fusion, in the entry's post order; fusions that share a kernel
  // have the same symbol.
  const std::vector<KernelInfo>& kernels() const;
  // How many distinct kernels (LLVM modules) there are.
  int64_t distinct_kernels() const;
  // Per distinct kernel, in the order of their first fusions: LLVM's time
  // in Optimize and in making its machine code (Objects or Assembly, the
  // last run), 0 for what has not run.
  std::vector<KernelCompileTime> CompileTimes() const;

 private:
  friend class JitKernels;
  struct Llvm;
  explicit KernelIr(std::unique_ptr<Llvm> llvm);
  std::unique_ptr<Llvm> llvm_;
};

class JitKernels {
 public:
  // Stage "link": machine code for `ir` from its target machine, loaded
  // into the process-wide JIT. Failures inside LLVM are Internal.
  static absl::StatusOr<std::unique_ptr<JitKernels>> Link(
      std::unique_ptr<KernelIr> ir);
  // Loads the object files of an earlier compile (KernelIr::Objects, maybe
  // in another process: the persistent compile cache) for its `kernels`
  // (KernelIr::kernels), without LLVM's optimizer or code generator. A
  // kernel symbol the objects do not define is Internal.
  static absl::StatusOr<std::unique_ptr<JitKernels>> Load(
      std::vector<KernelInfo> kernels,
      const std::vector<std::string>& objects);
  // Emit, Optimize and Link in one call; errors as theirs.
  static absl::StatusOr<std::unique_ptr<JitKernels>> Compile(
      const HloModule& fused_module, const CodegenOptions& options,
      ParallelTasks tasks = SequentialTasks());
  ~JitKernels();

  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  // The kernel of the fusion instruction named `fusion_name`, or nullptr.
  KernelFunction Lookup(const std::string& fusion_name) const;
  // Its combine kernel (KernelInfo::combine_symbol), or nullptr.
  KernelFunction LookupCombine(const std::string& fusion_name) const;

 private:
  struct Jit;
  JitKernels() = default;
  std::unique_ptr<Jit> jit_;
  std::vector<KernelInfo> kernels_;
  absl::flat_hash_map<std::string, KernelFunction> functions_;
  absl::flat_hash_map<std::string, KernelFunction> combines_;
};

enum class IrStage { kLlvm, kLlvmOptimized, kAssembly };

// The module's kernels as LLVM IR (before or after optimization) or as
// assembly for the host, as the compile would make them with `options`;
// nothing is linked. Errors as KernelIr's.
absl::StatusOr<std::string> EmitIr(const HloModule& fused_module,
                                   const CodegenOptions& options,
                                   IrStage stage);

// Times the IR optimization pipeline has run in this process (once per
// KernelIr::Optimize): a statistic that lets tests check a dump did not
// recompile.
int64_t OptimizationPipelineRuns();

}  // namespace mxla

#endif  // MXLA_CODEGEN_COMPILER_H_
