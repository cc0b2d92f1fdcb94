// The batch-norm ops' shape rule (ShapeInference::InferBatchNormShape),
// with the checks and wording of XLA's.
#include <vector>

#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

// The operands' names, in order.
std::vector<const char*> OperandNames(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kBatchNormTraining:
      return {"operand", "scale", "offset"};
    case HloOpcode::kBatchNormInference:
      return {"operand", "scale", "offset", "mean", "variance"};
    default:
      return {"operand", "scale", "mean", "variance", "grad_output"};
  }
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferBatchNormShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    int64_t feature_index) {
  const std::vector<const char*> names = OperandNames(opcode);
  if (operands.size() != names.size()) {
    return OpError(opcode, "expects ", names.size(), " operands; got ",
                   operands.size(), ".");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectValidArray(opcode, *operands[i], names[i]));
  }
  const Shape& operand = *operands[0];
  if (operand.rank() < 1) {
    return OpError(opcode,
                   "Expected the operand to have rank at least 1; got ",
                   operand.ToString(), ".");
  }
  if (feature_index < 0 || feature_index >= operand.rank()) {
    return OpError(opcode,
                   "Expected feature_index to be in [0, rank of the operand); "
                   "got feature_index ",
                   feature_index, " for ", operand.ToString(), ".");
  }
  if (!primitive_util::IsFloatingPointType(operand.element_type())) {
    return OpError(opcode,
                   "The operand must have a floating point element type, but "
                   "its shape is ",
                   operand.ToString(), ".");
  }
  const int64_t features = operand.dimensions(feature_index);
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& shape = *operands[i];
    if (shape.element_type() != operand.element_type()) {
      return OpError(opcode, "The inputs should have the same element type; "
                             "the shape of ",
                     names[i], " is ", shape.ToString(),
                     " and the shape of the operand is ", operand.ToString(),
                     ".");
    }
    const bool whole = std::string(names[i]) == "grad_output";
    if (whole ? !ShapeUtil::SameDimensions(shape, operand)
              : shape.rank() != 1 || shape.dimensions(0) != features) {
      return OpError(opcode, "The shape of ", names[i], " should be ",
                     whole ? operand.ToString()
                           : ShapeUtil::MakeShape(operand.element_type(),
                                                  {features})
                                 .ToString(),
                     whole ? " (the operand's)" : " (one per feature)",
                     ", but it is ", shape.ToString(), ".");
    }
  }
  if (opcode == HloOpcode::kBatchNormInference) return operand;
  const Shape per_feature =
      ShapeUtil::MakeShape(operand.element_type(), {features});
  return ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(operand.element_type(),
                            std::vector<int64_t>(operand.dimensions().begin(),
                                                 operand.dimensions().end())),
       per_feature, per_feature});
}

}  // namespace mxla
