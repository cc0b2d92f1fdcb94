// What the runtime needs to know about a compiled kernel (kernel_emitter.h
// defines the calling convention). LLVM-free.
#ifndef MXLA_CODEGEN_KERNEL_INFO_H_
#define MXLA_CODEGEN_KERNEL_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxla {

using KernelFunction = void (*)(void* const* buffers, int64_t begin,
                                int64_t end);

struct KernelInfo {
  std::string fusion_name;  // The fusion instruction it computes.
  std::string symbol;       // Its function name in the JIT.
  int64_t units = 0;        // The iteration space is [0, units).
  // Memory traffic per unit: the runtime splits [0, units) into chunks of
  // at least kMinBytesPerChunk (passes/fusion_cost_model.h).
  int64_t bytes_per_unit = 0;
  // A reduction split into partial results (its ReductionPlan's chunks):
  // the kernel takes one more buffer after its outputs, a scratch buffer of
  // `scratch_bytes` (64-byte aligned, private to the run), and writes the
  // partials there; once every unit has run, `combine_symbol` (same
  // signature, called with [0, 1)) writes the outputs from them.
  int64_t scratch_bytes = 0;
  std::string combine_symbol;  // empty unless scratch_bytes > 0
  // Byte offsets the caller adds to the operands' buffers before calling
  // (one per operand, or empty for none): a fusion that shares the kernel
  // of one slicing its parameters elsewhere (codegen/kernel_groups.h).
  std::vector<int64_t> operand_offsets;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_KERNEL_INFO_H_
