#include "ir/shape_summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {

std::string ShapeSummary(const Shape& shape) {
  if (!shape.IsTuple()) return shape.ToString();
  constexpr size_t kMaxShown = 8, kHead = 3, kTail = 2;
  const size_t size = shape.tuple_shapes().size();
  std::vector<std::string> parts;
  for (size_t i = 0; i < size; ++i) {
    if (size > kMaxShown && i == kHead) {
      parts.push_back(absl::StrCat("... ", size - kHead - kTail, " more"));
      i = size - kTail;
    }
    parts.push_back(ShapeSummary(shape.tuple_shapes(i)));
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

}  // namespace mxla
