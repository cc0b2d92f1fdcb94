// The runtime's host memory for array data (result literals, the JIT's
// arenas): a BufferAllocator (ir/buffer_allocator.h), 64-byte aligned like
// every one.
//
// Large buffers (2 MiB and more) avoid page-fault storms, which otherwise
// cost more than the kernels writing them (a first touch of 64 MiB in 4 KiB
// pages: ~20 ms here):
//   * they are 2 MiB aligned and advised to use transparent huge pages, so a
//     first touch costs a fault per 2 MiB;
//   * freed ones are kept, up to kHostBufferPoolBytes in total (a full pool
//     drops its oldest buffers to keep the newest), and handed out again for
//     the same size, so a result allocated per call (Run with literals)
//     reuses warm memory.
// Medium buffers (64 KiB to 2 MiB), which glibc returns to the kernel when
// freed, are kept the same way in a pool of their own (64 MiB), in steps of
// 64 KiB.
#ifndef MXLA_RUNTIME_HOST_BUFFER_H_
#define MXLA_RUNTIME_HOST_BUFFER_H_

#include <cstdint>

#include "ir/buffer_allocator.h"

namespace mxla {

inline constexpr int64_t kHostBufferPoolBytes = int64_t{256} << 20;
inline constexpr int64_t kMediumHostBufferPoolBytes = int64_t{64} << 20;

// Uninitialized; nullptr if the memory is not available (always above
// kMaxHostBufferBytes). Zero bytes give a valid, distinct buffer.
HostBuffer AllocateHostBuffer(int64_t bytes);

// AllocateHostBuffer as a BufferAllocator: the default of RunOptions
// (runtime/executable.h). Lives for the whole process.
const BufferAllocator& PooledHostAllocator();

// Bytes currently kept for reuse, in both pools; in the medium one.
int64_t PooledHostBufferBytes();
int64_t PooledMediumHostBufferBytes();

}  // namespace mxla

#endif  // MXLA_RUNTIME_HOST_BUFFER_H_
