// Gradient rule of sort, one operand or several (keys and values): each
// sorted output's cotangent goes back through the permutation the sort
// applied. As in JAX's _sort_jvp (jax/_src/lax/lax.py), the permutation
// comes from sorting an iota alongside the operands with the same
// comparator, which ignores it; the cotangents are then sorted by the
// permutation, which puts each element back where it came from (the
// scatter that transposes JAX's gather). mxla's sort is stable, so the
// second sort orders ties as the first did, and a tie's cotangent follows
// the element that moved there.
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// `comparator` taking two more s32 parameters at the end (an iota's lhs
// and rhs), which it ignores.
absl::StatusOr<XlaComputation> WithIgnoredIota(
    XlaBuilder& builder, const HloComputation& comparator) {
  std::unique_ptr<XlaBuilder> sub =
      builder.CreateSubBuilder("compare_ignoring_iota");
  const int64_t count = comparator.num_parameters();
  std::vector<XlaOp> parameters;
  for (int64_t i = 0; i < count; ++i) {
    parameters.push_back(
        Parameter(sub.get(), i, comparator.parameter_instruction(i)->shape(),
                  absl::StrCat("p", i)));
  }
  const Shape index = ShapeUtil::MakeScalarShape(S32);
  Parameter(sub.get(), count, index, "iota_lhs");
  Parameter(sub.get(), count + 1, index, "iota_rhs");
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(*sub, comparator, parameters));
  return sub->Build(values.at(comparator.root_instruction()));
}

// Ascending by an s32 key (parameters 0 and 1), with payloads of `types`.
absl::StatusOr<XlaComputation> ByIndex(XlaBuilder& builder,
                                       const std::vector<PrimitiveType>& types) {
  std::unique_ptr<XlaBuilder> sub = builder.CreateSubBuilder("by_index");
  const Shape index = ShapeUtil::MakeScalarShape(S32);
  const XlaOp lhs = Parameter(sub.get(), 0, index, "lhs");
  const XlaOp rhs = Parameter(sub.get(), 1, index, "rhs");
  for (size_t j = 0; j < types.size(); ++j) {
    const Shape payload = ShapeUtil::MakeScalarShape(types[j]);
    Parameter(sub.get(), 2 + 2 * j, payload, absl::StrCat("lhs", j));
    Parameter(sub.get(), 3 + 2 * j, payload, absl::StrCat("rhs", j));
  }
  return sub->Build(Lt(lhs, rhs));
}

// Where each sorted element came from, along `dimension`.
absl::StatusOr<XlaOp> Permutation(const GradientContext& context,
                                  int64_t dimension) {
  ASSIGN_OR_RETURN(XlaComputation comparator,
                   WithIgnoredIota(context.builder,
                                   *context.instruction.to_apply()));
  const Shape shape = ShapeOf(context.operands[0]);
  std::vector<XlaOp> keyed = context.operands;
  keyed.push_back(Iota(&context.builder,
                       ShapeUtil::MakeShape(S32, shape.dimensions()),
                       dimension));
  return GetTupleElement(Sort(keyed, comparator, dimension),
                         context.operands.size());
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kSort>, const GradientContext& context) {
  const int64_t dimension = context.instruction.dimensions(0);
  const size_t count = context.operands.size();
  std::vector<XlaOp> sorted_cotangents = {context.cotangent};
  if (count > 1) {
    sorted_cotangents.clear();
    for (const Cotangent& element : context.tuple_cotangent) {
      sorted_cotangents.push_back(element.array);
    }
  }
  ASSIGN_OR_RETURN(XlaOp permutation, Permutation(context, dimension));
  std::vector<XlaOp> by_permutation = {permutation};
  std::vector<PrimitiveType> types;
  std::vector<size_t> flowing;
  for (size_t k = 0; k < count; ++k) {
    if (!sorted_cotangents[k].valid()) continue;
    by_permutation.push_back(sorted_cotangents[k]);
    types.push_back(ShapeOf(sorted_cotangents[k]).element_type());
    flowing.push_back(k);
  }
  ASSIGN_OR_RETURN(XlaComputation by_index, ByIndex(context.builder, types));
  const XlaOp unsorted = Sort(by_permutation, by_index, dimension);
  OperandCotangents cotangents(count);
  for (size_t j = 0; j < flowing.size(); ++j) {
    cotangents[flowing[j]] = GetTupleElement(unsorted, j + 1);
  }
  return cotangents;
}

}  // namespace mxla::gradient_rules
