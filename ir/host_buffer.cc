#include "ir/host_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace mxla {
namespace {

constexpr int64_t kHugePage = int64_t{2} << 20;

// Freed large buffers by padded size.
class Pool {
 public:
  void* Take(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(bytes);
    if (it == free_.end()) return nullptr;
    void* buffer = it->second;
    free_.erase(it);
    total_ -= bytes;
    return buffer;
  }
  // False if the pool is full (the caller frees the buffer).
  bool Keep(void* buffer, int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (total_ + bytes > kHostBufferPoolBytes) return false;
    free_.emplace(bytes, buffer);
    total_ += bytes;
    return true;
  }
  int64_t total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
  }

 private:
  std::mutex mutex_;
  std::multimap<int64_t, void*> free_;
  int64_t total_ = 0;
};

Pool& LargeBuffers() {
  static auto* pool = new Pool();
  return *pool;
}

}  // namespace

void HostBufferDeleter::operator()(uint8_t* buffer) const {
  if (pooled_bytes > 0 && LargeBuffers().Keep(buffer, pooled_bytes)) return;
  std::free(buffer);
}

HostBuffer AllocateHostBuffer(int64_t bytes) {
  if (bytes < kHugePage) {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const int64_t padded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
    return HostBuffer(static_cast<uint8_t*>(std::aligned_alloc(64, padded)));
  }
  const int64_t padded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* memory = LargeBuffers().Take(padded);
  if (memory == nullptr) {
    memory = std::aligned_alloc(kHugePage, padded);
    if (memory == nullptr) return nullptr;
    // Only a hint: without transparent huge pages this changes nothing.
    madvise(memory, padded, MADV_HUGEPAGE);
  }
  return HostBuffer(static_cast<uint8_t*>(memory), HostBufferDeleter{padded});
}

int64_t PooledHostBufferBytes() { return LargeBuffers().total(); }

}  // namespace mxla
