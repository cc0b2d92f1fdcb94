// scan's shape rule (ShapeInference::InferScanShape).
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

constexpr HloOpcode kOp = HloOpcode::kScan;

// The scanned inputs: valid arrays, all of one length along `dimension`.
// Each one's slice (without that dimension) into `slices`; the length.
absl::StatusOr<int64_t> ScanInputSlices(absl::Span<const Shape* const> inputs,
                                        int64_t dimension,
                                        std::vector<Shape>& slices) {
  int64_t length = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& input = *inputs[i];
    RETURN_IF_ERROR(ExpectValidArray(kOp, input, "input"));
    if (dimension < 0 || dimension >= input.rank()) {
      return OpError(kOp, "dimension ", dimension, " is out of range for input ",
                     i, " ", input.ToString(), ".");
    }
    if (length >= 0 && input.dimensions(dimension) != length) {
      return OpError(kOp, "inputs must have the same size along dimension ",
                     dimension, "; input ", i, " is ", input.ToString(),
                     " and input 0 is ", inputs[0]->ToString(), ".");
    }
    length = input.dimensions(dimension);
    std::vector<int64_t> dims(input.dimensions().begin(),
                              input.dimensions().end());
    dims.erase(dims.begin() + dimension);
    slices.push_back(ShapeUtil::MakeShape(input.element_type(), dims));
  }
  return length;
}

// The computation's outputs, stacked `length` times along `dimension`,
// then its carries, which must keep their operands' shapes.
absl::StatusOr<Shape> ScanResultShape(absl::Span<const Shape* const> carries,
                                      const Shape& result, int64_t dimension,
                                      int64_t length) {
  const int64_t num_carries = static_cast<int64_t>(carries.size());
  const int64_t results =
      result.IsTuple() ? static_cast<int64_t>(result.tuple_shapes().size()) : 1;
  if (!result.IsTuple() || results < num_carries) {
    return OpError(kOp, "the computation must return a tuple of (outputs..., ",
                   num_carries, " carries); it returns ", result.ToString(),
                   ".");
  }
  std::vector<Shape> elements;
  for (int64_t i = 0; i < results - num_carries; ++i) {
    const Shape& output = result.tuple_shapes(i);
    RETURN_IF_ERROR(ExpectValidArray(kOp, output, "output"));
    std::vector<int64_t> dims(output.dimensions().begin(),
                              output.dimensions().end());
    if (dimension > output.rank()) {
      return OpError(kOp, "output ", i, " ", output.ToString(),
                     " has no dimension ", dimension, " to stack along.");
    }
    dims.insert(dims.begin() + dimension, length);
    elements.push_back(ShapeUtil::MakeShape(output.element_type(), dims));
  }
  for (int64_t i = 0; i < num_carries; ++i) {
    const Shape& carry = result.tuple_shapes(results - num_carries + i);
    if (carry != *carries[i]) {
      return OpError(kOp, "carry ", i, " is returned as ", carry.ToString(),
                     " but starts as ", carries[i]->ToString(), ".");
    }
    elements.push_back(carry);
  }
  return ShapeUtil::MakeTupleShape(elements);
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferScanShape(
    absl::Span<const Shape* const> operands, int64_t dimension,
    int64_t num_carries, const ProgramShape& computation) {
  const int64_t count = static_cast<int64_t>(operands.size());
  if (num_carries < 0 || num_carries > count) {
    return OpError(kOp, "num_carries=", num_carries, " must be in [0, ", count,
                   "] (the operand count).");
  }
  const int64_t inputs = count - num_carries;
  if (inputs == 0) return OpError(kOp, "expects at least one input.");
  std::vector<Shape> parameters;
  ASSIGN_OR_RETURN(
      const int64_t length,
      ScanInputSlices(operands.subspan(0, inputs), dimension, parameters));
  for (int64_t i = inputs; i < count; ++i) parameters.push_back(*operands[i]);
  if (computation.parameters != parameters) {
    ProgramShape expected{parameters, computation.result};
    return OpError(kOp, "the computation must take (input slices..., "
                   "carries...) ", expected.ToString(), "; it is ",
                   computation.ToString(), ".");
  }
  return ScanResultShape(operands.subspan(inputs), computation.result,
                         dimension, length);
}

}  // namespace mxla
