// Shared by the example programs: unwrap a StatusOr or exit with its error,
// and compare a result with the values it must have.
#ifndef MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_
#define MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace mxla::examples {

template <typename T>
T OrDie(absl::StatusOr<T> value) {
  if (!value.ok()) {
    std::cerr << "error: " << value.status().message() << "\n";
    std::exit(1);
  }
  return std::move(*value);
}

// True if every element of `actual` is within `tolerance` (relative) of
// `expected`, in row-major order; prints the first difference otherwise.
inline bool Matches(const Literal& actual, const std::vector<float>& expected,
                    float tolerance = 0) {
  absl::Span<const float> values = actual.data<float>();
  if (values.size() != expected.size()) {
    std::cerr << "expected " << expected.size() << " values, got "
              << values.size() << "\n";
    return false;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::fabs(values[i] - expected[i]) >
        tolerance * std::fabs(expected[i])) {
      std::cerr << "element " << i << ": expected " << expected[i] << ", got "
                << values[i] << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace mxla::examples

#endif  // MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_
