// The gradient rule of a while loop that runs a known number of times (a
// scan, passes/while_loop_util.h's KnownTripCount): a forward loop keeps
// the state each trip starts from, then a backward loop walks the trips
// latest first, each taking the vector-Jacobian product of the body at
// its saved state. Elements the body returns unchanged are not saved:
// every trip sees their initial value. A loop whose trip count is known
// only at run time goes to runtime_loop_gradients.cc.
#include <string>
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

// Trips at most this many: the saved states grow with it.
constexpr int64_t kMaxTrips = int64_t{1} << 24;

struct Loop {
  const HloInstruction& instruction;
  std::vector<Shape> elements;     // the state's, all arrays
  std::vector<bool> invariant;     // returned unchanged by the body
  std::vector<int64_t> floating;   // the elements a cotangent flows in
  int64_t trips = 0;
  XlaComputation body;             // (element 0, element 1, ...) -> state
};

Shape Stacked(const Shape& element, int64_t trips) {
  std::vector<int64_t> dims = {trips};
  dims.insert(dims.end(), element.dimensions().begin(), element.dimensions().end());
  return ShapeUtil::MakeShape(element.element_type(), dims);
}

XlaOp Counter(XlaBuilder& builder, int64_t value) {
  return ConstantR0<int32_t>(&builder, static_cast<int32_t>(value));
}

// Start indices (t, 0, ...) for a trip's slice of a saved state.
std::vector<XlaOp> TripStarts(XlaBuilder& builder, XlaOp trip, const Shape& element) {
  std::vector<XlaOp> starts = {trip};
  for (size_t d = 0; d < element.dimensions().size(); ++d) {
    starts.push_back(Counter(builder, 0));
  }
  return starts;
}

absl::Status Refused(const GradientContext& context, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "gradient: no rule for a while loop ", why, " (instruction '",
      context.instruction.name(), "', ", context.instruction.shape().ToString(),
      ")"));
}

absl::StatusOr<Loop> Analyze(const GradientContext& context) {
  const HloInstruction& loop = context.instruction;
  const std::optional<int64_t> trips = while_loop::KnownTripCount(loop, kMaxTrips);
  // Handle sends the others to RuntimeLoopCotangents.
  RET_CHECK(trips.has_value() && loop.shape().IsTuple(), loop.name());
  std::vector<Shape> elements;
  std::vector<int64_t> floating;
  for (int64_t i = 0; i < static_cast<int64_t>(loop.shape().tuple_shapes().size()); ++i) {
    const Shape& element = loop.shape().tuple_shapes(i);
    if (!element.IsArray()) {
      return Refused(context, "whose state holds a nested tuple");
    }
    elements.push_back(element);
    if (primitive_util::IsFloatingPointType(element.element_type())) {
      floating.push_back(i);
    }
  }
  // The body as a computation of the state's elements, one parameter
  // each, so that EmitTupleVjp can differentiate it element by element.
  ASSIGN_OR_RETURN(XlaComputation body,
                   ComputationOfElements(*while_loop::Body(loop), elements,
                                         absl::StrCat(loop.name(), ".body")));
  return Loop{loop, std::move(elements),
              while_loop::InvariantElements(*while_loop::Body(loop)),
              std::move(floating), *trips, std::move(body)};
}

// Each element's value at a trip: saved (sliced at the trip) or, for an
// invariant one, carried whole. `state` holds them from `first` on.
std::vector<XlaOp> StateAtTrip(XlaBuilder& builder, const Loop& loop, XlaOp state,
                               int64_t first, XlaOp trip) {
  std::vector<XlaOp> elements;
  for (size_t i = 0; i < loop.elements.size(); ++i) {
    XlaOp kept = GetTupleElement(state, first + i);
    if (loop.invariant[i]) {
      elements.push_back(kept);
      continue;
    }
    std::vector<int64_t> one = {1};
    one.insert(one.end(), loop.elements[i].dimensions().begin(),
               loop.elements[i].dimensions().end());
    elements.push_back(Reshape(
        DynamicSlice(kept, TripStarts(builder, trip, loop.elements[i]), one),
        loop.elements[i].dimensions()));
  }
  return elements;
}

// Forward: state (elements, saved, trip) -> the state each trip starts
// from, saved at its trip (invariant elements carried as they are).
absl::StatusOr<std::vector<XlaOp>> SavedStates(XlaBuilder& outer, const Loop& loop,
                                               XlaOp init) {
  const int64_t k = loop.elements.size();
  XlaBuilder body(absl::StrCat(loop.instruction.name(), ".save"));
  std::vector<Shape> shapes = loop.elements;
  for (int64_t i = 0; i < k; ++i) {
    shapes.push_back(loop.invariant[i] ? loop.elements[i]
                                       : Stacked(loop.elements[i], loop.trips));
  }
  shapes.push_back(ShapeUtil::MakeShape(S32, {}));
  XlaOp state = Parameter(&body, 0, Shape(shapes), "state");
  XlaOp trip = GetTupleElement(state, 2 * k);
  std::vector<XlaOp> elements, saved;
  for (int64_t i = 0; i < k; ++i) {
    XlaOp value = GetTupleElement(state, i);
    elements.push_back(value);
    XlaOp kept = GetTupleElement(state, k + i);
    std::vector<int64_t> one = {1};
    one.insert(one.end(), loop.elements[i].dimensions().begin(),
               loop.elements[i].dimensions().end());
    saved.push_back(loop.invariant[i]
                        ? kept
                        : DynamicUpdateSlice(kept, Reshape(value, one),
                                             TripStarts(body, trip, loop.elements[i])));
  }
  ASSIGN_OR_RETURN(XlaOp next, CallInline(body, loop.body, elements));
  std::vector<XlaOp> root;
  for (int64_t i = 0; i < k; ++i) root.push_back(GetTupleElement(next, i));
  root.insert(root.end(), saved.begin(), saved.end());
  root.push_back(trip + Counter(body, 1));
  ASSIGN_OR_RETURN(XlaComputation body_computation, body.Build(Tuple(&body, root)));

  XlaBuilder condition(absl::StrCat(loop.instruction.name(), ".save_condition"));
  XlaOp cstate = Parameter(&condition, 0, Shape(shapes), "state");
  Lt(GetTupleElement(cstate, 2 * k), Counter(condition, loop.trips));
  ASSIGN_OR_RETURN(XlaComputation condition_computation, condition.Build());

  std::vector<XlaOp> start;
  for (int64_t i = 0; i < k; ++i) start.push_back(GetTupleElement(init, i));
  for (int64_t i = 0; i < k; ++i) {
    XlaOp value = GetTupleElement(init, i);
    start.push_back(loop.invariant[i]
                        ? value
                        : BroadcastInDim(ScalarLike(value, 0),
                                         Stacked(loop.elements[i], loop.trips).dimensions(),
                                         {}));
  }
  start.push_back(Counter(outer, 0));
  XlaOp done = While(condition_computation, body_computation, Tuple(&outer, start));
  std::vector<XlaOp> states;
  for (int64_t i = 0; i < k; ++i) states.push_back(GetTupleElement(done, k + i));
  return states;
}

// Backward: state (trip, saved states, cotangents of the floating
// elements) from the last trip down to the first, each step the body's
// vector-Jacobian product at the state that trip started from.
Result Backward(const GradientContext& context, const Loop& loop,
                const std::vector<XlaOp>& saved) {
  const int64_t k = loop.elements.size();
  std::vector<Shape> shapes = {ShapeUtil::MakeShape(S32, {})};
  for (int64_t i = 0; i < k; ++i) {
    shapes.push_back(loop.invariant[i] ? loop.elements[i]
                                       : Stacked(loop.elements[i], loop.trips));
  }
  for (int64_t f : loop.floating) shapes.push_back(loop.elements[f]);
  XlaBuilder body(absl::StrCat(loop.instruction.name(), ".backward"));
  XlaOp state = Parameter(&body, 0, Shape(shapes), "state");
  XlaOp trip = GetTupleElement(state, 0);
  std::vector<XlaOp> seeds(k);
  for (size_t j = 0; j < loop.floating.size(); ++j) {
    seeds[loop.floating[j]] = GetTupleElement(state, 1 + k + j);
  }
  ASSIGN_OR_RETURN(VjpOps step,
                   EmitTupleVjp(body, loop.body, StateAtTrip(body, loop, state, 1, trip),
                                seeds, loop.floating));
  std::vector<XlaOp> root = {trip - Counter(body, 1)};
  for (int64_t i = 0; i < k; ++i) root.push_back(GetTupleElement(state, 1 + i));
  root.insert(root.end(), step.cotangents.begin(), step.cotangents.end());
  ASSIGN_OR_RETURN(XlaComputation body_computation, body.Build(Tuple(&body, root)));

  XlaBuilder condition(absl::StrCat(loop.instruction.name(), ".backward_condition"));
  XlaOp cstate = Parameter(&condition, 0, Shape(shapes), "state");
  Ge(GetTupleElement(cstate, 0), Counter(condition, 0));
  ASSIGN_OR_RETURN(XlaComputation condition_computation, condition.Build());

  XlaBuilder& outer = context.builder;
  std::vector<XlaOp> start = {Counter(outer, loop.trips - 1)};
  start.insert(start.end(), saved.begin(), saved.end());
  for (int64_t f : loop.floating) {
    const Cotangent& given = context.tuple_cotangent[f];
    start.push_back(given.valid() && !given.is_tuple
                        ? given.array
                        : Filled(GetTupleElement(context.result, f), 0));
  }
  XlaOp done = While(condition_computation, body_computation, Tuple(&outer, start));
  std::vector<Cotangent> elements(k);
  for (size_t j = 0; j < loop.floating.size(); ++j) {
    elements[loop.floating[j]] = GetTupleElement(done, 1 + k + j);
  }
  return OperandCotangents{Cotangent::OfTuple(std::move(elements))};
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kWhile>, const GradientContext& context) {
  if (!while_loop::KnownTripCount(context.instruction, kMaxTrips).has_value()) {
    return RuntimeLoopCotangents(context);
  }
  ASSIGN_OR_RETURN(Loop loop, Analyze(context));
  if (loop.trips == 0) {  // the loop returns its init
    return OperandCotangents{Cotangent::OfTuple(context.tuple_cotangent)};
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> saved,
                   SavedStates(context.builder, loop, context.operands[0]));
  return Backward(context, loop, saved);
}

}  // namespace mxla::gradient_rules
