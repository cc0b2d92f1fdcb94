// Host memory for array data (literal buffers, the JIT's arenas): 64-byte
// aligned, the JIT's vector width and a cache line.
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
#ifndef MXLA_IR_HOST_BUFFER_H_
#define MXLA_IR_HOST_BUFFER_H_

#include <cstdint>
#include <memory>

namespace mxla {

inline constexpr int64_t kHostBufferPoolBytes = int64_t{256} << 20;

struct HostBufferDeleter {
  int64_t pooled_bytes = 0;  // > 0: a large buffer of this padded size
  void operator()(uint8_t* buffer) const;
};
using HostBuffer = std::unique_ptr<uint8_t[], HostBufferDeleter>;

// Requests above this (128 TiB, the x86-64 user address space) fail
// without asking the allocator, whose sanitizer builds abort on them.
inline constexpr int64_t kMaxHostBufferBytes = int64_t{1} << 47;

// Uninitialized; nullptr if the memory is not available (always above
// kMaxHostBufferBytes). Zero bytes give a valid, distinct buffer.
HostBuffer AllocateHostBuffer(int64_t bytes);

// Bytes currently kept for reuse.
int64_t PooledHostBufferBytes();

}  // namespace mxla

#endif  // MXLA_IR_HOST_BUFFER_H_
