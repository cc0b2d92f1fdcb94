// Client conveniences for writing math: a scalar that follows an op's
// element type, and C++ operators on XlaOp.
//
//   XlaOp y = x * 0.5 + b;      // 0.5 becomes an f32 constant next to f32 x
//
// The operators are the builder's ops with no broadcast_dimensions: equal
// shapes, a scalar, or XLA's degenerate (size-1) stretching; mismatched
// ranks need the op functions (or builder/numpy.h). Their errors name the
// op and the shapes, but not the caller's line (an operator cannot take a
// call-site argument); use the op functions where that matters.
#ifndef MXLA_BUILDER_OPERATORS_H_
#define MXLA_BUILDER_OPERATORS_H_

#include <type_traits>

#include "builder/xla_builder.h"

namespace mxla {

// A scalar constant of `like`'s element type holding `value`: directly for
// f32, f64 and pred (value != 0) and for integers that fit, else converted
// from f64 by ConvertElementType (XLA's rounding and saturation). An
// invalid `like`, or one whose shape is not an array, gives an invalid op
// (the builder records why).
XlaOp ScalarLike(XlaOp like, double value,
                 SourceLocation location = SourceLocation::current());

XlaOp operator+(XlaOp lhs, XlaOp rhs);
XlaOp operator-(XlaOp lhs, XlaOp rhs);
XlaOp operator*(XlaOp lhs, XlaOp rhs);
XlaOp operator/(XlaOp lhs, XlaOp rhs);
XlaOp operator-(XlaOp operand);

// An op and a C++ number: the number as ScalarLike(op, number).
template <typename T>
concept Number = std::is_arithmetic_v<T>;

template <Number T>
XlaOp operator+(XlaOp lhs, T rhs) {
  return lhs + ScalarLike(lhs, static_cast<double>(rhs));
}
template <Number T>
XlaOp operator+(T lhs, XlaOp rhs) {
  return ScalarLike(rhs, static_cast<double>(lhs)) + rhs;
}
template <Number T>
XlaOp operator-(XlaOp lhs, T rhs) {
  return lhs - ScalarLike(lhs, static_cast<double>(rhs));
}
template <Number T>
XlaOp operator-(T lhs, XlaOp rhs) {
  return ScalarLike(rhs, static_cast<double>(lhs)) - rhs;
}
template <Number T>
XlaOp operator*(XlaOp lhs, T rhs) {
  return lhs * ScalarLike(lhs, static_cast<double>(rhs));
}
template <Number T>
XlaOp operator*(T lhs, XlaOp rhs) {
  return ScalarLike(rhs, static_cast<double>(lhs)) * rhs;
}
template <Number T>
XlaOp operator/(XlaOp lhs, T rhs) {
  return lhs / ScalarLike(lhs, static_cast<double>(rhs));
}
template <Number T>
XlaOp operator/(T lhs, XlaOp rhs) {
  return ScalarLike(rhs, static_cast<double>(lhs)) / rhs;
}

}  // namespace mxla

#endif  // MXLA_BUILDER_OPERATORS_H_
