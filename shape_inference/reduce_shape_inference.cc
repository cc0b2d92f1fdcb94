// ShapeInference::InferReduceShape: XLA's reduce rules, checked in XLA's
// order (operand count, operand shapes, dimensions, the reducer's
// signature, duplicate dimensions).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

namespace shape_inference_internal {

absl::Status ExpectValidArray(HloOpcode opcode, const Shape& shape,
                              absl::string_view what) {
  if (!shape.IsArray()) {
    return OpError(opcode, "Expected array argument for ", what, ", but got ",
                   shape.ToString(), ".");
  }
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return OpError(opcode, what, ": ", valid.message());
  return absl::OkStatus();
}

absl::StatusOr<PrimitiveType> PreferredResultType(
    HloOpcode op, PrimitiveType type, std::optional<PrimitiveType> preferred,
    absl::FunctionRef<std::string()> context) {
  if (!preferred.has_value() || *preferred == type) return type;
  if (!primitive_util::IsFloatingPointType(type) &&
      primitive_util::BitWidth(*preferred) < primitive_util::BitWidth(type)) {
    return OpError(op,
                   "`preferred_element_type` must not be narrower than the "
                   "original type: ",
                   primitive_util::LowercaseName(*preferred), context());
  }
  return *preferred;
}

}  // namespace shape_inference_internal

namespace {

using shape_inference_internal::CheckReducer;
using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

// The reducer's result as N accumulator shapes, each a scalar array.
absl::StatusOr<std::vector<Shape>> ReducerAccumulators(
    HloOpcode op, const ProgramShape& to_apply, int64_t n) {
  const Shape& result = to_apply.result;
  std::vector<Shape> accumulators;
  if (result.IsTuple()) {
    accumulators = result.tuple_shapes();
  } else {
    accumulators.push_back(result);
  }
  bool all_scalars = true;
  for (const Shape& accumulator : accumulators) {
    all_scalars = all_scalars && accumulator.IsScalar();
  }
  if (!all_scalars || (n == 1 && result.IsTuple())) {
    return OpError(op,
                   "Reduction function must produce a scalar or a tuple of "
                   "scalars, but produces ",
                   result.ToString(), ".");
  }
  if (static_cast<int64_t>(accumulators.size()) != n) {
    return OpError(op,
                   "Reduction function must produce a tuple with ", n,
                   " elements, but produces ", accumulators.size(),
                   " elements; reducer is ", to_apply.ToString(), ".");
  }
  return accumulators;
}

// Inputs are valid arrays of one set of dimensions; inits valid scalars.
absl::Status CheckReduceOperands(HloOpcode kOp,
                                 absl::Span<const Shape* const> inputs,
                                 absl::Span<const Shape* const> inits) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, *inputs[i], absl::StrCat("input ", i)));
    if (!ShapeUtil::SameDimensions(*inputs[i], *inputs[0])) {
      return OpError(kOp,
                     "All reduced tensors must have the same dimension. "
                     "Tensor 0 has shape ",
                     inputs[0]->ToString(), ", Tensor ", i, " has shape ",
                     inputs[i]->ToString(), ".");
    }
  }
  for (size_t i = 0; i < inits.size(); ++i) {
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, *inits[i], absl::StrCat("init value ", i)));
    if (!inits[i]->IsScalar()) {
      return OpError(kOp, "Initial value ", i, " must be a scalar, but is ",
                     inits[i]->ToString(), ".");
    }
  }
  return absl::OkStatus();
}

// Splits reduce's or reduce-window's operands into N inputs and N inits.
absl::Status SplitOperands(HloOpcode op,
                           absl::Span<const Shape* const> operands,
                           absl::Span<const Shape* const>& inputs,
                           absl::Span<const Shape* const>& inits) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return OpError(op,
                   "Expected an even, non-zero number of operands "
                   "(N inputs then N init values), but got ",
                   operands.size(), ".");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr) {
      return OpError(op, "operand ", i, " has no shape.");
    }
  }
  const size_t n = operands.size() / 2;
  inputs = operands.subspan(0, n);
  inits = operands.subspan(n);
  return CheckReduceOperands(op, inputs, inits);
}

}  // namespace

namespace shape_inference_internal {

// XLA's reducer rules: 2N scalar parameters (accumulators, then elements),
// N results, each of its init value's type, elements of the inputs' types.
absl::StatusOr<std::vector<Shape>> CheckReducer(
    HloOpcode kOp, const ProgramShape& to_apply,
    absl::Span<const Shape* const> inputs,
    absl::Span<const Shape* const> inits) {
  int64_t n = static_cast<int64_t>(inputs.size());
  if (static_cast<int64_t>(to_apply.parameters.size()) != 2 * n) {
    return OpError(kOp, "Reduction function must take ", 2 * n,
                   " parameters, but takes ", to_apply.parameters.size(),
                   " parameter(s); reducer is ", to_apply.ToString(), ".");
  }
  ASSIGN_OR_RETURN(std::vector<Shape> accumulators,
                   ReducerAccumulators(kOp, to_apply, n));
  for (int64_t i = 0; i < n; ++i) {
    const Shape& accumulator = accumulators[i];
    for (int64_t p : {i, n + i}) {
      if (to_apply.parameters[p] != accumulator) {
        return OpError(kOp, "Reduction function's ", p,
                       "-th parameter shape differs from the result shape: ",
                       to_apply.parameters[p].ToString(), " vs ",
                       accumulator.ToString(), "; reducer is ",
                       to_apply.ToString(), ".");
      }
    }
    if (*inits[i] != accumulator) {
      return OpError(kOp, "Reduction function's accumulator shape at index ", i,
                     " differs from the init_value shape: ",
                     accumulator.ToString(), " vs ", inits[i]->ToString(), ".");
    }
    if (inputs[i]->element_type() != accumulator.element_type()) {
      return OpError(kOp, "Reduction function's ", n + i,
                     "-th parameter shape differs from the input element "
                     "type: ",
                     accumulator.ToString(), " vs ", inputs[i]->ToString(),
                     ".");
    }
  }
  return accumulators;
}

}  // namespace shape_inference_internal

absl::StatusOr<Shape> ShapeInference::InferReduceWindowShape(
    absl::Span<const Shape* const> operands, const Window& window,
    const ProgramShape& to_apply) {
  constexpr HloOpcode kOp = HloOpcode::kReduceWindow;
  absl::Span<const Shape* const> inputs, inits;
  RETURN_IF_ERROR(SplitOperands(kOp, operands, inputs, inits));
  ASSIGN_OR_RETURN(std::vector<Shape> accumulators,
                   CheckReducer(kOp, to_apply, inputs, inits));
  std::vector<Shape> results;
  for (const Shape& accumulator : accumulators) {
    ASSIGN_OR_RETURN(Shape result,
                     InferWindowOutputShape(kOp, *inputs[0], window,
                                            accumulator.element_type()));
    results.push_back(std::move(result));
  }
  if (results.size() == 1) return results[0];
  return ShapeUtil::MakeTupleShape(std::move(results));
}

absl::StatusOr<Shape> ShapeInference::InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window,
    const Shape& source, const Shape& init_value,
    const ProgramShape& scatter) {
  constexpr HloOpcode kOp = HloOpcode::kSelectAndScatter;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, source, "source"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, init_value, "init value"));
  if (select.parameters.size() != 2) {
    return OpError(kOp, "Select function must take 2 parameters, but takes ",
                   select.parameters.size(), " parameter(s).");
  }
  if (select.result != ShapeUtil::MakeShape(PRED, {})) {
    return OpError(kOp, "Select function must have rank-0 PRED result, but "
                        "returns ",
                   select.result.ToString(), ".");
  }
  const Shape element = ShapeUtil::MakeShape(operand.element_type(), {});
  for (int i = 0; i < 2; ++i) {
    if (select.parameters[i] != element) {
      return OpError(kOp, "Select function's ", i == 0 ? "first" : "second",
                     " parameter shape currently must match the operand "
                     "element shape, but got ",
                     select.parameters[i].ToString(), " vs ",
                     element.ToString(), ".");
    }
  }
  const Shape source_element = ShapeUtil::MakeShape(source.element_type(), {});
  const Shape* inputs[] = {&source_element};
  const Shape* inits[] = {&init_value};
  RETURN_IF_ERROR(CheckReducer(kOp, scatter, inputs, inits).status());
  ASSIGN_OR_RETURN(Shape positions,
                   InferWindowOutputShape(kOp, operand, window,
                                          operand.element_type()));
  if (!ShapeUtil::SameDimensions(positions, source) ||
      source.element_type() != operand.element_type()) {
    return OpError(kOp,
                   "Source shape does not match the shape of window-reduced "
                   "operand: source(",
                   source.ToString(), "), window-reduced operand(",
                   positions.ToString(), ").");
  }
  return operand;
}

absl::StatusOr<Shape> ShapeInference::InferReduceShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const int64_t> dimensions, const ProgramShape& to_apply) {
  constexpr HloOpcode kOp = HloOpcode::kReduce;
  absl::Span<const Shape* const> inputs, inits;
  RETURN_IF_ERROR(SplitOperands(kOp, operands, inputs, inits));
  const size_t n = inputs.size();
  const Shape& arg = *inputs[0];
  for (int64_t d : dimensions) {
    if (d < 0 || d >= arg.rank()) {
      return OpError(kOp, "Reducing out-of-bounds dimension ", d, " in shape ",
                     arg.ToString(), ".");
    }
  }
  ASSIGN_OR_RETURN(std::vector<Shape> accumulators,
                   CheckReducer(kOp, to_apply, inputs, inits));
  std::vector<bool> reduced(arg.rank(), false);
  for (int64_t d : dimensions) {
    if (reduced[d]) {
      return OpError(kOp, "Duplicate reduction dimension: ", d, " in ",
                     DimsString(dimensions), " for shape ", arg.ToString(),
                     ".");
    }
    reduced[d] = true;
  }
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < arg.rank(); ++d) {
    if (!reduced[d]) kept.push_back(arg.dimensions(d));
  }
  std::vector<Shape> results;
  for (const Shape& accumulator : accumulators) {
    results.push_back(ShapeUtil::MakeShape(accumulator.element_type(), kept));
  }
  if (n == 1) return results[0];
  return ShapeUtil::MakeTupleShape(std::move(results));
}

}  // namespace mxla
