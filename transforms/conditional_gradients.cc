// Gradient rule of conditional (the pred form and the branch-index form):
// the backward pass is a conditional on the same predicate or index. Its
// branch i takes branch i's operand and the result's cotangent, runs
// branch i again (rematerialized, so no residual has to have one shape
// across branches) with its vector-Jacobian product, and returns the
// cotangents of every branch's operand: branch i's own, zeros for the
// others. The predicate or index gets none. Operands and results are
// arrays or tuples of arrays; the backward conditional's are flat tuples.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/autodiff.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

bool IsFloat(const Shape& shape) {
  return primitive_util::IsFloatingPointType(shape.element_type());
}

// A value's arrays: the shape itself, or a tuple's elements (all arrays).
std::vector<Shape> ArraysOf(const Shape& shape) {
  if (!shape.IsTuple()) return {shape};
  return {shape.tuple_shapes().begin(), shape.tuple_shapes().end()};
}

bool IsFlat(const Shape& shape) {
  for (const Shape& array : ArraysOf(shape)) {
    if (!array.IsArray()) return false;
  }
  return true;
}

XlaOp Zeros(XlaBuilder& builder, const Shape& shape) {
  return BroadcastInDim(
      ConstantLiteral(&builder, LiteralUtil::Zero(shape.element_type())),
      shape.dimensions(), {});
}

// Element k of `value`, or `value` when it is an array.
XlaOp ArrayOf(XlaOp value, const Shape& shape, int64_t k) {
  return shape.IsTuple() ? GetTupleElement(value, k) : value;
}

// `branch` as a computation of one parameter per array of its operand.
absl::StatusOr<XlaComputation> OfArrays(const HloComputation& branch,
                                        const std::string& name) {
  const Shape& operand = branch.parameter_instruction(0)->shape();
  if (operand.IsTuple()) {
    return ComputationOfElements(branch, ArraysOf(operand), name);
  }
  XlaBuilder builder(name);
  const XlaOp parameter = Parameter(&builder, 0, operand, "operand");
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, branch, {parameter}));
  return builder.Build(values.at(branch.root_instruction()));
}

struct Branches {
  std::vector<const HloComputation*> computations;
  std::vector<Shape> operands;        // branch i's operand
  std::vector<int64_t> cotangent_of;  // floating result arrays
};

// Backward branch i: (operand i's arrays..., the result's floating
// cotangents...) -> the floating arrays of every operand, branch i's VJP
// for its own, zeros for the others.
absl::StatusOr<XlaComputation> BackwardBranch(const GradientContext& context,
                                              const Branches& branches,
                                              size_t i) {
  const Shape& result = context.instruction.shape();
  const std::vector<Shape> arrays = ArraysOf(branches.operands[i]);
  std::vector<Shape> inputs = arrays;
  for (int64_t k : branches.cotangent_of) {
    inputs.push_back(ArraysOf(result)[k]);
  }
  const std::string name =
      absl::StrCat(context.instruction.name(), ".branch", i);
  XlaBuilder builder(absl::StrCat(name, ".backward"));
  const XlaOp input = Parameter(&builder, 0, Shape(inputs), "input");
  std::vector<XlaOp> elements;
  std::vector<int64_t> wrt;
  for (size_t k = 0; k < arrays.size(); ++k) {
    elements.push_back(GetTupleElement(input, k));
    if (IsFloat(arrays[k])) wrt.push_back(k);
  }
  std::vector<XlaOp> seeds(ArraysOf(result).size());
  for (size_t c = 0; c < branches.cotangent_of.size(); ++c) {
    seeds[branches.cotangent_of[c]] = GetTupleElement(input, arrays.size() + c);
  }
  ASSIGN_OR_RETURN(XlaComputation forward,
                   OfArrays(*branches.computations[i], name));
  ASSIGN_OR_RETURN(VjpOps vjp,
                   result.IsTuple()
                       ? EmitTupleVjp(builder, forward, elements, seeds, wrt)
                       : EmitVjp(builder, forward, elements, seeds[0], wrt));
  std::vector<XlaOp> outputs;
  for (size_t j = 0; j < branches.operands.size(); ++j) {
    const std::vector<Shape> others = ArraysOf(branches.operands[j]);
    for (size_t k = 0, w = 0; k < others.size(); ++k) {
      if (!IsFloat(others[k])) continue;
      outputs.push_back(j == i ? vjp.cotangents[w++]
                               : Zeros(builder, others[k]));
    }
  }
  return builder.Build(Tuple(&builder, outputs));
}

// The branches, or a refusal naming what nests a tuple.
absl::StatusOr<Branches> BranchesOf(const GradientContext& context) {
  const HloInstruction& conditional = context.instruction;
  Branches branches;
  for (const HloComputation* branch : conditional.called_computations()) {
    branches.computations.push_back(branch);
    branches.operands.push_back(branch->parameter_instruction(0)->shape());
    if (!IsFlat(branches.operands.back())) {
      return NoRuleError(context, "whose branch operand nests a tuple");
    }
  }
  if (!IsFlat(conditional.shape())) {
    return NoRuleError(context, "whose result nests a tuple");
  }
  const std::vector<Shape> results = ArraysOf(conditional.shape());
  for (size_t k = 0; k < results.size(); ++k) {
    if (IsFloat(results[k])) branches.cotangent_of.push_back(k);
  }
  return branches;
}

// The cotangent of each floating result array (zeros where none came).
std::vector<XlaOp> ResultCotangents(const GradientContext& context,
                                    const Branches& branches) {
  const Shape& shape = context.instruction.shape();
  std::vector<XlaOp> cotangents;
  for (int64_t k : branches.cotangent_of) {
    const Cotangent given = shape.IsTuple() ? context.tuple_cotangent[k]
                                            : Cotangent(context.cotangent);
    cotangents.push_back(given.valid() && !given.is_tuple
                             ? given.array
                             : Filled(ArrayOf(context.result, shape, k), 0));
  }
  return cotangents;
}

// The backward conditional's flat result, handed back to each branch
// operand in its structure; the predicate or index gets none.
OperandCotangents Unflattened(XlaOp swept, const Branches& branches) {
  OperandCotangents cotangents(1 + branches.operands.size());
  int64_t position = 0;
  for (size_t j = 0; j < branches.operands.size(); ++j) {
    const Shape& operand = branches.operands[j];
    std::vector<Cotangent> elements;
    for (const Shape& array : ArraysOf(operand)) {
      elements.push_back(IsFloat(array) ? GetTupleElement(swept, position++)
                                        : XlaOp());
    }
    cotangents[1 + j] = operand.IsTuple()
                            ? Cotangent::OfTuple(std::move(elements))
                            : elements[0];
  }
  return cotangents;
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kConditional>,
                             const GradientContext& context) {
  ASSIGN_OR_RETURN(Branches branches, BranchesOf(context));
  const std::vector<XlaOp> cotangents = ResultCotangents(context, branches);
  std::vector<XlaComputation> backward;
  std::vector<XlaOp> inputs;
  for (size_t i = 0; i < branches.computations.size(); ++i) {
    ASSIGN_OR_RETURN(XlaComputation branch,
                     BackwardBranch(context, branches, i));
    backward.push_back(std::move(branch));
    std::vector<XlaOp> input;
    for (size_t k = 0; k < ArraysOf(branches.operands[i]).size(); ++k) {
      input.push_back(
          ArrayOf(context.operands[1 + i], branches.operands[i], k));
    }
    input.insert(input.end(), cotangents.begin(), cotangents.end());
    inputs.push_back(Tuple(&context.builder, input));
  }
  std::vector<const XlaComputation*> pointers;
  for (const XlaComputation& branch : backward) pointers.push_back(&branch);
  return Unflattened(Conditional(context.operands[0], pointers, inputs),
                     branches);
}

}  // namespace mxla::gradient_rules
