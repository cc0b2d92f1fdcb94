// Gradient rules of the ops that move data without arithmetic: each sends
// the cotangent back to where the operand's elements came from.
#include <algorithm>
#include <numeric>
#include <vector>

#include "builder/operators.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

std::vector<int64_t> DimensionsOf(XlaOp op) {
  const Shape shape = ShapeOf(op);
  return {shape.dimensions().begin(), shape.dimensions().end()};
}

OperandCotangents First(XlaOp cotangent, size_t operand_count) {
  OperandCotangents cotangents(operand_count);
  cotangents[0] = cotangent;
  return cotangents;
}

}  // namespace

// Operand dimension i became result dimension dimensions[i] (stretched
// when its size is 1): sum over every other result dimension and over the
// stretched ones, then restore the operand's shape.
Result GradientRules::Handle(OpTag<Op::kBroadcast>,
                             const GradientContext& context) {
  const std::vector<int64_t> operand_dims = DimensionsOf(context.operands[0]);
  const std::vector<int64_t> result_dims = DimensionsOf(context.result);
  const std::vector<int64_t>& mapped = context.instruction.dimensions();
  std::vector<bool> kept(result_dims.size(), false);
  for (size_t i = 0; i < mapped.size(); ++i) {
    kept[mapped[i]] = operand_dims[i] == result_dims[mapped[i]];
  }
  std::vector<int64_t> summed;
  for (int64_t d = 0; d < static_cast<int64_t>(result_dims.size()); ++d) {
    if (!kept[d]) summed.push_back(d);
  }
  return OperandCotangents{
      Reshape(SumOver(context.cotangent, summed), operand_dims)};
}

Result GradientRules::Handle(OpTag<Op::kReshape>,
                             const GradientContext& context) {
  return OperandCotangents{
      Reshape(context.cotangent, DimensionsOf(context.operands[0]))};
}

// A bitcast in builder HLO is a reshape of the same element type.
Result GradientRules::Handle(OpTag<Op::kBitcast>,
                             const GradientContext& context) {
  return Handle(OpTag<Op::kReshape>{}, context);
}

Result GradientRules::Handle(OpTag<Op::kTranspose>,
                             const GradientContext& context) {
  const std::vector<int64_t>& permutation = context.instruction.dimensions();
  std::vector<int64_t> inverse(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) inverse[permutation[i]] = i;
  return OperandCotangents{Transpose(context.cotangent, inverse)};
}

Result GradientRules::Handle(OpTag<Op::kReverse>,
                             const GradientContext& context) {
  return OperandCotangents{
      Rev(context.cotangent, context.instruction.dimensions())};
}

// The sliced elements go back to their places, zeros elsewhere: a pad whose
// interior padding skips the stride.
Result GradientRules::Handle(OpTag<Op::kSlice>,
                             const GradientContext& context) {
  const std::vector<int64_t> operand_dims = DimensionsOf(context.operands[0]);
  const std::vector<int64_t> result_dims = DimensionsOf(context.result);
  const std::vector<int64_t> starts = context.instruction.slice_starts();
  const std::vector<int64_t> strides = context.instruction.slice_strides();
  if (std::find(result_dims.begin(), result_dims.end(), 0) !=
      result_dims.end()) {
    return OperandCotangents{Filled(context.operands[0], 0)};
  }
  PaddingConfig config(operand_dims.size());
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    const int64_t last_read = starts[d] + (result_dims[d] - 1) * strides[d];
    config[d].low = starts[d];
    config[d].high = operand_dims[d] - 1 - last_read;
    config[d].interior = strides[d] - 1;
  }
  return OperandCotangents{
      Pad(context.cotangent, ScalarLike(context.cotangent, 0), config)};
}

// JAX's pad transpose: undo the edge padding (a negative pad crops, and a
// negative edge in the forward pad comes back as zeros), take every
// (interior + 1)-th element; the padding value gets what is left over.
Result GradientRules::Handle(OpTag<Op::kPad>, const GradientContext& context) {
  const PaddingConfig config = context.instruction.padding_config();
  PaddingConfig unpad(config.size());
  std::vector<int64_t> starts(config.size(), 0), strides(config.size());
  for (size_t d = 0; d < config.size(); ++d) {
    unpad[d].low = -config[d].low;
    unpad[d].high = -config[d].high;
    strides[d] = config[d].interior + 1;
  }
  const XlaOp zero = ScalarLike(context.cotangent, 0);
  const XlaOp unpadded = Pad(context.cotangent, zero, unpad);
  const XlaOp operand_cotangent =
      Slice(unpadded, starts, DimensionsOf(unpadded), strides);
  std::vector<int64_t> all(config.size());
  std::iota(all.begin(), all.end(), 0);
  const XlaOp value_cotangent = SumOver(context.cotangent, all) -
                                SumOver(operand_cotangent, all);
  return OperandCotangents{operand_cotangent, value_cotangent};
}

Result GradientRules::Handle(OpTag<Op::kConcatenate>,
                             const GradientContext& context) {
  const int64_t dimension = context.instruction.dimensions(0);
  std::vector<int64_t> limits = DimensionsOf(context.cotangent);
  std::vector<int64_t> starts(limits.size(), 0);
  const std::vector<int64_t> strides(limits.size(), 1);
  OperandCotangents cotangents;
  int64_t offset = 0;
  for (const XlaOp& operand : context.operands) {
    const int64_t size = DimensionsOf(operand)[dimension];
    starts[dimension] = offset;
    limits[dimension] = offset + size;
    cotangents.push_back(Slice(context.cotangent, starts, limits, strides));
    offset += size;
  }
  return cotangents;
}

// The window goes back where it was read (the same clamped start, as
// dynamic-update-slice clamps exactly as dynamic-slice does).
Result GradientRules::Handle(OpTag<Op::kDynamicSlice>,
                             const GradientContext& context) {
  const std::vector<XlaOp> starts(context.operands.begin() + 1,
                                  context.operands.end());
  return First(DynamicUpdateSlice(Filled(context.operands[0], 0),
                                  context.cotangent, starts),
               context.operands.size());
}

// The update's elements replaced the operand's: the operand keeps the
// cotangent outside the window, the update gets the window's.
Result GradientRules::Handle(OpTag<Op::kDynamicUpdateSlice>,
                             const GradientContext& context) {
  const XlaOp& update = context.operands[1];
  const std::vector<XlaOp> starts(context.operands.begin() + 2,
                                  context.operands.end());
  OperandCotangents cotangents(context.operands.size());
  cotangents[0] =
      DynamicUpdateSlice(context.cotangent, Filled(update, 0), starts);
  cotangents[1] = DynamicSlice(context.cotangent, starts, DimensionsOf(update));
  return cotangents;
}

// Each element of a tuple gets its own cotangent (none where none came).
Result GradientRules::Handle(OpTag<Op::kTuple>,
                             const GradientContext& context) {
  OperandCotangents cotangents = context.tuple_cotangent;
  cotangents.resize(context.operands.size());
  return cotangents;
}

// The element read gets the cotangent, the tuple's other elements none.
Result GradientRules::Handle(OpTag<Op::kGetTupleElement>,
                             const GradientContext& context) {
  const HloInstruction& read = context.instruction;
  std::vector<Cotangent> elements(
      read.operand(0)->shape().tuple_shapes().size());
  elements[read.tuple_index()] = ResultCotangent(context);
  return OperandCotangents{Cotangent::OfTuple(std::move(elements))};
}

}  // namespace mxla::gradient_rules
