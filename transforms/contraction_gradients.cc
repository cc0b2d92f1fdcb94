// Gradient rules of the ops that sum or choose over dimensions: dot and
// reduce.
#include <algorithm>
#include <numeric>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/fusion_plan.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

int64_t RankOf(XlaOp op) { return ShapeOf(op).dimensions().size(); }

int64_t PositionOf(const std::vector<int64_t>& values, int64_t value) {
  return std::find(values.begin(), values.end(), value) - values.begin();
}

// The cotangent of dot's `mine` operand (lhs when `mine_is_lhs`): dot the
// result's cotangent with the other operand over the other's free
// dimensions (batch with batch), which leaves batch, my free and (in the
// other's dimension order) its contracting dimensions; then put them back
// in my own order. JAX's _dot_general_transpose_lhs/rhs.
XlaOp DotOperandCotangent(XlaOp cotangent, XlaOp mine, XlaOp other,
                          const DotDimensionNumbers& dnums, bool mine_is_lhs) {
  const std::vector<int64_t>& my_batch =
      mine_is_lhs ? dnums.lhs_batch : dnums.rhs_batch;
  const std::vector<int64_t>& my_contracting =
      mine_is_lhs ? dnums.lhs_contracting : dnums.rhs_contracting;
  const std::vector<int64_t>& other_batch =
      mine_is_lhs ? dnums.rhs_batch : dnums.lhs_batch;
  const std::vector<int64_t>& other_contracting =
      mine_is_lhs ? dnums.rhs_contracting : dnums.lhs_contracting;
  const int64_t my_rank = RankOf(mine);
  const std::vector<int64_t> my_free =
      DotFreeDimensions(my_rank, my_batch, my_contracting);
  const std::vector<int64_t> other_free =
      DotFreeDimensions(RankOf(other), other_batch, other_contracting);
  // The result's dimensions are batch, lhs free, rhs free.
  const int64_t batch_count = my_batch.size();
  const int64_t other_free_start =
      mine_is_lhs ? batch_count + my_free.size() : batch_count;
  DotDimensionNumbers back;
  for (int64_t i = 0; i < batch_count; ++i) back.lhs_batch.push_back(i);
  back.rhs_batch = other_batch;
  for (size_t i = 0; i < other_free.size(); ++i) {
    back.lhs_contracting.push_back(other_free_start + i);
  }
  back.rhs_contracting = other_free;
  const XlaOp product = DotGeneral(cotangent, other, back);
  // product's dimensions are my batch, my free, then my contracting ones
  // in the order of their partners in `other`.
  std::vector<int64_t> sorted_partners = other_contracting;
  std::sort(sorted_partners.begin(), sorted_partners.end());
  std::vector<int64_t> source = my_batch;
  source.insert(source.end(), my_free.begin(), my_free.end());
  for (int64_t partner : sorted_partners) {
    source.push_back(my_contracting[PositionOf(other_contracting, partner)]);
  }
  std::vector<int64_t> permutation(my_rank);
  for (int64_t d = 0; d < my_rank; ++d) permutation[d] = PositionOf(source, d);
  return ConvertTo(Transpose(product, permutation),
                   ShapeOf(mine).element_type());
}

std::vector<int64_t> KeptDimensions(int64_t rank,
                                    const std::vector<int64_t>& reduced) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      kept.push_back(d);
    }
  }
  return kept;
}

// `value` (the reduce's result shape) stretched back over the reduced
// dimensions of `operand`.
XlaOp Unreduce(XlaOp value, XlaOp operand,
               const std::vector<int64_t>& reduced) {
  const Shape shape = ShapeOf(operand);
  return BroadcastInDim(value, shape.dimensions(),
                        KeptDimensions(shape.dimensions().size(), reduced));
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kDot>, const GradientContext& context) {
  const DotDimensionNumbers dnums = context.instruction.dot_dimension_numbers();
  const XlaOp& lhs = context.operands[0];
  const XlaOp& rhs = context.operands[1];
  return OperandCotangents{
      DotOperandCotangent(context.cotangent, lhs, rhs, dnums, true),
      DotOperandCotangent(context.cotangent, rhs, lhs, dnums, false)};
}

// Sum: every reduced element gets the cotangent of its sum, and so does the
// initial value. Product: ProductReduceCotangents. Max and min: the elements that attain the extremum share
// its cotangent evenly (JAX's chooser rule); the initial value must be a
// constant (it has no cotangent then).
Result GradientRules::Handle(OpTag<Op::kReduce>,
                             const GradientContext& context) {
  const HloInstruction& reduce = context.instruction;
  if (context.operands.size() != 2) return NoRuleError(context);
  const HloComputation& reducer = *reduce.to_apply();
  const std::vector<int64_t>& reduced = reduce.dimensions();
  const XlaOp& operand = context.operands[0];
  if (IsPlainBinaryReducer(reducer, Op::kAdd)) {
    std::vector<int64_t> all(RankOf(context.cotangent));
    std::iota(all.begin(), all.end(), 0);
    return OperandCotangents{Unreduce(context.cotangent, operand, reduced),
                             SumOver(context.cotangent, all)};
  }
  if (IsPlainBinaryReducer(reducer, Op::kMultiply)) {
    return ProductReduceCotangents(context);
  }
  const bool chooser = IsPlainBinaryReducer(reducer, Op::kMaximum) ||
                       IsPlainBinaryReducer(reducer, Op::kMinimum);
  if (!chooser || reduce.operand(1)->opcode() != Op::kConstant) {
    return NoRuleError(context);
  }
  const XlaOp chosen = Eq(operand, Unreduce(context.result, operand, reduced));
  const XlaOp ones = Select(chosen, Filled(operand, 1), Filled(operand, 0));
  // Max(count, 1): where the initial value won, no element shares.
  const XlaOp count = SumOver(ones, reduced);
  const XlaOp share = context.cotangent / Max(count, Filled(count, 1));
  return OperandCotangents{ones * Unreduce(share, operand, reduced), XlaOp()};
}

}  // namespace mxla::gradient_rules
