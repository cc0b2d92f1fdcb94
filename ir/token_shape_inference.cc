// Shape rules of the token ops (after-all, add-dependency), with XLA's
// messages, and the refusal of the channel ops that take tokens.
#include "absl/strings/str_cat.h"
#include "ir/shape_inference.h"
#include "ir/shape_inference_errors.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {

using shape_inference_internal::OpError;

absl::StatusOr<Shape> ShapeInference::InferAfterAllShape(
    absl::Span<const Shape> operands) {
  for (int64_t i = 0; i < static_cast<int64_t>(operands.size()); ++i) {
    if (!operands[i].IsToken()) {
      return OpError(HloOpcode::kAfterAll,
                     "Operands of token instructions must be TOKEN types; "
                     "operand ", i, " is ", operands[i].ToString(), ".");
    }
  }
  return Shape(TOKEN, {});
}

absl::StatusOr<Shape> ShapeInference::InferAddDependencyShape(
    const Shape& operand, const Shape& token) {
  if (!token.IsToken()) {
    return OpError(HloOpcode::kAddDependency,
                   "Operand 1 of add-dependency must be a token; got ",
                   token.ToString(), ".");
  }
  // Any value: an array, a tuple or a token.
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(operand));
  return operand;
}

absl::Status ShapeInference::RefuseChannelTransfer(HloOpcode opcode,
                                                   bool to_host) {
  if (to_host) {
    return OpError(opcode,
                   "a transfer between the device and the host; mxla has no "
                   "host channels (it takes inputs as parameters and gives "
                   "results as the root)");
  }
  return OpError(opcode, "a transfer to or from another device; ", kOneDevice,
                 ".");
}

}  // namespace mxla
