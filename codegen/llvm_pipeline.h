// The LLVM half of compilation, behind one narrow header: the host target
// machine, the new-pass-manager O0-O3 pipeline with the loop and SLP
// vectorizers on, and assembly printing. Float math stays IEEE: the
// pipeline adds no fast-math flags.
#ifndef MXLA_CODEGEN_LLVM_PIPELINE_H_
#define MXLA_CODEGEN_LLVM_PIPELINE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

namespace mxla::codegen {

// Initializes LLVM's native target (once per process; thread-safe).
void InitializeLlvm();

// InvalidArgument unless 0 <= optimization_level <= 3.
absl::Status CheckOptimizationLevel(int optimization_level);

// The host CPU with all its features (AVX-512 where present), changed by
// the MXLA_CPU_FEATURES environment variable ("+feature,-feature", read
// once; "-avx512f" gives AVX2 code; a malformed entry is InvalidArgument),
// generating machine code at `optimization_level` (0-3: None, Less,
// Default, Aggressive).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(
    int optimization_level);

// A target machine for ahead-of-time code (aot_module.h): the host's
// triple; `cpu` (empty: the host's CPU with its features, MXLA_CPU_FEATURES
// applied, as the JIT's); `features`, comma-separated +name / -name changes
// on top of that CPU's; position-independent code, so that the object links
// into any executable or shared library. An unknown CPU or feature, or a
// malformed list, is InvalidArgument naming it.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateAotTargetMachine(
    const std::string& cpu, const std::string& features,
    int optimization_level);

// What CreateHostTargetMachine targets, cheaply (no target machine is
// made): "<triple> <cpu> <features>", MXLA_CPU_FEATURES's changes included.
// Errors: a malformed MXLA_CPU_FEATURES (InvalidArgument).
absl::StatusOr<std::string> HostTargetDescription();

// The width in bytes of the host's widest vector registers, as the JIT's
// target machine sees them (MXLA_CPU_FEATURES included): 64 with AVX-512,
// 32 with AVX, else 16.
int64_t HostVectorBytes();

// How a kernel's IR is written, which picks its pipeline.
enum class KernelCode {
  kGeneral,  // scalar loops that LLVM's vectorizers and unroller finish
  // Vector code already, in loops of its own shape (the dot kernels:
  // codegen/gemm_emitter.h, gemv_emitter.h, depthwise_emitter.h; but not
  // the small products of DotKernelCode). At levels 2 and 3 it runs the O1
  // pipeline (whose loop vectorizer still turns the packing loops into
  // vector copies) without the loop unroller, which only grew such
  // kernels: ResNet-50's compile at 1 thread went from 1.43-1.46 s to
  // 1.15-1.18 s with its run time unchanged (42-43 ms).
  kWrittenVectors,
};

// Sets the triple, data layout and per-function CPU attributes of `module`
// for `machine`, verifies it (a broken module is an Internal error) and runs
// the standard pipeline at `optimization_level` (for `code`).
absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine,
                            int optimization_level,
                            KernelCode code = KernelCode::kGeneral);

// The module's assembly for `machine` (the module is not modified).
absl::StatusOr<std::string> EmitAssembly(const llvm::Module& module,
                                         llvm::TargetMachine& machine);

// The module as an object file for `machine`, ready for the JIT's linker.
absl::StatusOr<std::unique_ptr<llvm::MemoryBuffer>> EmitObject(
    llvm::Module& module, llvm::TargetMachine& machine);

std::string ModuleToString(const llvm::Module& module);

// The one place llvm::Error becomes absl::Status.
absl::Status ToStatus(llvm::Error error);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LLVM_PIPELINE_H_
