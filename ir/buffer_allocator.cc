#include "ir/buffer_allocator.h"

#include <cstdlib>

namespace mxla {
namespace {

void FreeAligned(uint8_t* buffer, int64_t /*tag*/) { std::free(buffer); }

class AlignedAllocator final : public BufferAllocator {
 public:
  HostBuffer Allocate(int64_t bytes) const override {
    if (bytes > kMaxHostBufferBytes) return nullptr;
    // aligned_alloc wants a size that is a multiple of the alignment.
    const int64_t padded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
    return HostBuffer(static_cast<uint8_t*>(std::aligned_alloc(64, padded)),
                      HostBufferDeleter{&FreeAligned});
  }
};

}  // namespace

const BufferAllocator& AlignedBufferAllocator() {
  static const AlignedAllocator allocator;
  return allocator;
}

}  // namespace mxla
