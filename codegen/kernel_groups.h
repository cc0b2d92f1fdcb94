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
  // Per fusion, a byte offset per operand (all 0, or empty) that its
  // kernel's caller adds to the operands' buffers: see `move_slices`.
  std::vector<std::vector<int64_t>> operand_offsets;
};

// FailedPrecondition for an entry instruction that is neither a fusion nor
// one the runtime handles itself (the module is not fused).
// With `move_slices`, a fusion that prints like a kernel's first fusion but
// for the bounds of slices of parameters (the layers of a model slicing
// one stacked weight or cache, `slice={[13:14], ...}` in one and
// `[14:15]` in the next) shares that kernel too: the slice of the
// parameter reads its buffer at an affine offset, so the kernel reads this
// fusion's elements when its operand's buffer is moved by the difference
// (operand_offsets). Only where each such parameter's one user is the
// slice, the offset is not negative and a multiple of 64 bytes.
absl::StatusOr<KernelGroups> GroupKernels(const HloModule& fused,
                                          bool move_slices = false);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_KERNEL_GROUPS_H_
