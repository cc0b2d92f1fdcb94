// topk's shape rule (ShapeInference::InferTopKShape).
#include <vector>

#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

absl::StatusOr<Shape> ShapeInference::InferTopKShape(const Shape& operand,
                                                     int64_t k) {
  constexpr HloOpcode kOp = HloOpcode::kTopK;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  if (operand.rank() == 0) {
    return OpError(kOp, "The input must have at least one dimension; got ",
                   operand.ToString(), ".");
  }
  const int64_t last = operand.dimensions(operand.rank() - 1);
  if (k < 0 || k > last) {
    return OpError(kOp, "k=", k, " must be in [0, ", last,
                   "] (the last dimension of ", operand.ToString(), ").");
  }
  std::vector<int64_t> dims(operand.dimensions().begin(),
                            operand.dimensions().end());
  dims.back() = k;
  return ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(operand.element_type(), dims),
                                    ShapeUtil::MakeShape(S32, dims)});
}

}  // namespace mxla
