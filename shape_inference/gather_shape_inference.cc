// ShapeInference::InferGatherShape: XLA's gather rule, checked in XLA's
// order, each message naming the op, the shapes and the dimension numbers.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

// Sorted, distinct and inside [0, bound).
bool SortedUniqueBelow(const std::vector<int64_t>& dims, int64_t bound) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound) return false;
    if (i > 0 && dims[i] <= dims[i - 1]) return false;
  }
  return true;
}

constexpr HloOpcode kOp = HloOpcode::kGather;

// Every message ends with the operands and the dimension numbers.
template <typename... Args>
absl::Status GatherError(const std::string& context, const Args&... what) {
  return OpError(kOp, what..., context);
}

// The index vector's dimension, then each list of dimension numbers
// against the output, operand and start indices ranks.
absl::Status ValidateGatherDimensionNumbers(
    const Shape& operand, const Shape& start_indices,
    const GatherDimensionNumbers& dnums, int64_t output_rank,
    const std::string& context) {
  const int64_t indices_rank = start_indices.rank();
  if (!SortedUniqueBelow(dnums.offset_dims, output_rank)) {
    return GatherError(context,
                       "Output window dimensions in gather op must be "
                       "sorted, distinct and within the output's rank.");
  }
  if (!SortedUniqueBelow(dnums.collapsed_slice_dims, operand.rank())) {
    return GatherError(context,
                       "collapsed_slice_dims in gather op must be sorted, "
                       "distinct and within the operand's rank.");
  }
  if (!SortedUniqueBelow(dnums.operand_batching_dims, operand.rank()) ||
      dnums.operand_batching_dims.size() !=
          dnums.start_indices_batching_dims.size()) {
    return GatherError(context,
                       "operand_batching_dims must be sorted, distinct, "
                       "within the operand's rank, and as many as "
                       "start_indices_batching_dims.");
  }
  for (int64_t d : dnums.start_indices_batching_dims) {
    if (d < 0 || d >= indices_rank || d == dnums.index_vector_dim) {
      return GatherError(context,
                         "start_indices_batching_dims must be start indices "
                         "dimensions other than index_vector_dim.");
    }
  }
  return absl::OkStatus();
}

// start_index_map: one operand dimension per index vector element.
absl::Status CheckStartIndexMap(const Shape& operand,
                                const GatherDimensionNumbers& dnums,
                                int64_t index_vector_size,
                                const std::string& context) {
  if (static_cast<int64_t>(dnums.start_index_map.size()) !=
      index_vector_size) {
    return GatherError(
        context, "Gather op has ", dnums.start_index_map.size(),
        " elements in start_index_map and the bound of dimension "
        "index_vector_dim=",
        dnums.index_vector_dim, " of start_indices is ", index_vector_size,
        ". These two numbers must be equal.");
  }
  for (int64_t d : dnums.start_index_map) {
    if (d < 0 || d >= operand.rank()) {
      return GatherError(context, "Invalid start_index_map; domain is [0, ",
                         operand.rank(), "), got: ", d, ".");
    }
  }
  return absl::OkStatus();
}

// One slice size per operand dimension, within it; collapsed and batching
// dimensions of size at most 1; every other dimension an offset one.
absl::Status CheckSliceSizes(const Shape& operand,
                             const GatherDimensionNumbers& dnums,
                             absl::Span<const int64_t> slice_sizes,
                             const std::string& context) {
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return GatherError(context,
                       "Gather op must have one slice size for every input "
                       "dimension; got: len(slice_sizes)=",
                       slice_sizes.size(),
                       ", input_shape.rank=", operand.rank(), ".");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions(d)) {
      return GatherError(context, "Slice size at index ", d,
                         " in gather op is out of range, must be within [0, ",
                         operand.dimensions(d), "], got ", slice_sizes[d],
                         ".");
    }
  }
  for (int64_t d : dnums.collapsed_slice_dims) {
    if (slice_sizes[d] > 1) {
      return GatherError(context,
                         "Gather op can only collapse slice dims with bound "
                         "1, but bound is ",
                         slice_sizes[d], " for index ", d, " at position ", d,
                         ".");
    }
  }
  for (int64_t d : dnums.operand_batching_dims) {
    if (slice_sizes[d] > 1) {
      return GatherError(context,
                         "Gather op can only have operand batching dims with "
                         "slice size 1; got ",
                         slice_sizes[d], " for ", d, ".");
    }
  }
  if (dnums.SliceDims(operand.rank()).size() != dnums.offset_dims.size()) {
    return GatherError(
        context,
        "All components of the offset index in a gather op must either be "
        "an offset dimension or explicitly collapsed or batching; got "
        "len(slice_sizes)=",
        slice_sizes.size(), ", output_slice_sizes=",
        DimsString(dnums.offset_dims), ".");
  }
  return absl::OkStatus();
}

// The offset dimensions take the slice's sizes, the others the batch
// dimensions of the start indices, in order.
Shape GatherResultShape(const Shape& operand, const Shape& start_indices,
                        const GatherDimensionNumbers& dnums,
                        absl::Span<const int64_t> slice_sizes,
                        int64_t output_rank) {
  const std::vector<int64_t> slice_dims = dnums.SliceDims(operand.rank());
  const std::vector<int64_t> batch_dims =
      dnums.BatchDims(start_indices.rank());
  std::vector<int64_t> dims;
  size_t offset = 0, batch = 0;
  for (int64_t i = 0; i < output_rank; ++i) {
    if (dnums.IsOffsetDim(i)) {
      dims.push_back(slice_sizes[slice_dims[offset++]]);
    } else {
      dims.push_back(start_indices.dimensions(batch_dims[batch++]));
    }
  }
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

// XLA allows collapsing a dimension of slice size 0, but then the slices
// are empty while the result has elements to read: refused.
absl::Status CheckNoEmptyCollapsedSlice(const Shape& result,
                                        const GatherDimensionNumbers& dnums,
                                        absl::Span<const int64_t> slice_sizes,
                                        const std::string& context) {
  if (ShapeUtil::ElementsIn(result) == 0) return absl::OkStatus();
  for (const std::vector<int64_t>* list :
       {&dnums.collapsed_slice_dims, &dnums.operand_batching_dims}) {
    for (int64_t d : *list) {
      if (slice_sizes[d] == 0) {
        return GatherError(context, "Gather op collapses dimension ", d,
                           " of slice size 0: the slices are empty, but the "
                           "result ",
                           result.ToString(), " has elements to read.");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferGatherShape(
    const Shape& operand, const Shape& start_indices,
    const GatherDimensionNumbers& dnums,
    absl::Span<const int64_t> slice_sizes) {
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, start_indices, "start indices"));
  const std::string context = absl::StrCat(
      " (operand ", operand.ToString(), ", start indices ",
      start_indices.ToString(), ", offset_dims=", DimsString(dnums.offset_dims),
      ", collapsed_slice_dims=", DimsString(dnums.collapsed_slice_dims),
      ", start_index_map=", DimsString(dnums.start_index_map),
      ", index_vector_dim=", dnums.index_vector_dim, ", slice_sizes=",
      DimsString(slice_sizes), ")");
  if (!primitive_util::IsIntegralType(start_indices.element_type())) {
    return GatherError(context,
                       "Gather indices parameter must be an integral tensor.");
  }
  const int64_t indices_rank = start_indices.rank();
  if (dnums.index_vector_dim < 0 || dnums.index_vector_dim > indices_rank) {
    return GatherError(context,
                       "Gather index leaf dimension must be within [0, rank(",
                       "start_indices) + 1).");
  }
  const bool implicit_vector = dnums.index_vector_dim == indices_rank;
  const int64_t index_vector_size =
      implicit_vector ? 1 : start_indices.dimensions(dnums.index_vector_dim);
  const int64_t batch_rank = indices_rank - (implicit_vector ? 0 : 1);
  const int64_t output_rank =
      batch_rank + static_cast<int64_t>(dnums.offset_dims.size());
  RETURN_IF_ERROR(ValidateGatherDimensionNumbers(operand, start_indices,
                                                 dnums, output_rank, context));
  RETURN_IF_ERROR(
      CheckStartIndexMap(operand, dnums, index_vector_size, context));
  RETURN_IF_ERROR(CheckSliceSizes(operand, dnums, slice_sizes, context));
  const Shape result = GatherResultShape(operand, start_indices, dnums,
                                         slice_sizes, output_rank);
  RETURN_IF_ERROR(
      CheckNoEmptyCollapsedSlice(result, dnums, slice_sizes, context));
  return result;
}

}  // namespace mxla
