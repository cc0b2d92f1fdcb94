#include "runtime/memory_limit.h"

#include <atomic>

namespace mxla {
namespace {

std::atomic<int64_t>& Limit() {
  static std::atomic<int64_t> limit{PhysicalMemoryBytes()};
  return limit;
}

}  // namespace

int64_t MemoryLimitBytes() { return Limit().load(std::memory_order_relaxed); }

void SetMemoryLimitBytes(int64_t bytes) {
  Limit().store(bytes > 0 ? bytes : PhysicalMemoryBytes(),
                std::memory_order_relaxed);
}

int64_t MemoryLimitOr(std::optional<int64_t> bytes) {
  return bytes.has_value() ? *bytes : MemoryLimitBytes();
}

}  // namespace mxla
