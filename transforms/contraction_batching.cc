// Batching rules of the ops that combine many elements into one: dot
// (the batch becomes one of its batch dimensions, or a free dimension
// when one side is not batched), reduce and reduce-window (the batch
// dimension is never reduced).
#include <vector>

#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

// `shape` with a dimension of `size` inserted at `position`.
Shape Inserted(const Shape& shape, int64_t position, int64_t size) {
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  dims.insert(dims.begin() + position, size);
  return ShapeUtil::MakeShape(shape.element_type(), dims);
}

// `value` with dimension `from` moved to the front.
XlaOp ToFront(XlaOp value, int64_t from, int64_t rank) {
  if (from == 0) return value;
  std::vector<int64_t> permutation = {from};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != from) permutation.push_back(d);
  }
  return Transpose(value, permutation);
}

}  // namespace

// Both sides batched: the batch joins the batch dimensions, first, so the
// result has it at 0. One side batched: its batch is a free dimension, the
// first of that side's, so it lands after the batch dimensions (and, for
// rhs, after lhs's free dimensions); a transpose brings it to the front.
Result BatchingRules::Handle(OpTag<Op::kDot>, const BatchContext& context) {
  const HloInstruction& dot = context.instruction;
  const DotDimensionNumbers own = dot.dot_dimension_numbers();
  DotDimensionNumbers numbers = own;
  int64_t position = 0;
  const bool lhs = context.batched[0], rhs = context.batched[1];
  if (lhs) {
    numbers.lhs_batch = Shifted(own.lhs_batch);
    numbers.lhs_contracting = Shifted(own.lhs_contracting);
  }
  if (rhs) {
    numbers.rhs_batch = Shifted(own.rhs_batch);
    numbers.rhs_contracting = Shifted(own.rhs_contracting);
  }
  if (lhs && rhs) {
    numbers.lhs_batch = WithLeadingZero(own.lhs_batch);
    numbers.rhs_batch = WithLeadingZero(own.rhs_batch);
  } else if (lhs) {
    position = own.lhs_batch.size();
  } else {
    const int64_t lhs_rank = dot.operand(0)->shape().dimensions().size();
    position = lhs_rank - own.lhs_contracting.size();
  }
  const Shape shape = Inserted(dot.shape(), position, context.batch_size);
  const XlaOp value = EmitCopyOf(
      context.builder, dot, shape, {context.operands[0], context.operands[1]},
      context.callees,
      [&](HloInstruction& copy) { copy.set_dot_dimension_numbers(numbers); });
  return ToFront(value, position, shape.dimensions().size());
}

namespace {

// Operands first, then as many initial values (which must not be
// batched): the operands batched, the initial values as they are.
absl::StatusOr<std::vector<XlaOp>> OperandsThenInits(const BatchContext& context) {
  const int64_t count = context.instruction.operand_count() / 2;
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < count; ++i) operands.push_back(BatchedOperand(context, i));
  for (int64_t i = count; i < 2 * count; ++i) {
    if (context.batched[i]) {
      return NoRuleError(context, "with a batched initial value");
    }
    operands.push_back(context.operands[i]);
  }
  return operands;
}

}  // namespace

// The batch is never reduced.
Result BatchingRules::Handle(OpTag<Op::kReduce>, const BatchContext& context) {
  ASSIGN_OR_RETURN(std::vector<XlaOp> operands, OperandsThenInits(context));
  return Reemit(context, operands, [&](HloInstruction& copy) {
    copy.set_dimensions(Shifted(context.instruction.dimensions()));
  });
}

// A window of one over the batch dimension.
Result BatchingRules::Handle(OpTag<Op::kReduceWindow>,
                             const BatchContext& context) {
  ASSIGN_OR_RETURN(std::vector<XlaOp> operands, OperandsThenInits(context));
  Window window = {WindowDimension{}};
  const Window own = context.instruction.window();
  window.insert(window.end(), own.begin(), own.end());
  return Reemit(context, operands,
                [&](HloInstruction& copy) { copy.set_window(window); });
}

}  // namespace mxla::batching_rules
