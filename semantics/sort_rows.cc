#include "semantics/sort_rows.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace mxla::semantics {

absl::Status SortRows(absl::Span<const int64_t> dims, int64_t dimension,
                      absl::Span<const int64_t> element_bytes,
                      absl::Span<const void* const> inputs,
                      absl::Span<void* const> outputs, const SortLess& less) {
  const size_t n = inputs.size();
  int64_t elements = 1;
  for (int64_t size : dims) elements *= size;
  if (elements == 0) return absl::OkStatus();
  const int64_t size = dims[dimension];
  int64_t inner = 1;
  for (size_t d = dimension + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t outer = elements / (size * inner);
  auto at = [&](const void* base, size_t i, int64_t element) {
    return static_cast<const char*>(base) + element * element_bytes[i];
  };
  std::vector<const void*> pair(2 * n);
  std::vector<int64_t> order(size);
  absl::Status status;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t first = o * size * inner + in;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) {
                         if (!status.ok()) return false;
                         for (size_t i = 0; i < n; ++i) {
                           pair[2 * i] = at(inputs[i], i, first + a * inner);
                           pair[2 * i + 1] = at(inputs[i], i, first + b * inner);
                         }
                         absl::StatusOr<bool> lhs_first = less(pair);
                         if (!lhs_first.ok()) {
                           status = lhs_first.status();
                           return false;
                         }
                         return *lhs_first;
                       });
      if (!status.ok()) return status;
      for (size_t i = 0; i < n; ++i) {
        for (int64_t k = 0; k < size; ++k) {
          std::memcpy(static_cast<char*>(outputs[i]) +
                          (first + k * inner) * element_bytes[i],
                      at(inputs[i], i, first + order[k] * inner),
                      element_bytes[i]);
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace mxla::semantics
