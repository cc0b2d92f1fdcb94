// The flat buffer lists of RunBuffers: one buffer per array leaf, in XLA's
// order. Arguments go parameter by parameter (by parameter number), each
// tuple-shaped parameter flattened depth-first; results are the root's
// leaves, flattened the same way. An array (even f32[0]) is one leaf; the
// empty tuple has none.
#ifndef MXLA_RUNTIME_BUFFER_LEAVES_H_
#define MXLA_RUNTIME_BUFFER_LEAVES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ir/hlo_computation.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace mxla {

// Calls `fn` on each array leaf of `shape`, depth-first. Allocation-free.
void ForEachArrayLeaf(const Shape& shape,
                      absl::FunctionRef<void(const Shape&)> fn);
int64_t CountArrayLeaves(const Shape& shape);
// Appends the array leaves of `literal` to `leaves`, depth-first.
void CollectArrayLeaves(Literal& literal, std::vector<Literal*>& leaves);
void CollectArrayLeaves(const Literal& literal,
                        std::vector<const Literal*>& leaves);

// Number of argument / result buffers of `entry`.
int64_t CountArgumentLeaves(const HloComputation& entry);
int64_t CountResultLeaves(const HloComputation& entry);

// "argument buffer 2 (parameter 1 'b', tuple element {0}, f32[2])" for
// error messages; `leaf` must be in [0, CountArgumentLeaves(entry)).
std::string DescribeArgumentLeaf(const HloComputation& entry, int64_t leaf);
// "result buffer 1 (tuple element {1}, f32[2])"; "result buffer 0 (f32[2])"
// for an array root.
std::string DescribeResultLeaf(const HloComputation& entry, int64_t leaf);

// Checks caller-provided buffers against `entry` without allocating on
// success: the counts, every size (exactly ShapeUtil::ByteSizeOf of its
// leaf), no null pointer for a non-empty leaf, and no result buffer
// overlapping an argument or another result, except that a result buffer
// may be the very argument buffer its module's input_output_alias aliases
// it to (the argument is donated), which then overlaps no other argument.
// InvalidArgument naming the first offending buffer.
absl::Status CheckSizedBuffers(const HloComputation& entry,
                               absl::Span<const void* const> arguments,
                               absl::Span<const int64_t> argument_sizes,
                               absl::Span<void* const> results,
                               absl::Span<const int64_t> result_sizes);

// Whether two of these buffers overlap where RunBuffers forbids it: a
// result with any other buffer but the argument it donates (`donated`, per
// result: the argument leaf whose buffer, same address and size, the
// result is, or -1), and so a donated argument with any other argument;
// other arguments may share memory. Empty buffers overlap nothing.
// Linear in the arguments for up to 16 results; beyond, O(n log n) in the
// buffers plus one test per pair that does overlap.
bool HasForbiddenOverlap(absl::Span<const void* const> arguments,
                         absl::Span<const int64_t> argument_sizes,
                         absl::Span<void* const> results,
                         absl::Span<const int64_t> result_sizes,
                         absl::Span<const int64_t> donated);

}  // namespace mxla

#endif  // MXLA_RUNTIME_BUFFER_LEAVES_H_
