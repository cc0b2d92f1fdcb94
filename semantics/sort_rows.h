// What sort computes, on raw buffers, for both backends: every row along
// `dimension` of N arrays of one dimensions is put in the stable order the
// comparator defines (`less(lhs, rhs)`: the 2N element pointers lhs_0,
// rhs_0, lhs_1, rhs_1, ...; true when lhs goes first). The interpreter
// passes its evaluated comparator, the JIT its compiled one; the order is
// std::stable_sort's, so equal elements keep their order and both
// backends make the same permutation from the same comparator results.
#ifndef MXLA_SEMANTICS_SORT_ROWS_H_
#define MXLA_SEMANTICS_SORT_ROWS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace mxla::semantics {

using SortLess =
    std::function<absl::StatusOr<bool>(absl::Span<const void* const>)>;

// `inputs[i]` and `outputs[i]` hold array i (`element_bytes[i]` per
// element, row-major `dims`); outputs may not alias inputs. The first error
// of `less` stops the sort and is returned.
absl::Status SortRows(absl::Span<const int64_t> dims, int64_t dimension,
                      absl::Span<const int64_t> element_bytes,
                      absl::Span<const void* const> inputs,
                      absl::Span<void* const> outputs, const SortLess& less);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_SORT_ROWS_H_
