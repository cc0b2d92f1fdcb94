// Gradient rule of reduce-window (pooling), as JAX's: a sum sends each
// result's cotangent to every element of its window (the cotangent padded
// and spread by the stride, then summed over the same window: JAX's
// _reduce_window_sum_transpose_rule); a max or min sends it to the element
// the window chose, the first one in window order on a tie, by
// select-and-scatter with a GE or LE select and an add scatter (JAX's
// _select_and_gather_add_transpose).
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/fusion_plan.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

std::vector<int64_t> DimensionsOf(XlaOp op) {
  const Shape shape = ShapeOf(op);
  return {shape.dimensions().begin(), shape.dimensions().end()};
}

std::vector<int64_t> SumOfAll(int64_t rank) {
  std::vector<int64_t> all(rank);
  for (int64_t d = 0; d < rank; ++d) all[d] = d;
  return all;
}

// The operand's cotangent of a windowed sum.
XlaOp SumWindowCotangent(XlaOp g, XlaOp operand, const Window& window) {
  const std::vector<int64_t> in = DimensionsOf(operand);
  const std::vector<int64_t> out = DimensionsOf(g);
  PaddingConfig spread(window.size());
  std::vector<int64_t> sizes, strides, ones(window.size(), 1), dilations;
  for (size_t d = 0; d < window.size(); ++d) {
    const auto [low, high] = TransposedWindowPadding(in[d], out[d], window[d]);
    spread[d] = {low, high, window[d].stride - 1};
    sizes.push_back(window[d].size);
    strides.push_back(window[d].base_dilation);
    dilations.push_back(window[d].window_dilation);
  }
  const XlaOp zero = ScalarLike(g, 0);
  return ReduceWindowWithGeneralPadding(
      Pad(g, zero, spread), zero,
      CreateScalarAddComputation(ShapeOf(g).element_type(), g.builder()),
      sizes, strides, ones, dilations, {});
}

// The operand's cotangent of a windowed max (`is_max`) or min whose
// initial value is `init`: select-and-scatter over the operand, with
// base dilation's holes filled with the reducer's identity (they never win
// against an element) and sliced away after. Where the initial value is
// the result, no element won: that cotangent is dropped.
absl::StatusOr<XlaOp> ChooserWindowCotangent(const GradientContext& context,
                                             bool is_max,
                                             const Window& window) {
  XlaOp operand = context.operands[0];
  const XlaOp& init = context.operands[1];
  const PrimitiveType type = ShapeOf(operand).element_type();
  PaddingConfig holes(window.size());
  std::vector<int64_t> sizes, strides, starts(window.size(), 0), steps;
  std::vector<std::pair<int64_t, int64_t>> padding;
  bool dilated = false;
  for (size_t d = 0; d < window.size(); ++d) {
    dilated = dilated || window[d].base_dilation != 1;
    holes[d] = {0, 0, window[d].base_dilation - 1};
    sizes.push_back(window[d].size);
    strides.push_back(window[d].stride);
    steps.push_back(window[d].base_dilation);
    padding.push_back({window[d].padding_low, window[d].padding_high});
  }
  const double identity = is_max ? -INFINITY : INFINITY;
  if (dilated) operand = Pad(operand, ScalarLike(operand, identity), holes);
  ASSIGN_OR_RETURN(XlaComputation select,
                   ScalarComputation(context.builder, is_max ? "ge" : "le",
                                     type, [&](XlaOp a, XlaOp b) {
                                       return is_max ? Ge(a, b) : Le(a, b);
                                     }));
  const XlaOp init_won =
      Eq(context.result, BroadcastInDim(init, DimensionsOf(context.result), {}));
  const XlaOp source =
      Select(init_won, Filled(context.cotangent, 0), context.cotangent);
  const XlaOp scattered = SelectAndScatterWithGeneralPadding(
      operand, select, sizes, strides, padding, source, ScalarLike(source, 0),
      CreateScalarAddComputation(type, &context.builder));
  if (!dilated) return scattered;
  return Slice(scattered, starts, DimensionsOf(scattered), steps);
}

}  // namespace

// Sum: the initial value is added once to every result, so it gets the
// sum of the cotangent. Max and min: the initial value must be a constant.
Result GradientRules::Handle(OpTag<Op::kReduceWindow>,
                             const GradientContext& context) {
  const HloInstruction& reduce_window = context.instruction;
  if (context.operands.size() != 2) {
    return NoRuleError(context, "with several operands");
  }
  const HloComputation& reducer = *reduce_window.to_apply();
  const Window window = reduce_window.window();
  const XlaOp& g = context.cotangent;
  if (IsPlainBinaryReducer(reducer, Op::kAdd)) {
    return OperandCotangents{
        SumWindowCotangent(g, context.operands[0], window),
        SumOver(g, SumOfAll(ShapeOf(g).dimensions().size()))};
  }
  const bool is_max = IsPlainBinaryReducer(reducer, Op::kMaximum);
  if (!is_max && !IsPlainBinaryReducer(reducer, Op::kMinimum)) {
    return NoRuleError(context, "with a reducer other than add, max or min");
  }
  if (reduce_window.operand(1)->opcode() != Op::kConstant) {
    return NoRuleError(context, "with a max or min reducer and an initial "
                                "value that is not a constant");
  }
  for (const WindowDimension& w : window) {
    if (w.window_dilation != 1) {
      return NoRuleError(context, "with a max or min reducer and window "
                                  "dilation");
    }
  }
  ASSIGN_OR_RETURN(XlaOp cotangent,
                   ChooserWindowCotangent(context, is_max, window));
  return OperandCotangents{cotangent, XlaOp()};
}

}  // namespace mxla::gradient_rules
