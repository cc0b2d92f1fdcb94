#include "ir/memory_budget.h"

#include <unistd.h>

#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"

namespace mxla {

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages) * page_size;
}

namespace {
constexpr absl::string_view kOverLimit = " bytes, over the memory limit of ";
}  // namespace

absl::Status CheckMemoryBudget(int64_t bytes, int64_t budget,
                               absl::string_view what) {
  if (bytes <= budget) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " needs ", bytes, kOverLimit, budget,
      " bytes (see SetMemoryLimitBytes)"));
}

bool IsOverMemoryBudget(const absl::Status& status) {
  return absl::IsInvalidArgument(status) &&
         absl::StrContains(status.message(), kOverLimit);
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
