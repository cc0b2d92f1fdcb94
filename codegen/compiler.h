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
  double optimize = 0;  // the O3 pipeline
  double jit = 0;       // machine code + linking
};

class JitKernels {
 public:
  // Unsupported HLO inside a fusion is Unimplemented naming the instruction;
  // failures inside LLVM are Internal.
  static absl::StatusOr<std::unique_ptr<JitKernels>> Compile(
      const HloModule& fused_module, const CodegenOptions& options);
  ~JitKernels();

  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  // The kernel of the fusion instruction named `fusion_name`, or nullptr.
  KernelFunction Lookup(const std::string& fusion_name) const;
  const CodegenTimes& times() const { return times_; }

 private:
  struct Jit;
  JitKernels() = default;
  std::unique_ptr<Jit> jit_;
  std::vector<KernelInfo> kernels_;
  absl::flat_hash_map<std::string, KernelFunction> functions_;
  CodegenTimes times_;
};

enum class IrStage { kLlvm, kLlvmOptimized, kAssembly };

// The module's kernels as LLVM IR (before or after optimization) or as
// assembly for the host.
absl::StatusOr<std::string> EmitIr(const HloModule& fused_module,
                                   const CodegenOptions& options,
                                   IrStage stage);

}  // namespace mxla

#endif  // MXLA_CODEGEN_COMPILER_H_
