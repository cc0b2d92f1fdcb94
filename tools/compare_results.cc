#include "tools/compare_results.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace mxla::tools {

double LargestDifference(const Literal& a, const Literal& b) {
  double largest = 0;
  if (a.shape().IsTuple()) {
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      largest = std::max(largest, LargestDifference(a.tuple_element(i),
                                                    b.tuple_element(i)));
    }
    return largest;
  }
  for (int64_t i = 0; i < a.element_count(); ++i) {
    double x = a.GetAsDouble(i), y = b.GetAsDouble(i);
    // inf - inf is NaN: equal values are checked first.
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;
    double difference = std::fabs(x - y);
    largest = std::max(largest, std::isnan(difference) ? INFINITY : difference);
  }
  return largest;
}

absl::Status CompareResults(const Literal& first, const Literal& second,
                            double tolerance) {
  absl::Status near = LiteralUtil::Near(second, first, tolerance, tolerance);
  if (near.ok()) return near;
  return absl::InvalidArgumentError(
      absl::StrCat("--compare: jit and interpreter differ beyond tolerance ",
                   tolerance, ": ", near.message(),
                   " (--tolerance sets the tolerance)"));
}

}  // namespace mxla::tools
