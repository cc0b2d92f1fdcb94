// What the runtime needs to know about a compiled kernel (kernel_emitter.h
// defines the calling convention). LLVM-free.
#ifndef MXLA_CODEGEN_KERNEL_INFO_H_
#define MXLA_CODEGEN_KERNEL_INFO_H_

#include <cstdint>
#include <string>

namespace mxla {

using KernelFunction = void (*)(void* const* buffers, int64_t begin,
                                int64_t end);

// Below this much memory traffic per chunk, handing work to another thread
// costs more than it saves (a wake-up costs a few microseconds; 256 KiB
// streams in about that): the runtime's split granularity, and the size
// under which codegen emits a kernel as one unit with static loop bounds.
inline constexpr int64_t kMinBytesPerChunk = 256 << 10;

struct KernelInfo {
  std::string fusion_name;  // The fusion instruction it computes.
  std::string symbol;       // Its function name in the JIT.
  int64_t units = 0;        // The iteration space is [0, units).
  int64_t bytes_per_unit = 0;  // Memory traffic per unit: the cost model.
  // A reduction split into partial results (codegen/reduction_emitter.h):
  // the kernel takes one more buffer after its outputs, a scratch buffer of
  // `scratch_bytes` (64-byte aligned, private to the run), and writes the
  // partials there; once every unit has run, `combine_symbol` (same
  // signature, called with [0, 1)) writes the outputs from them.
  int64_t scratch_bytes = 0;
  std::string combine_symbol;  // empty unless scratch_bytes > 0
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_KERNEL_INFO_H_
