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
#include "llvm/Target/TargetMachine.h"

namespace mxla::codegen {

// The host CPU with all its features (AVX-512 where present).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(
    int optimization_level);

// Sets the triple, data layout and per-function CPU attributes of `module`
// for `machine`, verifies it (a broken module is an Internal error) and runs
// the standard pipeline at `optimization_level`.
absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine,
                            int optimization_level);

// The module's assembly for `machine` (the module is not modified).
absl::StatusOr<std::string> EmitAssembly(const llvm::Module& module,
                                         llvm::TargetMachine& machine);

std::string ModuleToString(const llvm::Module& module);

// The one place llvm::Error becomes absl::Status.
absl::Status ToStatus(llvm::Error error);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LLVM_PIPELINE_H_
