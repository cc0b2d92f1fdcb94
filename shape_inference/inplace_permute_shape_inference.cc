// Shape inference for XLA's in-place collective-permute(input, output,
// input_start_indices, output_start_indices) with slice_sizes: the
// checks of XLA's verifier (CheckInplaceCollectivePermute, in its order
// and words), then the slice sizes against both buffers, which XLA leaves
// to the backend.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

// One buffer's start indices: a tuple of one integer scalar per dimension
// (XLA's CheckBufferOffset; a tuple of such tuples, several slices of one
// buffer, is refused).
absl::Status CheckBufferOffset(HloOpcode opcode, const Shape& buffer,
                               const Shape& offset, absl::string_view what) {
  if (!offset.IsTuple()) {
    return OpError(opcode, "Buffer offset is not tuple.");
  }
  bool all_arrays = true;
  bool all_tuples = true;
  for (const Shape& element : offset.tuple_shapes()) {
    all_arrays = all_arrays && element.IsArray();
    all_tuples = all_tuples && element.IsTuple();
  }
  if (!all_arrays && !all_tuples) {
    return OpError(opcode,
                   "Buffer offset should either be a tuple of arrays or  a "
                   "tuple of tuples.");
  }
  if (all_tuples && !offset.tuple_shapes().empty()) {
    return OpError(opcode, what, " ", offset.ToString(),
                   ": several slices of one buffer (a tuple of tuples of "
                   "start indices) are not supported by mxla");
  }
  if (static_cast<int64_t>(offset.tuple_shapes().size()) != buffer.rank()) {
    return OpError(opcode,
                   "Buffer offset index should have the same number of "
                   "elements as the buffer's rank.");
  }
  for (const Shape& index : offset.tuple_shapes()) {
    if (index.rank() != 0 ||
        !primitive_util::IsIntegralType(index.element_type())) {
      return OpError(opcode, what, " ", offset.ToString(),
                     " must hold integer scalars.");
    }
  }
  return absl::OkStatus();
}

// The buffers, as (input, output, input offset, output offset) each.
struct Buffer {
  const Shape* input;
  const Shape* output;
  const Shape* input_offset;
  const Shape* output_offset;
};

absl::StatusOr<std::vector<Buffer>> BuffersOf(
    HloOpcode opcode, absl::Span<const Shape* const> operands) {
  const Shape& input = *operands[0];
  const Shape& output = *operands[1];
  const Shape& input_offset = *operands[2];
  const Shape& output_offset = *operands[3];
  if (input.IsArray() && output.IsArray()) {
    return std::vector<Buffer>{{&input, &output, &input_offset,
                                &output_offset}};
  }
  if (!input.IsTuple() || !output.IsTuple() ||
      input.tuple_shapes().size() != output.tuple_shapes().size()) {
    return OpError(opcode, "Unmatching input buffers and output buffers.");
  }
  const size_t count = input.tuple_shapes().size();
  if (!input_offset.IsTuple() || input_offset.tuple_shapes().size() != count) {
    return OpError(opcode, "Unmatching input buffers and input offset.");
  }
  if (!output_offset.IsTuple() ||
      output_offset.tuple_shapes().size() != count) {
    return OpError(opcode, "Unmatching output buffers and output offset.");
  }
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < count; ++i) {
    buffers.push_back({&input.tuple_shapes(i), &output.tuple_shapes(i),
                       &input_offset.tuple_shapes(i),
                       &output_offset.tuple_shapes(i)});
  }
  return buffers;
}

absl::Status CheckSlice(HloOpcode opcode, const Buffer& buffer, size_t i,
                        absl::Span<const int64_t> sizes) {
  const Shape& input = *buffer.input;
  const Shape& output = *buffer.output;
  RETURN_IF_ERROR(ExpectValidArray(opcode, input, "input buffer"));
  RETURN_IF_ERROR(ExpectValidArray(opcode, output, "output buffer"));
  if (input.element_type() != output.element_type() ||
      input.rank() != output.rank()) {
    return OpError(opcode, "buffer ", i, ": input ", input.ToString(),
                   " and output ", output.ToString(),
                   " differ in element type or rank.");
  }
  RETURN_IF_ERROR(CheckBufferOffset(opcode, input, *buffer.input_offset,
                                    "input_start_indices"));
  RETURN_IF_ERROR(CheckBufferOffset(opcode, output, *buffer.output_offset,
                                    "output_start_indices"));
  if (static_cast<int64_t>(sizes.size()) != input.rank()) {
    return OpError(opcode, "buffer ", i, ": slice_sizes ", DimsString(sizes),
                   " has ", sizes.size(), " sizes but the buffer ",
                   input.ToString(), " has rank ", input.rank(), ".");
  }
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (sizes[d] > input.dimensions(d) || sizes[d] > output.dimensions(d)) {
      return OpError(opcode, "buffer ", i, ": slice size ", sizes[d],
                     " in dimension ", d, " exceeds the input ",
                     input.ToString(), " or the output ", output.ToString(),
                     ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferInPlaceCollectivePermuteShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> slice_sizes,
    absl::Span<const Shape> context) {
  if (operands.size() != 4) {
    return OpError(opcode, "Unexpected number of operands: ",
                   operands.size(), ".");
  }
  ASSIGN_OR_RETURN(const std::vector<Buffer> buffers,
                   BuffersOf(opcode, operands));
  if (slice_sizes.size() != buffers.size()) {
    return OpError(opcode, "slice_sizes has ", slice_sizes.size(),
                   " lists but there are ", buffers.size(), " buffers.");
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    RETURN_IF_ERROR(CheckSlice(opcode, buffers[i], i, slice_sizes[i]));
  }
  const Shape& output = *operands[1];
  if (opcode != HloOpcode::kCollectivePermuteStart) return output;
  std::vector<Shape> elements = {*operands[0], output};
  elements.insert(elements.end(), context.begin(), context.end());
  return ShapeUtil::MakeTupleShape(elements);
}

}  // namespace mxla
