#include "ir/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"

namespace mxla {
namespace {

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages) * page_size;
}

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

absl::Status CheckMemoryLimit(int64_t bytes, absl::string_view what) {
  const int64_t limit = MemoryLimitBytes();
  if (bytes <= limit) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " needs ", bytes, " bytes, over the memory limit of ",
                   limit, " bytes (see SetMemoryLimitBytes)"));
}

int64_t TotalArrayBytes(const Shape& shape) {
  if (!shape.IsTuple()) {
    return shape.IsArray() ? ShapeUtil::ByteSizeOf(shape) : 0;
  }
  int64_t total = 0;
  for (const Shape& element : shape.tuple_shapes()) {
    if (__builtin_add_overflow(total, TotalArrayBytes(element), &total)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return total;
}

}  // namespace mxla
