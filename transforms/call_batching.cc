// Batching rules of the ops that call computations, as JAX batches them:
//   call          the callee batched (its batched parameters at dimension
//                 0), and called;
//   conditional   with an unbatched predicate or index, the conditional
//                 of the batched branches (every branch returns the
//                 batched result, broadcast where its operand is not
//                 batched); with a batched one, every branch runs on every
//                 example and a select per example keeps the branch the
//                 example's predicate or index chooses (an index out of
//                 range chooses the last branch, as the conditional does);
//   opt-barrier   the barrier over the batched values.
// A callee or branch whose parameter or result nests a tuple is refused
// by name: vmap batches arrays and flat tuples of them.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "transforms/batching.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

bool IsFlat(const Shape& shape) {
  if (shape.IsArray()) return true;
  for (const Shape& element : shape.tuple_shapes()) {
    if (!element.IsArray()) return false;
  }
  return true;
}

// The arrays of `value`: itself, or the elements of its flat tuple.
std::vector<XlaOp> ArraysOfValue(XlaOp value, const Shape& shape) {
  if (shape.IsArray()) return {value};
  std::vector<XlaOp> arrays;
  for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
    arrays.push_back(GetTupleElement(value, k));
  }
  return arrays;
}

// `computation` with one parameter per array of its parameters (a flat
// tuple parameter as its elements) and a tuple result as a root tuple op,
// whose elements vmap batches one by one.
absl::StatusOr<XlaComputation> Flattened(const BatchContext& context,
                                         const HloComputation& computation) {
  XlaBuilder builder(absl::StrCat(computation.name(), ".flat"));
  std::vector<XlaOp> arguments;
  int64_t number = 0;
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const Shape& shape = computation.parameter_instruction(i)->shape();
    if (!IsFlat(shape)) {
      return NoRuleError(context, "whose computation takes a nested tuple");
    }
    std::vector<XlaOp> arrays;
    for (const Shape& array :
         shape.IsArray() ? std::vector<Shape>{shape} : shape.tuple_shapes()) {
      arrays.push_back(
          Parameter(&builder, number, array, absl::StrCat("p", number)));
      ++number;
    }
    arguments.push_back(shape.IsArray() ? arrays[0] : Tuple(&builder, arrays));
  }
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, computation, arguments));
  const HloInstruction* root = computation.root_instruction();
  if (!IsFlat(root->shape())) {
    return NoRuleError(context, "whose computation returns a nested tuple");
  }
  const XlaOp result = values.at(root);
  if (root->shape().IsArray()) return builder.Build(result);
  return builder.Build(Tuple(&builder, ArraysOfValue(result, root->shape())));
}

// The arrays of operand i and their batch dimensions (0 or none).
struct FlatOperand {
  std::vector<XlaOp> arrays;
  std::vector<std::optional<int64_t>> in_dims;
};

FlatOperand FlatOperandOf(XlaOp value, const Shape& shape, bool batched) {
  FlatOperand flat;
  flat.arrays = ArraysOfValue(value, shape);
  flat.in_dims.assign(flat.arrays.size(),
                      batched ? std::optional<int64_t>(0) : std::nullopt);
  return flat;
}

// The batched results of `flat` in `builder`, as one value.
absl::StatusOr<XlaOp> EmitBatchedValue(XlaBuilder& builder,
                                       const XlaComputation& flat,
                                       const FlatOperand& operand,
                                       int64_t batch_size) {
  ASSIGN_OR_RETURN(
      std::vector<XlaOp> results,
      EmitBatched(builder, flat, operand.arrays, operand.in_dims, batch_size));
  const bool tuple =
      flat.module().entry_computation()->root_instruction()->opcode() ==
      HloOpcode::kTuple;
  return tuple ? Tuple(&builder, results) : results[0];
}

// Branch i of a conditional batched, taking branch operand i as it is
// batched (`batched`) and returning the batched result.
absl::StatusOr<XlaComputation> BatchedBranch(const BatchContext& context,
                                             const HloComputation& branch,
                                             const Shape& operand,
                                             bool batched) {
  ASSIGN_OR_RETURN(XlaComputation flat, Flattened(context, branch));
  XlaBuilder builder(absl::StrCat(branch.name(), ".vmap"));
  const XlaOp parameter = Parameter(&builder, 0, operand, "operand");
  ASSIGN_OR_RETURN(XlaOp result,
                   EmitBatchedValue(builder, flat,
                                    FlatOperandOf(parameter, operand, batched),
                                    context.batch_size));
  return builder.Build(result);
}

// The conditional of the batched branches, on the unbatched selector.
Result BatchedBranches(const BatchContext& context) {
  const HloInstruction& conditional = context.instruction;
  const std::vector<HloComputation*>& branches =
      conditional.called_computations();
  std::vector<XlaComputation> batched;
  std::vector<XlaOp> operands;
  for (size_t i = 0; i < branches.size(); ++i) {
    const XlaOp operand = context.operands[1 + i];
    ASSIGN_OR_RETURN(const Shape shape, context.builder.GetShape(operand));
    ASSIGN_OR_RETURN(
        XlaComputation branch,
        BatchedBranch(context, *branches[i], shape, context.batched[1 + i]));
    batched.push_back(std::move(branch));
    operands.push_back(operand);
  }
  if (conditional.operand(0)->shape().element_type() == PRED) {
    return Conditional(context.operands[0], operands[0], batched[0],
                       operands[1], batched[1]);
  }
  std::vector<const XlaComputation*> pointers;
  for (const XlaComputation& branch : batched) pointers.push_back(&branch);
  return Conditional(context.operands[0], pointers, operands);
}

// The branch each example takes, s32[B]: 0 for a true predicate and 1 for
// a false one, or the index with one out of range as the last branch.
XlaOp BranchOfEachExample(const BatchContext& context, int64_t count) {
  XlaBuilder& b = context.builder;
  const XlaOp selector = context.operands[0];
  const std::vector<int64_t> dims = {context.batch_size};
  auto filled = [&](int32_t value) {
    return Broadcast(ConstantR0<int32_t>(&b, value), dims);
  };
  if (context.instruction.operand(0)->shape().element_type() == PRED) {
    return Select(selector, filled(0), filled(1));
  }
  const XlaOp outside =
      Or(Lt(selector, filled(0)), Ge(selector, filled(count)));
  return Select(outside, filled(count - 1), selector);
}

// Every branch on every example, and per example the one it takes.
Result EveryBranchSelected(const BatchContext& context) {
  const HloInstruction& conditional = context.instruction;
  const std::vector<HloComputation*>& branches =
      conditional.called_computations();
  const int64_t count = branches.size();
  std::vector<std::vector<XlaOp>> results;
  for (int64_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(XlaComputation flat, Flattened(context, *branches[i]));
    const FlatOperand operand = FlatOperandOf(
        context.operands[1 + i], conditional.operand(1 + i)->shape(),
        context.batched[1 + i]);
    ASSIGN_OR_RETURN(results.emplace_back(),
                     EmitBatched(context.builder, flat, operand.arrays,
                                 operand.in_dims, context.batch_size));
  }
  const XlaOp which = BranchOfEachExample(context, count);
  const Shape batched = WithBatch(conditional.shape(), context.batch_size);
  std::vector<XlaOp> chosen;
  for (size_t k = 0; k < results[0].size(); ++k) {
    const Shape& array = batched.IsArray() ? batched : batched.tuple_shapes(k);
    XlaOp value = results[count - 1][k];
    for (int64_t i = count - 2; i >= 0; --i) {
      const XlaOp takes =
          Eq(which, Broadcast(ConstantR0<int32_t>(&context.builder, i),
                              {context.batch_size}));
      value = Select(BroadcastInDim(takes, array.dimensions(), {0}),
                     results[i][k], value);
    }
    chosen.push_back(value);
  }
  return batched.IsArray() ? chosen[0] : Tuple(&context.builder, chosen);
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kCall>, const BatchContext& context) {
  const HloInstruction& call = context.instruction;
  ASSIGN_OR_RETURN(XlaComputation flat,
                   Flattened(context, *call.called_computations()[0]));
  FlatOperand all;
  for (int64_t i = 0; i < call.operand_count(); ++i) {
    FlatOperand operand = FlatOperandOf(
        context.operands[i], call.operand(i)->shape(), context.batched[i]);
    all.arrays.insert(all.arrays.end(), operand.arrays.begin(),
                      operand.arrays.end());
    all.in_dims.insert(all.in_dims.end(), operand.in_dims.begin(),
                       operand.in_dims.end());
  }
  ASSIGN_OR_RETURN(XlaComputation batched,
                   Batch(flat, all.in_dims, context.batch_size));
  return Call(&context.builder, batched, all.arrays);
}

Result BatchingRules::Handle(OpTag<Op::kConditional>,
                             const BatchContext& context) {
  if (!IsFlat(context.instruction.shape())) {
    return NoRuleError(context, "whose result nests a tuple");
  }
  return context.batched[0] ? EveryBranchSelected(context)
                            : BatchedBranches(context);
}

Result BatchingRules::Handle(OpTag<Op::kOptimizationBarrier>,
                             const BatchContext& context) {
  return Reemit(context, {context.operands[0]});
}

Result BatchingRules::Handle(OpTag<Op::kTopK>, const BatchContext& context) {
  // topk works along the last dimension, which the batch does not move.
  return Reemit(context, {context.operands[0]});
}

}  // namespace mxla::batching_rules
