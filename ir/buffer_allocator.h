// How ir allocates array memory. A Literal asks a BufferAllocator for its
// buffer: 64-byte aligned (the JIT's vector width and a cache line),
// uninitialized, owned through the deleter the allocator chose. ir's own
// default is a plain aligned allocation, so a tool that only parses or
// builds HLO gets no pool and no process-wide state; the runtime passes its
// pooled huge-page allocator (runtime/host_buffer.h) where results are made.
#ifndef MXLA_IR_BUFFER_ALLOCATOR_H_
#define MXLA_IR_BUFFER_ALLOCATOR_H_

#include <cstdint>
#include <memory>

namespace mxla {

// Frees a buffer the way its allocator made it; `tag` is the allocator's
// note about the buffer (e.g. its padded size).
struct HostBufferDeleter {
  void (*release)(uint8_t* buffer, int64_t tag) = nullptr;
  int64_t tag = 0;
  void operator()(uint8_t* buffer) const { release(buffer, tag); }
};
using HostBuffer = std::unique_ptr<uint8_t[], HostBufferDeleter>;

// Requests above this (128 TiB, the x86-64 user address space) fail
// without asking the system, whose sanitizer builds abort on them.
inline constexpr int64_t kMaxHostBufferBytes = int64_t{1} << 47;

class BufferAllocator {
 public:
  virtual ~BufferAllocator() = default;
  // `bytes` >= 0. Uninitialized and 64-byte aligned; nullptr if the memory
  // is not available (always above kMaxHostBufferBytes). Zero bytes give a
  // valid, distinct buffer. Thread-safe.
  virtual HostBuffer Allocate(int64_t bytes) const = 0;
};

// std::aligned_alloc and std::free; stateless. Lives for the whole process.
const BufferAllocator& AlignedBufferAllocator();

}  // namespace mxla

#endif  // MXLA_IR_BUFFER_ALLOCATOR_H_
