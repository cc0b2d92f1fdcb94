// Shape rules of the token ops (after-all, add-dependency), with XLA's
// messages, and the refusal of the channel ops that take tokens.
#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

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
                   "a transfer over a host channel; mxla exchanges values "
                   "with the host only through infeed and outfeed "
                   "(RunOptions::host_feed)");
  }
  return OpError(opcode, "a transfer to or from another device; ", kOneDevice,
                 ".");
}

namespace {

// XLA's (data, u32[] context, token[]) of a send or recv, data an array.
bool IsTransferTuple(const Shape& shape) {
  return shape.IsTuple() && shape.tuple_shapes().size() == 3 &&
         shape.tuple_shapes(0).IsArray() &&
         shape.tuple_shapes(1) == ShapeUtil::MakeScalarShape(U32) &&
         shape.tuple_shapes(2).IsToken();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferDeviceTransferShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const Shape& declared) {
  const Shape token(TOKEN, {});
  const Shape context = ShapeUtil::MakeScalarShape(U32);
  switch (opcode) {
    case HloOpcode::kSend:
      if (!operands[0]->IsArray() || !operands[1]->IsToken()) {
        return OpError(opcode, "sends an array and a token; got ",
                       operands[0]->ToString(), " and ",
                       operands[1]->ToString(), ".");
      }
      return Shape(std::vector<Shape>{*operands[0], context, token});
    case HloOpcode::kRecv:
      if (!operands[0]->IsToken() || !IsTransferTuple(declared)) {
        return OpError(opcode, "takes a token and gives (data, u32[], "
                       "token[]) with data an array; got ",
                       operands[0]->ToString(), " -> ", declared.ToString(),
                       ".");
      }
      return declared;
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      if (!IsTransferTuple(*operands[0])) {
        return OpError(opcode, "takes a ",
                       opcode == HloOpcode::kSendDone ? "send" : "recv",
                       "'s (data, u32[], token[]); got ",
                       operands[0]->ToString(), ".");
      }
      if (opcode == HloOpcode::kSendDone) return token;
      return Shape(std::vector<Shape>{operands[0]->tuple_shapes(0), token});
    default:
      return OpError(opcode, "is no transfer between devices.");
  }
}

namespace {

bool HoldsToken(const Shape& shape) {
  if (shape.IsToken()) return true;
  if (!shape.IsTuple()) return false;
  for (const Shape& element : shape.tuple_shapes()) {
    if (HoldsToken(element)) return true;
  }
  return false;
}

absl::Status CheckToken(HloOpcode opcode, int64_t operand, const Shape& token) {
  if (token.IsToken()) return absl::OkStatus();
  return OpError(opcode, "operand ", operand, " must be a token; got ",
                 token.ToString(), ".");
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferInfeedShape(const Shape& token,
                                                       const Shape& declared) {
  RETURN_IF_ERROR(CheckToken(HloOpcode::kInfeed, 0, token));
  if (!declared.IsTuple() || declared.tuple_shapes().size() != 2 ||
      !declared.tuple_shapes()[1].IsToken() ||
      HoldsToken(declared.tuple_shapes()[0])) {
    return OpError(HloOpcode::kInfeed,
                   "the result must be a pair of the data (arrays, no "
                   "token) and a token, like (f32[4], token[]); got ",
                   declared.ToString(), ".");
  }
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(declared));
  return declared;
}

absl::StatusOr<Shape> ShapeInference::InferOutfeedShape(const Shape& data,
                                                        const Shape& token) {
  RETURN_IF_ERROR(CheckToken(HloOpcode::kOutfeed, 1, token));
  if (HoldsToken(data)) {
    return OpError(HloOpcode::kOutfeed, "the data must hold no token; got ",
                   data.ToString(), ".");
  }
  return Shape(TOKEN, {});
}

}  // namespace mxla
