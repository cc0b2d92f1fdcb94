#include "passes/scaled_dot_expander.h"

#include <memory>

#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "shape_inference/scaled_dot.h"

namespace mxla {
namespace {

HloInstruction* ConvertedTo(HloComputation& computation,
                            HloInstruction* operand, PrimitiveType type) {
  if (operand->shape().element_type() == type) return operand;
  return computation.AddInstruction(HloInstruction::CreateConvert(
      ShapeUtil::ChangeElementType(operand->shape(), type), operand));
}

absl::StatusOr<HloInstruction*> Dequantize(HloComputation& computation,
                                           HloInstruction* operand,
                                           HloInstruction* scale,
                                           const char* side) {
  ASSIGN_OR_RETURN(ScaleRepetition plan,
                   PlanScaleRepetition(operand->shape(), scale->shape(), side));
  const PrimitiveType type = DequantizedType(operand->shape().element_type(),
                                             scale->shape().element_type());
  HloInstruction* wide = ConvertedTo(computation, operand, type);
  HloInstruction* wide_scale = ConvertedTo(computation, scale, type);
  // Row-major: the operand's layout stays its own, the products' is the
  // default.
  const Shape shape =
      ShapeUtil::MakeShape(type, operand->shape().dimensions());
  HloInstruction* repeated;
  if (scale->shape().rank() == 0) {
    repeated = computation.AddInstruction(
        HloInstruction::CreateBroadcast(shape, wide_scale, {}));
  } else {
    HloInstruction* split =
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            ShapeUtil::MakeShape(type, plan.split_dims), wide_scale,
            plan.broadcast_dims));
    repeated = computation.AddInstruction(
        HloInstruction::CreateReshape(shape, split));
  }
  return computation.AddInstruction(HloInstruction::CreateBinary(
      shape, HloOpcode::kMultiply, wide, repeated));
}

absl::StatusOr<HloInstruction*> Expand(HloComputation& computation,
                                       HloInstruction* scaled) {
  ASSIGN_OR_RETURN(HloInstruction * lhs,
                   Dequantize(computation, scaled->mutable_operand(0),
                              scaled->mutable_operand(2), "lhs"));
  ASSIGN_OR_RETURN(HloInstruction * rhs,
                   Dequantize(computation, scaled->mutable_operand(1),
                              scaled->mutable_operand(3), "rhs"));
  HloInstruction* dot = computation.AddInstruction(HloInstruction::CreateGeneric(
      HloOpcode::kDot, scaled->shape(), {lhs, rhs}));
  dot->set_dot_dimension_numbers(scaled->dot_dimension_numbers());
  return dot;
}

}  // namespace

absl::StatusOr<bool> ScaledDotExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(module, {HloOpcode::kScaledDot}, Expand);
}

}  // namespace mxla
