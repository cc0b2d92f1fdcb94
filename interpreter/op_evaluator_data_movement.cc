#include <cstdint>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "interpreter/op_evaluator.h"
#include "ir/literal.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kIota>) {
  return EvaluateIota(shape(), instruction_.iota_dimension());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kBroadcast>) {
  return EvaluateBroadcast(operand(0), shape(), instruction_.dimensions());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kReshape>) {
  return EvaluateReshape(operand(0), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kBitcast>) {
  return EvaluateReshape(operand(0), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kTranspose>) {
  return EvaluateTranspose(operand(0), instruction_.dimensions());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kReverse>) {
  return EvaluateReverse(operand(0), instruction_.dimensions());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kConcatenate>) {
  return EvaluateConcatenate(operands_, shape(), instruction_.dimensions(0));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kSlice>) {
  return EvaluateSlice(operand(0), instruction_.slice_starts(),
                       instruction_.slice_limits(),
                       instruction_.slice_strides());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kDynamicSlice>) {
  return EvaluateDynamicSlice(operands_, instruction_.dynamic_slice_sizes());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kDynamicUpdateSlice>) {
  return EvaluateDynamicUpdateSlice(operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kPad>) {
  return EvaluatePad(operand(0), operand(1), instruction_.padding_config(),
                     shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kGather>) {
  return EvaluateGather(operand(0), operand(1),
                        instruction_.gather_dimension_numbers(),
                        instruction_.gather_slice_sizes(), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kGetDimensionSize>) {
  const Shape& operand_shape = operand(0).shape();
  const int64_t d = instruction_.dimensions(0);
  RET_CHECK(operand_shape.IsArray() && d >= 0 && d < operand_shape.rank(),
            instruction_.ToString());
  return LiteralUtil::CreateR0<int32_t>(
      static_cast<int32_t>(operand_shape.dimensions(d)));
}

}  // namespace mxla::hlo_evaluator_internal
