// cholesky and triangular-solve's shape rules (the ops' options are
// ir/linear_algebra.h).
#include "absl/strings/str_cat.h"
#include "ir/linear_algebra.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {
namespace {

using primitive_util::IsFloatingPointType;
using primitive_util::LowercaseName;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

bool IsSquareInMinorDimensions(const Shape& a) {
  return a.dimensions(a.rank() - 2) == a.dimensions(a.rank() - 1);
}

}  // namespace

// XLA's checks in XLA's order; mxla has no complex types, so "floating"
// is the whole of "floating or complex".
absl::StatusOr<Shape> ShapeInference::InferCholeskyShape(const Shape& a) {
  constexpr HloOpcode kOp = HloOpcode::kCholesky;
  RETURN_IF_ERROR(ExpectValidArray(kOp, a, "operand"));
  if (!IsFloatingPointType(a.element_type())) {
    return OpError(kOp,
                   "Expected element type in shape to be floating or complex "
                   "for Cholesky; got ",
                   LowercaseName(a.element_type()), ".");
  }
  if (a.rank() < 2) {
    return OpError(kOp,
                   "The 'a' argument to Cholesky must have rank >= 2, got "
                   "shape ",
                   a.ToString());
  }
  if (!IsSquareInMinorDimensions(a)) {
    return OpError(kOp,
                   "The two minor dimensions of 'a' must have equal size, got ",
                   a.ToString(), ".");
  }
  return a;
}

absl::StatusOr<Shape> ShapeInference::InferTriangularSolveShape(
    const Shape& a, const Shape& b, const TriangularSolveOptions& options) {
  constexpr HloOpcode kOp = HloOpcode::kTriangularSolve;
  RETURN_IF_ERROR(ExpectValidArray(kOp, a, "a"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, b, "b"));
  if (!IsFloatingPointType(a.element_type()) ||
      a.element_type() != b.element_type()) {
    return OpError(kOp,
                   "Expected element types in shape to be floating or complex "
                   "and identical for TriangularSolve; got ",
                   LowercaseName(a.element_type()), " and ",
                   LowercaseName(b.element_type()), ".");
  }
  if (a.rank() < 2) {
    return OpError(kOp,
                   "The 'a' argument to TriangularSolve must have rank >= 2, "
                   "got shape ",
                   a.ToString());
  }
  if (b.rank() != a.rank()) {
    return OpError(kOp,
                   "Arguments to triangular solve must have equal rank; got ",
                   b.ToString(), " and ", a.ToString(), ".");
  }
  if (!IsSquareInMinorDimensions(a)) {
    return OpError(kOp,
                   "The two minor dimensions of 'a' must have equal size, got ",
                   a.ToString(), ".");
  }
  if (a.dimensions(a.rank() - 1) !=
      b.dimensions(b.rank() - (options.left_side ? 2 : 1))) {
    return OpError(kOp,
                   "The shared dimension of 'a' and 'b' does not match, got "
                   "shapes ",
                   a.ToString(), " and ", b.ToString());
  }
  for (int64_t d = 0; d + 2 < a.rank(); ++d) {
    if (a.dimensions(d) != b.dimensions(d)) {
      return OpError(kOp,
                     "The leading batch dimensions of the arguments to "
                     "triangular solve must be equal; got ",
                     b.ToString(), " and ", a.ToString(), ".");
    }
  }
  return b;
}

}  // namespace mxla
