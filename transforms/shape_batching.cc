// Batching rules of the ops that move data: each takes its operand with
// the batch at dimension 0 and moves its own dimension attributes past it.
#include <vector>

#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

// A zero of the element type of the instruction's index operand `i`.
XlaOp ZeroIndexLike(const BatchContext& context, int64_t i) {
  const PrimitiveType type =
      i < context.instruction.operand_count()
          ? context.instruction.operand(i)->shape().element_type()
          : S32;
  return ConstantLiteral(&context.builder, LiteralUtil::Zero(type));
}

// The operands from `first_index` on are start indices: batched ones
// would need a gather or scatter (not yet); otherwise a zero start for the
// batch dimension goes first.
absl::StatusOr<std::vector<XlaOp>> StartsWithBatch(const BatchContext& context,
                                                   int64_t first_index) {
  std::vector<XlaOp> starts = {ZeroIndexLike(context, first_index)};
  for (int64_t i = first_index; i < context.instruction.operand_count(); ++i) {
    if (context.batched[i]) {
      return NoRuleError(context, "with batched start indices");
    }
    starts.push_back(context.operands[i]);
  }
  return starts;
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kBroadcast>, const BatchContext& context) {
  return Reemit(context, {context.operands[0]}, [&](HloInstruction& copy) {
    copy.set_dimensions(WithLeadingZero(context.instruction.dimensions()));
  });
}

Result BatchingRules::Handle(OpTag<Op::kReshape>, const BatchContext& context) {
  return Reemit(context, {context.operands[0]});
}

Result BatchingRules::Handle(OpTag<Op::kBitcast>, const BatchContext& context) {
  return Reemit(context, {context.operands[0]});
}

Result BatchingRules::Handle(OpTag<Op::kTranspose>, const BatchContext& context) {
  return Reemit(context, {context.operands[0]}, [&](HloInstruction& copy) {
    copy.set_dimensions(WithLeadingZero(context.instruction.dimensions()));
  });
}

Result BatchingRules::Handle(OpTag<Op::kReverse>, const BatchContext& context) {
  return Reemit(context, {context.operands[0]}, [&](HloInstruction& copy) {
    copy.set_dimensions(Shifted(context.instruction.dimensions()));
  });
}

Result BatchingRules::Handle(OpTag<Op::kSlice>, const BatchContext& context) {
  const HloInstruction& slice = context.instruction;
  std::vector<int64_t> starts = {0}, limits = {context.batch_size},
                       strides = {1};
  for (size_t d = 0; d < slice.slice_starts().size(); ++d) {
    starts.push_back(slice.slice_starts()[d]);
    limits.push_back(slice.slice_limits()[d]);
    strides.push_back(slice.slice_strides()[d]);
  }
  return Slice(context.operands[0], starts, limits, strides);
}

Result BatchingRules::Handle(OpTag<Op::kPad>, const BatchContext& context) {
  if (context.batched[1]) {
    return NoRuleError(context, "with a batched padding value");
  }
  PaddingConfig config = {PaddingDimension{}};
  const PaddingConfig own = context.instruction.padding_config();
  config.insert(config.end(), own.begin(), own.end());
  return Pad(context.operands[0], context.operands[1], config);
}

Result BatchingRules::Handle(OpTag<Op::kConcatenate>,
                             const BatchContext& context) {
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < context.instruction.operand_count(); ++i) {
    operands.push_back(BatchedOperand(context, i));
  }
  return Reemit(context, operands, [&](HloInstruction& copy) {
    copy.set_dimensions(Shifted(context.instruction.dimensions()));
  });
}

// A dynamic slice at batched starts: a gather of one slice per example,
// whose start indices are the starts stacked (clamped as the slice's are).
Result DynamicSliceAsGather(const BatchContext& context) {
  const HloInstruction& slice = context.instruction;
  const int64_t rank = slice.operand(0)->shape().dimensions().size();
  const PrimitiveType type = slice.operand(1)->shape().element_type();
  std::vector<XlaOp> columns;
  for (int64_t i = 1; i <= rank; ++i) {
    columns.push_back(Reshape(ConvertElementType(BatchedOperand(context, i), type),
                              {context.batch_size, 1}));
  }
  GatherDimensionNumbers numbers;
  numbers.index_vector_dim = 1;
  std::vector<int64_t> sizes = slice.dynamic_slice_sizes();
  for (int64_t d = 0; d < rank; ++d) {
    numbers.offset_dims.push_back(d + 1);
    numbers.start_index_map.push_back(context.batched[0] ? d + 1 : d);
  }
  if (context.batched[0]) {
    numbers.operand_batching_dims = {0};
    numbers.start_indices_batching_dims = {0};
    sizes.insert(sizes.begin(), 1);
  }
  return Gather(context.operands[0], ConcatInDim(&context.builder, columns, 1),
                numbers, sizes);
}

Result BatchingRules::Handle(OpTag<Op::kDynamicSlice>,
                             const BatchContext& context) {
  for (int64_t i = 1; i < context.instruction.operand_count(); ++i) {
    if (context.batched[i]) return DynamicSliceAsGather(context);
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> starts, StartsWithBatch(context, 1));
  std::vector<XlaOp> operands = {context.operands[0]};
  operands.insert(operands.end(), starts.begin(), starts.end());
  std::vector<int64_t> sizes = {context.batch_size};
  const std::vector<int64_t>& own = context.instruction.dynamic_slice_sizes();
  sizes.insert(sizes.end(), own.begin(), own.end());
  return Reemit(context, operands,
                [&](HloInstruction& copy) { copy.set_dynamic_slice_sizes(sizes); });
}

// The update's own value wins: what a dynamic-update-slice writes.
XlaComputation Overwrite(PrimitiveType type) {
  XlaBuilder builder("overwrite");
  const Shape scalar = ShapeUtil::MakeShape(type, {});
  Parameter(&builder, 0, scalar, "old");
  const XlaOp update = Parameter(&builder, 1, scalar, "update");
  return *builder.Build(update);
}

// A dynamic-update-slice at batched starts: a scatter of one update per
// example into its own operand, at starts clamped first as the update
// slice clamps them (a scatter would skip a window that does not fit).
Result DynamicUpdateSliceAsScatter(const BatchContext& context) {
  const HloInstruction& update = context.instruction;
  const Shape& operand = update.operand(0)->shape();
  const Shape& piece = update.operand(1)->shape();
  const int64_t rank = operand.dimensions().size();
  const PrimitiveType type = update.operand(2)->shape().element_type();
  std::vector<XlaOp> columns;
  for (int64_t i = 0; i < rank; ++i) {
    const XlaOp start = ConvertElementType(BatchedOperand(context, i + 2), type);
    const XlaOp clamped =
        Clamp(ScalarLike(start, 0), start,
              ScalarLike(start, operand.dimensions(i) - piece.dimensions(i)));
    columns.push_back(Reshape(clamped, {context.batch_size, 1}));
  }
  ScatterDimensionNumbers numbers;
  numbers.input_batching_dims = {0};
  numbers.scatter_indices_batching_dims = {0};
  numbers.index_vector_dim = 1;
  for (int64_t d = 0; d < rank; ++d) {
    numbers.update_window_dims.push_back(d + 1);
    numbers.scatter_dims_to_operand_dims.push_back(d + 1);
  }
  return Scatter(BatchedOperand(context, 0), ConcatInDim(&context.builder, columns, 1),
                 BatchedOperand(context, 1), Overwrite(operand.element_type()),
                 numbers);
}

Result BatchingRules::Handle(OpTag<Op::kDynamicUpdateSlice>,
                             const BatchContext& context) {
  for (int64_t i = 2; i < context.instruction.operand_count(); ++i) {
    if (context.batched[i]) return DynamicUpdateSliceAsScatter(context);
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> starts, StartsWithBatch(context, 2));
  std::vector<XlaOp> operands = {BatchedOperand(context, 0),
                                 BatchedOperand(context, 1)};
  operands.insert(operands.end(), starts.begin(), starts.end());
  return Reemit(context, operands);
}

// A batched tuple holds every element batched.
Result BatchingRules::Handle(OpTag<Op::kTuple>, const BatchContext& context) {
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < context.instruction.operand_count(); ++i) {
    operands.push_back(BatchedOperand(context, i));
  }
  return Reemit(context, operands);
}

Result BatchingRules::Handle(OpTag<Op::kGetTupleElement>,
                             const BatchContext& context) {
  return Reemit(context, {context.operands[0]});
}

}  // namespace mxla::batching_rules
