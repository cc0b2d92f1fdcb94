// scaled-dot in the interpreter: shape_inference/scaled_dot.h's steps on
// literals.
#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"
#include "shape_inference/scaled_dot.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// operand times its scale repeated over its blocks, in DequantizedType.
absl::StatusOr<Literal> Dequantize(const Literal& operand,
                                   const Literal& scale, const char* side) {
  const PrimitiveType type = DequantizedType(operand.shape().element_type(),
                                             scale.shape().element_type());
  ASSIGN_OR_RETURN(ScaleRepetition plan,
                   PlanScaleRepetition(operand.shape(), scale.shape(), side));
  ASSIGN_OR_RETURN(Literal wide, semantics::ApplyConvert(operand, type));
  ASSIGN_OR_RETURN(Literal wide_scale, semantics::ApplyConvert(scale, type));
  Literal repeated;
  if (scale.shape().rank() == 0) {
    ASSIGN_OR_RETURN(repeated, EvaluateBroadcast(wide_scale, wide.shape(), {}));
  } else {
    ASSIGN_OR_RETURN(
        Literal split,
        EvaluateBroadcast(wide_scale, ShapeUtil::MakeShape(type, plan.split_dims),
                          plan.broadcast_dims));
    ASSIGN_OR_RETURN(repeated, EvaluateReshape(split, wide.shape()));
  }
  return semantics::ApplyBinaryOp(HloOpcode::kMultiply, wide, repeated);
}

}  // namespace

absl::StatusOr<Literal> EvaluateScaledDot(const Literal& lhs, const Literal& rhs,
                                          const Literal& lhs_scale,
                                          const Literal& rhs_scale,
                                          const DotDimensionNumbers& dnums,
                                          const Shape& shape) {
  ASSIGN_OR_RETURN(Literal scaled_lhs, Dequantize(lhs, lhs_scale, "lhs"));
  ASSIGN_OR_RETURN(Literal scaled_rhs, Dequantize(rhs, rhs_scale, "rhs"));
  return EvaluateDot(scaled_lhs, scaled_rhs, dnums, shape);
}

}  // namespace mxla::hlo_evaluator_internal
