// Which kernels a fused module needs: its entry's fusions, grouped so that
// fusions that print alike in canonical form (ir/hlo_printer.h) share one
// kernel. Used by the JIT (compiler.h) and ahead-of-time compilation
// (aot_module.h). LLVM-free.
#ifndef MXLA_CODEGEN_KERNEL_GROUPS_H_
#define MXLA_CODEGEN_KERNEL_GROUPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"

namespace mxla::codegen {

struct KernelGroups {
  // The entry's fusions in post order.
  std::vector<const HloInstruction*> fusions;
  // Per fusion, the index of its kernel in `first_fusion`.
  std::vector<int64_t> kernel_of_fusion;
  // Per kernel, the first fusion that uses it (it names the kernel).
  std::vector<const HloInstruction*> first_fusion;
};

// FailedPrecondition for an entry instruction that is neither a fusion nor
// one the runtime handles itself (the module is not fused).
absl::StatusOr<KernelGroups> GroupKernels(const HloModule& fused);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_KERNEL_GROUPS_H_
