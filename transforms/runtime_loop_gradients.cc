// The gradient rule of a while loop whose trip count is known only at run
// time (its condition reads the state), exact by rematerialization, where
// JAX refuses reverse mode: a forward loop with a trip counter learns n;
// then for j = n-1 down to 0 an inner loop recomputes s_j by running the
// body j times from s_0, and the body's vector-Jacobian product at s_j
// carries the cotangent back one trip. That is O(n^2) body evaluations and
// no storage. The condition contributes no cotangent: it only decides n.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "passes/while_loop_util.h"
#include "transforms/autodiff.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

struct RuntimeLoop {
  std::vector<Shape> elements;    // the state's, all arrays
  std::vector<int64_t> floating;  // the elements a cotangent flows in
  XlaComputation condition;       // (element 0, element 1, ...) -> pred[]
  XlaComputation body;            // (element 0, element 1, ...) -> state
};

XlaOp Int32(XlaBuilder& builder, int64_t value) {
  return ConstantR0<int32_t>(&builder, static_cast<int32_t>(value));
}

absl::StatusOr<RuntimeLoop> Analyze(const GradientContext& context) {
  const HloInstruction& loop = context.instruction;
  std::vector<Shape> elements;
  std::vector<int64_t> floating;
  bool flat = loop.shape().IsTuple();
  const int64_t count =
      flat ? static_cast<int64_t>(loop.shape().tuple_shapes().size()) : 0;
  for (int64_t i = 0; flat && i < count; ++i) {
    const Shape& element = loop.shape().tuple_shapes(i);
    flat = element.IsArray();
    elements.push_back(element);
    if (primitive_util::IsFloatingPointType(element.element_type())) {
      floating.push_back(i);
    }
  }
  if (!flat) {
    return NoRuleError(context, "whose state is not a tuple of arrays");
  }
  ASSIGN_OR_RETURN(XlaComputation condition,
                   ComputationOfElements(*while_loop::Condition(loop), elements,
                                         absl::StrCat(loop.name(), ".cond")));
  ASSIGN_OR_RETURN(XlaComputation body,
                   ComputationOfElements(*while_loop::Body(loop), elements,
                                         absl::StrCat(loop.name(), ".body")));
  return RuntimeLoop{std::move(elements), std::move(floating),
                     std::move(condition), std::move(body)};
}

// The first `count` elements of the tuple `state`.
std::vector<XlaOp> Leading(XlaOp state, size_t count) {
  std::vector<XlaOp> elements;
  for (size_t i = 0; i < count; ++i) {
    elements.push_back(GetTupleElement(state, i));
  }
  return elements;
}

// A while over (state elements..., extra...) whose condition is
// `condition(elements, extra)` and whose body steps the elements through
// the loop's body and the extras by `step`.
using ExtraFn =
    std::function<XlaOp(XlaBuilder&, const std::vector<XlaOp>& elements,
                        const std::vector<XlaOp>& extra)>;
using StepFn = std::function<std::vector<XlaOp>(
    XlaBuilder&, const std::vector<XlaOp>& extra)>;

absl::StatusOr<XlaOp> StateLoop(XlaBuilder& outer, const RuntimeLoop& loop,
                                const std::string& name,
                                const std::vector<XlaOp>& start,
                                const std::vector<Shape>& extra_shapes,
                                const ExtraFn& condition, const StepFn& step) {
  const size_t k = loop.elements.size();
  std::vector<Shape> shapes = loop.elements;
  shapes.insert(shapes.end(), extra_shapes.begin(), extra_shapes.end());
  auto split = [&](XlaOp state, std::vector<XlaOp>& extra) {
    for (size_t e = 0; e < extra_shapes.size(); ++e) {
      extra.push_back(GetTupleElement(state, k + e));
    }
    return Leading(state, k);
  };
  XlaBuilder cond(absl::StrCat(name, "_condition"));
  std::vector<XlaOp> cond_extra;
  const XlaOp cond_state = Parameter(&cond, 0, Shape(shapes), "state");
  const std::vector<XlaOp> cond_elements = split(cond_state, cond_extra);
  ASSIGN_OR_RETURN(XlaComputation cond_computation,
                   cond.Build(condition(cond, cond_elements, cond_extra)));
  XlaBuilder body(name);
  std::vector<XlaOp> body_extra;
  const XlaOp body_state = Parameter(&body, 0, Shape(shapes), "state");
  const std::vector<XlaOp> body_elements = split(body_state, body_extra);
  ASSIGN_OR_RETURN(XlaOp next, CallInline(body, loop.body, body_elements));
  std::vector<XlaOp> root = Leading(next, k);
  const std::vector<XlaOp> stepped = step(body, body_extra);
  root.insert(root.end(), stepped.begin(), stepped.end());
  ASSIGN_OR_RETURN(XlaComputation body_computation,
                   body.Build(Tuple(&body, root)));
  return While(cond_computation, body_computation, Tuple(&outer, start));
}

// The loop's own condition on the elements.
ExtraFn LoopCondition(const RuntimeLoop& loop) {
  return [&loop](XlaBuilder& builder, const std::vector<XlaOp>& elements,
                 const std::vector<XlaOp>&) {
    absl::StatusOr<XlaOp> holds = CallInline(builder, loop.condition, elements);
    return holds.ok() ? *holds : XlaOp();
  };
}

// counter < limit, the extras being (counter, limit).
XlaOp Below(XlaBuilder&, const std::vector<XlaOp>&,
            const std::vector<XlaOp>& extra) {
  return Lt(extra[0], extra[1]);
}

// The trip count: the loop again from its init, with a counter.
absl::StatusOr<XlaOp> TripCount(XlaBuilder& outer, const RuntimeLoop& loop,
                                const std::string& name, XlaOp init) {
  std::vector<XlaOp> start = Leading(init, loop.elements.size());
  start.push_back(Int32(outer, 0));
  ASSIGN_OR_RETURN(
      XlaOp done,
      StateLoop(outer, loop, absl::StrCat(name, ".count"), start,
                {ShapeUtil::MakeShape(S32, {})}, LoopCondition(loop),
                [](XlaBuilder& b, const std::vector<XlaOp>& extra) {
                  return std::vector<XlaOp>{extra[0] + Int32(b, 1)};
                }));
  return GetTupleElement(done, loop.elements.size());
}

// s_trip: the body run `trip` times from `first` (s_0's elements).
absl::StatusOr<std::vector<XlaOp>> Replayed(XlaBuilder& builder,
                                            const RuntimeLoop& loop,
                                            const std::string& name,
                                            std::vector<XlaOp> first,
                                            XlaOp trip) {
  first.push_back(Int32(builder, 0));
  first.push_back(trip);
  const Shape counter = ShapeUtil::MakeShape(S32, {});
  ASSIGN_OR_RETURN(
      XlaOp done,
      StateLoop(builder, loop, absl::StrCat(name, ".replay"), first,
                {counter, counter}, Below,
                [](XlaBuilder& b, const std::vector<XlaOp>& extra) {
                  return std::vector<XlaOp>{extra[0] + Int32(b, 1), extra[1]};
                }));
  return Leading(done, loop.elements.size());
}

// One backward trip's body: state (j, s_0's elements, the floating
// elements' cotangents) -> (j - 1, s_0, the cotangents carried back
// through the body at s_j).
absl::StatusOr<XlaComputation> BackwardTrip(const RuntimeLoop& loop,
                                            const std::string& name,
                                            const Shape& state_shape) {
  const size_t k = loop.elements.size();
  XlaBuilder body(absl::StrCat(name, ".backward"));
  const XlaOp state = Parameter(&body, 0, state_shape, "state");
  const XlaOp trip = GetTupleElement(state, 0);
  std::vector<XlaOp> first;
  for (size_t i = 0; i < k; ++i) first.push_back(GetTupleElement(state, 1 + i));
  std::vector<XlaOp> seeds(k);
  for (size_t f = 0; f < loop.floating.size(); ++f) {
    seeds[loop.floating[f]] = GetTupleElement(state, 1 + k + f);
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> at_trip,
                   Replayed(body, loop, name, first, trip));
  ASSIGN_OR_RETURN(VjpOps step, EmitTupleVjp(body, loop.body, at_trip, seeds,
                                             loop.floating));
  std::vector<XlaOp> root = {trip - Int32(body, 1)};
  root.insert(root.end(), first.begin(), first.end());
  root.insert(root.end(), step.cotangents.begin(), step.cotangents.end());
  return body.Build(Tuple(&body, root));
}

}  // namespace

Result RuntimeLoopCotangents(const GradientContext& context) {
  ASSIGN_OR_RETURN(RuntimeLoop loop, Analyze(context));
  XlaBuilder& outer = context.builder;
  const std::string& name = context.instruction.name();
  const XlaOp init = context.operands[0];
  ASSIGN_OR_RETURN(XlaOp trips, TripCount(outer, loop, name, init));
  std::vector<Shape> shapes = {ShapeUtil::MakeShape(S32, {})};
  shapes.insert(shapes.end(), loop.elements.begin(), loop.elements.end());
  std::vector<XlaOp> start = {trips - Int32(outer, 1)};
  for (XlaOp element : Leading(init, loop.elements.size())) {
    start.push_back(element);
  }
  for (int64_t f : loop.floating) {
    shapes.push_back(loop.elements[f]);
    const Cotangent& given = context.tuple_cotangent[f];
    start.push_back(given.valid() && !given.is_tuple
                        ? given.array
                        : Filled(GetTupleElement(context.result, f), 0));
  }
  ASSIGN_OR_RETURN(XlaComputation body,
                   BackwardTrip(loop, name, Shape(shapes)));
  XlaBuilder condition(absl::StrCat(name, ".backward_condition"));
  const XlaOp state = Parameter(&condition, 0, Shape(shapes), "state");
  ASSIGN_OR_RETURN(
      XlaComputation condition_computation,
      condition.Build(Ge(GetTupleElement(state, 0), Int32(condition, 0))));
  const XlaOp done = While(condition_computation, body, Tuple(&outer, start));
  std::vector<Cotangent> elements(loop.elements.size());
  for (size_t f = 0; f < loop.floating.size(); ++f) {
    elements[loop.floating[f]] =
        GetTupleElement(done, 1 + loop.elements.size() + f);
  }
  return OperandCotangents{Cotangent::OfTuple(std::move(elements))};
}

}  // namespace mxla::gradient_rules
