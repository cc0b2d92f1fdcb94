#include "shape_inference/scaled_dot.h"

#include <optional>
#include <string>

#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::OpError;

namespace {

constexpr HloOpcode kOp = HloOpcode::kScaledDot;

absl::Status CheckOperandType(const Shape& shape, const char* what) {
  if (!shape.IsArray() || shape.element_type() == PRED) {
    return OpError(kOp, what, " must be a numeric array, but is ",
                   shape.ToString());
  }
  return absl::OkStatus();
}

}  // namespace

PrimitiveType DequantizedType(PrimitiveType operand, PrimitiveType scale) {
  const int operand_bits = primitive_util::BitWidth(operand);
  const int scale_bits = primitive_util::BitWidth(scale);
  if (operand_bits < 16 && scale_bits < 16) return BF16;
  if (operand == scale) return operand;
  if (operand_bits == scale_bits) return F32;
  return operand_bits > scale_bits ? operand : scale;
}

absl::StatusOr<ScaleRepetition> PlanScaleRepetition(const Shape& operand,
                                                    const Shape& scale,
                                                    const char* side) {
  ScaleRepetition plan;
  if (scale.rank() == 0) return plan;
  if (scale.rank() != operand.rank()) {
    return OpError(kOp, side, " scale ", scale.ToString(),
                   " must be a scalar or have the rank of ", side, " ",
                   operand.ToString(), " (", operand.rank(), ")");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const int64_t size = operand.dimensions(d);
    const int64_t scales = scale.dimensions(d);
    const bool divides = scales == 0 ? size == 0 : size % scales == 0;
    if (!divides) {
      return OpError(kOp, side, " ", operand.ToString(), " and its scale ",
                     scale.ToString(), ": a scale dimension must divide the "
                     "operand's, but dimension ", d, " is ", size, " vs ",
                     scales);
    }
    plan.broadcast_dims.push_back(
        static_cast<int64_t>(plan.split_dims.size()));
    plan.split_dims.push_back(scales);
    if (scales != size) plan.split_dims.push_back(size / scales);
  }
  return plan;
}

absl::StatusOr<Shape> ShapeInference::InferScaledDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& lhs_scale,
    const Shape& rhs_scale, const DotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  RETURN_IF_ERROR(CheckOperandType(lhs, "lhs"));
  RETURN_IF_ERROR(CheckOperandType(rhs, "rhs"));
  RETURN_IF_ERROR(CheckOperandType(lhs_scale, "lhs scale"));
  RETURN_IF_ERROR(CheckOperandType(rhs_scale, "rhs scale"));
  RETURN_IF_ERROR(PlanScaleRepetition(lhs, lhs_scale, "lhs").status());
  RETURN_IF_ERROR(PlanScaleRepetition(rhs, rhs_scale, "rhs").status());
  const Shape dequantized_lhs = ShapeUtil::ChangeElementType(
      lhs, DequantizedType(lhs.element_type(), lhs_scale.element_type()));
  const Shape dequantized_rhs = ShapeUtil::ChangeElementType(
      rhs, DequantizedType(rhs.element_type(), rhs_scale.element_type()));
  absl::StatusOr<Shape> shape = InferDotShape(
      dequantized_lhs, dequantized_rhs, dnums, preferred_element_type);
  if (!shape.ok()) {
    // The dot's own rules, under this op's name.
    std::string message(shape.status().message());
    if (message.starts_with("dot: ")) message = message.substr(5);
    return OpError(kOp, "on the dequantized operands: ", message);
  }
  return shape;
}

}  // namespace mxla
