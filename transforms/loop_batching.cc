// The batching rule of a while loop, as JAX batches one: the whole state
// gets the batch, the condition is asked per example and the loop runs
// while any example's holds; a trip leaves the examples whose condition
// no longer holds as they were (a select per element). So examples may
// run different numbers of trips. A state that nests a tuple is refused.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "passes/while_loop_util.h"
#include "transforms/batching.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

struct BatchedLoop {
  std::vector<Shape> batched;   // the state's elements with the batch
  XlaComputation condition;     // elements -> pred[B]
  XlaComputation body;          // elements -> tuple of the next elements
};

absl::StatusOr<BatchedLoop> BatchLoop(const BatchContext& context) {
  const HloInstruction& loop = context.instruction;
  std::vector<Shape> elements;
  for (const Shape& element : loop.shape().tuple_shapes()) {
    if (!element.IsArray()) {
      return NoRuleError(context, "whose state nests a tuple");
    }
    elements.push_back(element);
  }
  const std::vector<std::optional<int64_t>> all(elements.size(), 0);
  ASSIGN_OR_RETURN(XlaComputation condition,
                   ComputationOfElements(*while_loop::Condition(loop), elements,
                                         absl::StrCat(loop.name(), ".condition")));
  ASSIGN_OR_RETURN(XlaComputation body,
                   ComputationOfElements(*while_loop::Body(loop), elements,
                                         absl::StrCat(loop.name(), ".body")));
  ASSIGN_OR_RETURN(XlaComputation batched_condition,
                   Batch(condition, all, context.batch_size));
  ASSIGN_OR_RETURN(XlaComputation batched_body, Batch(body, all, context.batch_size));
  std::vector<Shape> batched;
  for (const Shape& element : elements) {
    batched.push_back(WithBatch(element, context.batch_size));
  }
  return BatchedLoop{std::move(batched), std::move(batched_condition),
                     std::move(batched_body)};
}

// The state's elements read from the tuple parameter of `builder`.
std::vector<XlaOp> Elements(XlaBuilder& builder, const std::vector<Shape>& shapes) {
  const XlaOp state = Parameter(&builder, 0, Shape(shapes), "state");
  std::vector<XlaOp> elements;
  for (size_t i = 0; i < shapes.size(); ++i) {
    elements.push_back(GetTupleElement(state, i));
  }
  return elements;
}

// Whether any example's condition holds.
absl::StatusOr<XlaComputation> AnyHolds(const BatchedLoop& loop, const std::string& name) {
  XlaBuilder builder(name);
  ASSIGN_OR_RETURN(XlaOp holds,
                   CallInline(builder, loop.condition, Elements(builder, loop.batched)));
  const XlaOp count = Reduce(ConvertElementType(holds, S32),
                             ConstantR0<int32_t>(&builder, 0),
                             CreateScalarMaxComputation(S32, &builder), {0});
  Gt(count, ConstantR0<int32_t>(&builder, 0));
  return builder.Build();
}

// One trip for the examples whose condition holds; the others unchanged.
absl::StatusOr<XlaComputation> MaskedTrip(const BatchedLoop& loop, const std::string& name) {
  XlaBuilder builder(name);
  const std::vector<XlaOp> elements = Elements(builder, loop.batched);
  ASSIGN_OR_RETURN(XlaOp holds, CallInline(builder, loop.condition, elements));
  ASSIGN_OR_RETURN(XlaOp next, CallInline(builder, loop.body, elements));
  std::vector<XlaOp> kept;
  for (size_t i = 0; i < elements.size(); ++i) {
    const std::vector<int64_t> dims(loop.batched[i].dimensions().begin(),
                                    loop.batched[i].dimensions().end());
    kept.push_back(Select(BroadcastInDim(holds, dims, {0}),
                          GetTupleElement(next, i), elements[i]));
  }
  Tuple(&builder, kept);
  return builder.Build();
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kWhile>, const BatchContext& context) {
  ASSIGN_OR_RETURN(BatchedLoop loop, BatchLoop(context));
  const std::string name = context.instruction.name();
  ASSIGN_OR_RETURN(XlaComputation condition, AnyHolds(loop, name + ".any"));
  ASSIGN_OR_RETURN(XlaComputation body, MaskedTrip(loop, name + ".masked"));
  return While(condition, body, context.operands[0]);
}

}  // namespace mxla::batching_rules
