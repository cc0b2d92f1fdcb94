// gather, for the evaluator: each output element read from the operand at
// its slice's start (from the start indices, clamped so the slice fits)
// plus its offset in the slice.
#include <cstring>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

absl::StatusOr<Literal> EvaluateGather(const Literal& operand,
                                       const Literal& indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes,
                                       const Shape& shape) {
  const Shape& in = operand.shape();
  const Shape& index_shape = indices.shape();
  RET_CHECK(in.IsArray() && index_shape.IsArray() && shape.IsArray() &&
                static_cast<int64_t>(slice_sizes.size()) == in.rank(),
            "gather of ", in.ToString(), " by ", index_shape.ToString());
  Literal result(shape);
  const int64_t width = primitive_util::ByteWidth(in.element_type());
  const std::vector<int64_t> batch_dims = dnums.BatchDims(index_shape.rank());
  const std::vector<int64_t> slice_dims = dnums.SliceDims(in.rank());
  const std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
  const std::vector<int64_t> index_strides =
      ShapeUtil::RowMajorStrides(index_shape);
  const auto* source = static_cast<const uint8_t*>(operand.untyped_data());
  auto* out = static_cast<uint8_t*>(result.untyped_data());
  std::vector<int64_t> index(shape.rank(), 0);
  for (int64_t linear = 0; linear < result.element_count(); ++linear) {
    // The start indices' position: the output's batch dimensions.
    int64_t batch_base = 0;
    std::vector<int64_t> batch_index(index_shape.rank(), 0);
    for (int64_t d = 0, b = 0; d < shape.rank(); ++d) {
      if (dnums.IsOffsetDim(d)) continue;
      batch_index[batch_dims[b++]] = index[d];
    }
    for (int64_t d = 0; d < index_shape.rank(); ++d) {
      batch_base += batch_index[d] * index_strides[d];
    }
    std::vector<int64_t> at(in.rank(), 0);
    for (size_t k = 0; k < dnums.start_index_map.size(); ++k) {
      const int64_t d = dnums.start_index_map[k];
      const int64_t element =
          dnums.index_vector_dim < index_shape.rank()
              ? batch_base + k * index_strides[dnums.index_vector_dim]
              : batch_base;
      at[d] = ClampedIndexAt(indices, element,
                             in.dimensions(d) - slice_sizes[d]);
    }
    for (size_t i = 0; i < dnums.operand_batching_dims.size(); ++i) {
      at[dnums.operand_batching_dims[i]] =
          batch_index[dnums.start_indices_batching_dims[i]];
    }
    for (size_t j = 0; j < dnums.offset_dims.size(); ++j) {
      at[slice_dims[j]] += index[dnums.offset_dims[j]];
    }
    int64_t offset = 0;
    for (int64_t d = 0; d < in.rank(); ++d) offset += at[d] * in_strides[d];
    std::memcpy(out + linear * width, source + offset * width, width);
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return result;
}

}  // namespace mxla::hlo_evaluator_internal
