// NumPy-style reductions: ReduceSum/Max/Min/Mean of an op over `axes`,
// with `keepdims` keeping each reduced dimension as size 1, so that the
// result broadcasts back against the operand:
//
//   XlaOp mean = ReduceMean(x /*[n,d]*/, {1}, /*keepdims=*/true);  // [n,1]
//   XlaOp centered = x - mean;    // size-1 stretching: [n,d]
//
// Without keepdims the result is [n], and numpy::Sub(x, mean) aligns it
// with x's *last* dimension, as NumPy does: silently the wrong axis when
// n == d (tests/builder/reductions_test.cc shows it). Keep the dimension,
// or pass broadcast_dimensions={0} to Sub.
//
// Axes may come in any order and be negative (counting from the end); a
// repeated or out-of-range axis is InvalidArgument naming the op, the
// shape and the axis. Max/Min start from -inf/+inf for floats and the
// type's lowest/highest value otherwise (false/true for pred); Mean needs
// a floating-point operand and divides the sum by the reduced count.
#ifndef MXLA_BUILDER_REDUCTIONS_H_
#define MXLA_BUILDER_REDUCTIONS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "builder/xla_builder.h"

namespace mxla {

XlaOp ReduceSum(XlaOp operand, absl::Span<const int64_t> axes,
                bool keepdims = false,
                SourceLocation location = SourceLocation::current());
XlaOp ReduceMax(XlaOp operand, absl::Span<const int64_t> axes,
                bool keepdims = false,
                SourceLocation location = SourceLocation::current());
XlaOp ReduceMin(XlaOp operand, absl::Span<const int64_t> axes,
                bool keepdims = false,
                SourceLocation location = SourceLocation::current());
XlaOp ReduceMean(XlaOp operand, absl::Span<const int64_t> axes,
                 bool keepdims = false,
                 SourceLocation location = SourceLocation::current());

}  // namespace mxla

#endif  // MXLA_BUILDER_REDUCTIONS_H_
