// The LLVM backend's public face, free of LLVM headers. It takes a fused
// module (passes/fusion.h has run: the entry holds parameters, constants,
// fusions, tuples and get-tuple-elements) and produces one kernel per
// fusion (kernel_emitter.h states the calling convention), JIT-compiled for
// the host CPU, or the IR of any stage for inspection.
#ifndef MXLA_CODEGEN_COMPILER_H_
#define MXLA_CODEGEN_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/kernel_info.h"
#include "ir/hlo_module.h"

namespace mxla {

// Wall time of each backend phase, in seconds.
struct CodegenTimes {
  double emit = 0;      // HLO -> LLVM IR
  double optimize = 0;  // the IR pipeline at CodegenOptions' level
  double jit = 0;       // machine code + linking (+ the dump's assembly)
};

// The stages of one compile, for inspection: what JitKernels::Compile
// compiled, not a recompile.
struct CodegenDump {
  std::string llvm;            // the kernels' IR as emitted
  std::string llvm_optimized;  // after the IR pipeline: the IR compiled
  std::string assembly;        // that IR's host assembly, from the same
                               // target machine at the same level
};

class JitKernels {
 public:
  // Emits, optimizes (CodegenOptions::optimization_level selects both the IR
  // pipeline and the machine code generator's level) and links the kernels.
  // With `dump`, also records the stages of this very compile into it.
  // Unsupported HLO inside a fusion is Unimplemented naming the instruction;
  // an optimization_level outside 0-3 is InvalidArgument; failures inside
  // LLVM are Internal.
  static absl::StatusOr<std::unique_ptr<JitKernels>> Compile(
      const HloModule& fused_module, const CodegenOptions& options,
      CodegenDump* dump = nullptr);
  ~JitKernels();

  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  // The kernel of the fusion instruction named `fusion_name`, or nullptr.
  KernelFunction Lookup(const std::string& fusion_name) const;
  // Its combine kernel (KernelInfo::combine_symbol), or nullptr.
  KernelFunction LookupCombine(const std::string& fusion_name) const;
  const CodegenTimes& times() const { return times_; }

 private:
  struct Jit;
  JitKernels() = default;
  std::unique_ptr<Jit> jit_;
  std::vector<KernelInfo> kernels_;
  absl::flat_hash_map<std::string, KernelFunction> functions_;
  absl::flat_hash_map<std::string, KernelFunction> combines_;
  CodegenTimes times_;
};

enum class IrStage { kLlvm, kLlvmOptimized, kAssembly };

// The module's kernels as LLVM IR (before or after optimization) or as
// assembly for the host, as JitKernels::Compile would compile them with
// `options`; nothing is linked. Errors as JitKernels::Compile.
absl::StatusOr<std::string> EmitIr(const HloModule& fused_module,
                                   const CodegenOptions& options,
                                   IrStage stage);

// All three stages of EmitIr from one emit and one optimization.
absl::StatusOr<CodegenDump> EmitCodegenStages(const HloModule& fused_module,
                                              const CodegenOptions& options);

// Times the IR optimization pipeline has run in this process (each compile,
// EmitIr or EmitCodegenStages of a module runs it once): a statistic that
// lets tests check a dump did not recompile.
int64_t OptimizationPipelineRuns();

}  // namespace mxla

#endif  // MXLA_CODEGEN_COMPILER_H_
