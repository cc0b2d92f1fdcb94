// The JIT's sort for a trivial comparator (passes/sort_key_hoisting.h's
// TrivialSortComparator: compare(p[2i], p[2i+1]), LT or GT, on operand i),
// with no comparator call: each row's keys become unsigned integers that
// order as the comparison does (TOTALORDER: the sign-magnitude trick;
// default float compare: -0 as +0), packed with their positions, and
// radix-sorted (std::sort for 8-byte keys). A stable sort under a strict
// weak order has one result, so this is the permutation SortRows
// (semantics/sort_rows.h) makes from the same comparator. A row with a NaN
// under the default float compare, which is no strict weak order, is
// sorted by std::stable_sort on the native comparison instead, exactly as
// SortRows sorts it. Rows are split over `pool`; results never depend on
// the thread count.
#ifndef MXLA_RUNTIME_NATIVE_SORT_H_
#define MXLA_RUNTIME_NATIVE_SORT_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ir/primitive_type.h"
#include "passes/sort_key_hoisting.h"
#include "runtime/thread_pool.h"

namespace mxla {

// Whether NativeSortRows sorts keys of `type`: pred, the 8- to 64-bit
// integers, f16, bf16, f32 and f64.
bool IsNativeSortKeyType(PrimitiveType type);

// As SortRows: `inputs[i]` and `outputs[i]` hold array i (`element_bytes[i]`
// per element, row-major `dims`), sorted along `dimension` by `key`
// (whose type IsNativeSortKeyType); outputs may not alias inputs. A null
// output (a result nothing reads) is not written. With `prefix` below the
// row length, only each row's first `prefix` results are computed and
// written (a top-k): the `prefix` smallest (key, position) pairs, selected
// with a bounded heap or nth_element and then sorted, which are the
// stable sort's first `prefix`.
void NativeSortRows(absl::Span<const int64_t> dims, int64_t dimension,
                    absl::Span<const int64_t> element_bytes,
                    absl::Span<const void* const> inputs,
                    absl::Span<void* const> outputs,
                    const TrivialSortComparator& key, ThreadPool& pool,
                    int threads, int64_t prefix);

}  // namespace mxla

#endif  // MXLA_RUNTIME_NATIVE_SORT_H_
