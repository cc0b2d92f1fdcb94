// Gradient rule of select-and-scatter with an add scatter (a max pool's
// gradient, so this is what a max pool's second derivative goes through).
// The result is linear in the source: each source element lands on the
// operand element its window selects. Its transpose gathers: the source's
// cotangent at a window is the result's cotangent at the element that
// window selected (JAX's select-and-gather). That is a variadic
// reduce-window over (operand, cotangent, taken) whose reducer replays
// select-and-scatter's scan (semantics/select_and_scatter.h): the first
// real tap is taken, then a later tap replaces the kept one unless
// select(kept, tap) holds. Both fold the taps in row-major order and skip
// padding, so the same element is chosen, ties included. The operand gets
// no cotangent (the selection is piecewise constant, as in JAX); the
// initial value, added to every result element, gets the cotangent's sum.
#include <memory>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/fusion_plan.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// (kept value, kept cotangent, taken, tap value, tap cotangent, tap taken)
// -> the triple select-and-scatter's scan keeps.
absl::StatusOr<XlaComputation> SelectingReducer(XlaBuilder& builder,
                                                const HloComputation& select,
                                                PrimitiveType value_type,
                                                PrimitiveType cotangent_type) {
  std::unique_ptr<XlaBuilder> sub = builder.CreateSubBuilder("select_gather");
  const Shape value = ShapeUtil::MakeScalarShape(value_type);
  const Shape cotangent = ShapeUtil::MakeScalarShape(cotangent_type);
  const Shape taken = ShapeUtil::MakeScalarShape(PRED);
  const XlaOp kept_value = Parameter(sub.get(), 0, value, "kept_value");
  const XlaOp kept_cotangent = Parameter(sub.get(), 1, cotangent, "kept_g");
  const XlaOp kept_taken = Parameter(sub.get(), 2, taken, "kept_taken");
  const XlaOp tap_value = Parameter(sub.get(), 3, value, "tap_value");
  const XlaOp tap_cotangent = Parameter(sub.get(), 4, cotangent, "tap_g");
  const XlaOp tap_taken = Parameter(sub.get(), 5, taken, "tap_taken");
  ASSIGN_OR_RETURN(InlinedValues selected,
                   InlineComputation(*sub, select, {kept_value, tap_value}));
  const XlaOp keep = And(kept_taken, selected.at(select.root_instruction()));
  return sub->Build(
      Tuple(sub.get(), {Select(keep, kept_value, tap_value),
                        Select(keep, kept_cotangent, tap_cotangent),
                        Or(kept_taken, tap_taken)}));
}

// For each window (source element), `g` at the operand element the
// window selects; 0 where a window covers only padding.
absl::StatusOr<XlaOp> GatherBySelection(const GradientContext& context,
                                        XlaOp g) {
  const HloInstruction& instruction = context.instruction;
  XlaBuilder& builder = context.builder;
  const XlaOp operand = context.operands[0];
  const Shape operand_shape = ShapeOf(operand);
  ASSIGN_OR_RETURN(
      XlaComputation reducer,
      SelectingReducer(builder, *instruction.called_computations()[0],
                       operand_shape.element_type(),
                       ShapeOf(g).element_type()));
  std::vector<int64_t> sizes, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  for (const WindowDimension& w : instruction.window()) {
    sizes.push_back(w.size);
    strides.push_back(w.stride);
    padding.push_back({w.padding_low, w.padding_high});
  }
  const XlaOp no = ConstantR0<bool>(&builder, false);
  const XlaOp taken = BroadcastInDim(ConstantR0<bool>(&builder, true),
                                     operand_shape.dimensions(), {});
  const XlaOp gathered = ReduceWindowWithGeneralPadding(
      &builder, {operand, g, taken},
      {ScalarLike(operand, 0), ScalarLike(g, 0), no}, reducer, sizes, strides,
      {}, {}, padding);
  return GetTupleElement(gathered, 1);
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kSelectAndScatter>,
                             const GradientContext& context) {
  const HloInstruction& instruction = context.instruction;
  const auto& callees = instruction.called_computations();
  if (callees.size() != 2 || !IsPlainBinaryReducer(*callees[1], Op::kAdd)) {
    return NoRuleError(context,
                       "whose scatter computation is not an add (only an "
                       "add makes the result linear in the source)");
  }
  for (const WindowDimension& w : instruction.window()) {
    if (w.base_dilation != 1 || w.window_dilation != 1) {
      return NoRuleError(context, "with a dilated window");
    }
  }
  const XlaOp& g = context.cotangent;
  ASSIGN_OR_RETURN(XlaOp source, GatherBySelection(context, g));
  std::vector<int64_t> all(ShapeOf(g).dimensions().size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = d;
  return OperandCotangents{XlaOp(), source, SumOver(g, all)};
}

}  // namespace mxla::gradient_rules
