// ragged-all-to-all's shape rule. XLA's own (shape_inference.cc and
// hlo_verifier.cc) checks only that the output is an array and that the
// four offset/size operands share one shape of rank 1 or 2; mxla also
// checks what its runtime relies on, so that a module it accepts moves
// whole rows of one type: input and output of one element type and rank,
// equal past dimension 0, and rank-1 s32 or s64 metadata whose length is
// a multiple of the group size (one run of updates per peer).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

constexpr HloOpcode kOp = HloOpcode::kRaggedAllToAll;
constexpr const char* kOperandNames[] = {"input",          "output",
                                         "input_offsets",  "send_sizes",
                                         "output_offsets", "recv_sizes"};

// Rows of the same kind: input and output differ at most in dimension 0.
absl::Status CheckRows(const Shape& input, const Shape& output) {
  if (input.element_type() != output.element_type()) {
    return OpError(kOp, "the input ", input.ToString(), " and the output ",
                   output.ToString(), " have different element types.");
  }
  if (input.rank() == 0 || input.rank() != output.rank()) {
    return OpError(kOp, "the input ", input.ToString(), " and the output ",
                   output.ToString(),
                   " must have one rank of at least 1 (rows along "
                   "dimension 0).");
  }
  for (int64_t d = 1; d < input.rank(); ++d) {
    if (input.dimensions(d) != output.dimensions(d)) {
      return OpError(kOp, "the input ", input.ToString(), " and the output ",
                     output.ToString(), " differ in dimension ", d,
                     "; rows must have one shape (only dimension 0 may "
                     "differ).");
    }
  }
  return absl::OkStatus();
}

// Operands 2-5, XLA's verifier's messages first.
absl::Status CheckMetadata(absl::Span<const Shape* const> operands,
                           int64_t group_size) {
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& shape = *operands[i];
    RETURN_IF_ERROR(ExpectValidArray(
        kOp, shape, absl::StrCat("operand ", i, " (", kOperandNames[i], ")")));
    if (shape.rank() != 1 && shape.rank() != 2) {
      return OpError(kOp, "RaggedAllToAll operand ", i,
                     " must be rank 1 or 2: ", kOperandNames[i], " is ",
                     shape.ToString(), ".");
    }
    if (i > 2 && shape != *operands[i - 1]) {
      return OpError(kOp, "RaggedAllToAll operands have different shapes (",
                     i - 1, ", ", i, "): ", operands[i - 1]->ToString(),
                     " and ", shape.ToString(), ".");
    }
  }
  const Shape& metadata = *operands[2];
  if (metadata.element_type() != S32 && metadata.element_type() != S64) {
    return OpError(kOp, "the offsets and sizes must be s32 or s64; got ",
                   metadata.ToString(), ".");
  }
  // Rank 2 ([peers, updates per peer]) is XLA's other spelling of the
  // same row-major list: entry [j, u] is flat entry j·k + u.
  int64_t count = 1;
  for (int64_t size : metadata.dimensions()) count *= size;
  if (group_size > 1 && count % group_size != 0) {
    return OpError(kOp, "the offsets and sizes have ", count,
                   " elements, not a multiple of the group size ", group_size,
                   " (each peer takes the same number of updates).");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferRaggedAllToAllShape(
    absl::Span<const Shape* const> operands, int64_t group_size) {
  if (operands.size() != 6) {
    return OpError(kOp,
                   "expects 6 operands (input, output, input_offsets, "
                   "send_sizes, output_offsets, recv_sizes); got ",
                   operands.size(), ".");
  }
  if (!operands[1]->IsArray()) {
    return OpError(kOp,
                   "Expected array argument for operand 1 of "
                   "ragged-all-to-all, but got ",
                   operands[1]->ToString(), ".");
  }
  RETURN_IF_ERROR(ExpectValidArray(kOp, *operands[0], "operand 0 (input)"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, *operands[1], "operand 1 (output)"));
  RETURN_IF_ERROR(CheckRows(*operands[0], *operands[1]));
  RETURN_IF_ERROR(CheckMetadata(operands, group_size));
  return *operands[1];
}

}  // namespace mxla
