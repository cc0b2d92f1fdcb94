// rng's shape rule (ShapeInference::CheckRng), with the checks and wording
// of XLA's verifier.
#include "ir/primitive_type.h"
#include "ir/shape_inference.h"
#include "ir/shape_inference_errors.h"
#include "ir/status_macros.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

absl::Status ShapeInference::CheckRng(RandomDistribution distribution,
                                      const Shape& a, const Shape& b,
                                      const Shape& shape) {
  constexpr HloOpcode kOp = HloOpcode::kRng;
  RETURN_IF_ERROR(ExpectValidArray(kOp, shape, "result"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, a, "operand 0"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, b, "operand 1"));
  if (a.rank() != 0 || b.rank() != 0) {
    return OpError(kOp, "Expected scalar types for the two operands; got ",
                   a.ToString(), " and ", b.ToString(), ".");
  }
  if (a.element_type() != b.element_type() ||
      a.element_type() != shape.element_type()) {
    return OpError(kOp,
                   "Expected the same element type for the result and the two "
                   "operands; got ",
                   a.ToString(), " and ", b.ToString(), " for ",
                   shape.ToString(), ".");
  }
  if (distribution == RandomDistribution::kNormal &&
      !primitive_util::IsFloatingPointType(shape.element_type())) {
    return OpError(kOp,
                   "Element type not supported. Expected element to be of "
                   "floating point type for rng_normal; got ",
                   shape.ToString(), ".");
  }
  return absl::OkStatus();
}

}  // namespace mxla
