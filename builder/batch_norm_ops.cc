// BatchNormTraining, BatchNormInference and BatchNormGrad.
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {
namespace {

using builder_internal::LookUpAll;
using builder_internal::PickBuilder;
using builder_internal::RecordOp;

XlaOp BatchNorm(HloOpcode opcode, absl::string_view op_name,
                absl::Span<const XlaOp> operands, float epsilon,
                int64_t feature_index, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operands[0]});
  return RecordOp(
      builder, op_name, operands,
      absl::StrCat("epsilon=", epsilon, ", feature_index=", feature_index),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(builder_internal::LookedUp found,
                         LookUpAll(builder, operands));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferBatchNormShape(
                                          opcode, found.shapes,
                                          feature_index));
        auto norm = HloInstruction::CreateGeneric(opcode, shape,
                                                  found.instructions);
        norm->set_batch_norm_attributes(epsilon, feature_index);
        return builder->AddInstruction(std::move(norm), op_name, location);
      });
}

}  // namespace

XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset,
                        float epsilon, int64_t feature_index,
                        SourceLocation location) {
  return BatchNorm(HloOpcode::kBatchNormTraining, "BatchNormTraining",
                   {operand, scale, offset}, epsilon, feature_index, location);
}

XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean,
                         XlaOp variance, float epsilon, int64_t feature_index,
                         SourceLocation location) {
  return BatchNorm(HloOpcode::kBatchNormInference, "BatchNormInference",
                   {operand, scale, offset, mean, variance}, epsilon,
                   feature_index, location);
}

XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean,
                    XlaOp batch_var, XlaOp grad_output, float epsilon,
                    int64_t feature_index, SourceLocation location) {
  return BatchNorm(HloOpcode::kBatchNormGrad, "BatchNormGrad",
                   {operand, scale, batch_mean, batch_var, grad_output},
                   epsilon, feature_index, location);
}

}  // namespace mxla
