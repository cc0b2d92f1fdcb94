#include "runtime/host_buffer.h"

#include <sys/mman.h>

#include <array>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <vector>

namespace mxla {
namespace {

constexpr int64_t kHugePage = int64_t{2} << 20;

// Medium buffers (kMediumGrain to 2 MiB) are pooled too, in steps of
// kMediumGrain: glibc hands memory of that size back to the kernel when it
// is freed, so a result allocated per call faulted in every page again
// (argsort_axis_1024x512's 1 MiB result: 161 faults, ~2.4 ms a call here).
constexpr int64_t kMediumGrain = int64_t{64} << 10;

// Freed buffers of at least kMinBytes, oldest first, up to kMaxBytes in
// all. A full pool evicts its oldest buffers to keep a newly freed one: the
// newest is the likeliest to be asked for again (the same executable run in
// a loop), while turning it away would make every later call fault in
// fresh memory.
//
// The entries live in a vector reserved for the most the bound allows (one
// per kMinBytes), so keeping and taking buffers never allocates.
template <int64_t kMaxBytes, int64_t kMinBytes>
class Pool {
 public:
  static constexpr int64_t kMaxEntries = kMaxBytes / kMinBytes;

  Pool() { free_.reserve(kMaxEntries); }

  void* Take(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Newest first; at most kMaxEntries entries.
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
    if (bytes > kMaxBytes) return false;
    // Every entry holds kMinBytes or more: the bound caps how many there are.
    std::array<void*, kMaxEntries> evicted;
    int64_t count = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (total_ + bytes > kMaxBytes) {
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

using LargePool = Pool<kHostBufferPoolBytes, kHugePage>;
using MediumPool = Pool<kMediumHostBufferPoolBytes, kMediumGrain>;

LargePool& LargeBuffers() {
  static auto* pool = new LargePool();
  return *pool;
}

MediumPool& MediumBuffers() {
  static auto* pool = new MediumPool();
  return *pool;
}

// A pooled buffer of `pooled_bytes` (its padded size).
void ReleaseHostBuffer(uint8_t* buffer, int64_t pooled_bytes) {
  const bool kept = pooled_bytes >= kHugePage
                        ? LargeBuffers().Keep(buffer, pooled_bytes)
                        : MediumBuffers().Keep(buffer, pooled_bytes);
  if (!kept) std::free(buffer);
}

int64_t RoundUp(int64_t bytes, int64_t grain) {
  return (bytes + grain - 1) / grain * grain;
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
  if (bytes < kMediumGrain) return AlignedBufferAllocator().Allocate(bytes);
  if (bytes < kHugePage) {
    const int64_t padded = RoundUp(bytes, kMediumGrain);
    void* memory = MediumBuffers().Take(padded);
    if (memory == nullptr) memory = std::aligned_alloc(4096, padded);
    if (memory == nullptr) return nullptr;
    return HostBuffer(static_cast<uint8_t*>(memory),
                      HostBufferDeleter{&ReleaseHostBuffer, padded});
  }
  const int64_t padded = RoundUp(bytes, kHugePage);
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

int64_t PooledHostBufferBytes() {
  return LargeBuffers().total() + MediumBuffers().total();
}

int64_t PooledMediumHostBufferBytes() { return MediumBuffers().total(); }

}  // namespace mxla
