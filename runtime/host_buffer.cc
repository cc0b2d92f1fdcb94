#include "runtime/host_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <vector>

namespace mxla {
namespace {

constexpr int64_t kHugePage = int64_t{2} << 20;

// Freed large buffers, oldest first. A full pool evicts its oldest buffers
// to keep a newly freed one: the newest is the likeliest to be asked for
// again (the same executable run in a loop), while turning it away would
// make every later call fault in fresh memory.
//
// The entries live in a vector reserved for the most the bound allows (one
// per 2 MiB), so keeping and taking buffers never allocates.
class Pool {
 public:
  static constexpr int64_t kMaxEntries = kHostBufferPoolBytes / kHugePage;

  Pool() { free_.reserve(kMaxEntries); }

  void* Take(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Newest first; at most kHostBufferPoolBytes / 2 MiB entries.
    for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
      if (it->bytes != bytes) continue;
      void* buffer = it->buffer;
      free_.erase(std::next(it).base());
      total_ -= bytes;
      return buffer;
    }
    return nullptr;
  }
  // False if the buffer alone exceeds the bound (the caller frees it).
  bool Keep(void* buffer, int64_t bytes) {
    if (bytes > kHostBufferPoolBytes) return false;
    // Every entry holds 2 MiB or more: the bound caps how many there are.
    void* evicted[kMaxEntries];
    int64_t count = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (total_ + bytes > kHostBufferPoolBytes) {
        evicted[count] = free_[count].buffer;
        total_ -= free_[count].bytes;
        ++count;
      }
      free_.erase(free_.begin(), free_.begin() + count);
      free_.push_back({bytes, buffer});  // within the reserved capacity
      total_ += bytes;
    }
    for (int64_t i = 0; i < count; ++i) std::free(evicted[i]);  // unlocked
    return true;
  }
  int64_t total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
  }

 private:
  struct Entry {
    int64_t bytes;
    void* buffer;
  };
  std::mutex mutex_;
  std::vector<Entry> free_;  // oldest first
  int64_t total_ = 0;
};

Pool& LargeBuffers() {
  static auto* pool = new Pool();
  return *pool;
}

// A large buffer of `pooled_bytes` (its padded size).
void ReleaseHostBuffer(uint8_t* buffer, int64_t pooled_bytes) {
  if (LargeBuffers().Keep(buffer, pooled_bytes)) return;
  std::free(buffer);
}

class PooledAllocator final : public BufferAllocator {
 public:
  HostBuffer Allocate(int64_t bytes) const override {
    return AllocateHostBuffer(bytes);
  }
};

}  // namespace

HostBuffer AllocateHostBuffer(int64_t bytes) {
  if (bytes > kMaxHostBufferBytes) return nullptr;
  if (bytes < kHugePage) return AlignedBufferAllocator().Allocate(bytes);
  const int64_t padded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* memory = LargeBuffers().Take(padded);
  if (memory == nullptr) {
    memory = std::aligned_alloc(kHugePage, padded);
    if (memory == nullptr) return nullptr;
    // Only a hint: without transparent huge pages this changes nothing.
    madvise(memory, padded, MADV_HUGEPAGE);
  }
  return HostBuffer(static_cast<uint8_t*>(memory),
                    HostBufferDeleter{&ReleaseHostBuffer, padded});
}

const BufferAllocator& PooledHostAllocator() {
  static const PooledAllocator allocator;
  return allocator;
}

int64_t PooledHostBufferBytes() { return LargeBuffers().total(); }

}  // namespace mxla
