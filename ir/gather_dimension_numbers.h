// gather's dimension numbers (XLA's GatherDimensionNumbers) and the index
// arithmetic both backends share: which output dimensions are offsets into
// the slice and which index the start indices, and where each lands in the
// operand.
#ifndef MXLA_IR_GATHER_DIMENSION_NUMBERS_H_
#define MXLA_IR_GATHER_DIMENSION_NUMBERS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mxla {

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;

  bool IsOffsetDim(int64_t output_dim) const {
    return std::find(offset_dims.begin(), offset_dims.end(), output_dim) !=
           offset_dims.end();
  }
  // The operand dimensions the offset dimensions walk, in order: those
  // neither collapsed nor batching.
  std::vector<int64_t> SliceDims(int64_t operand_rank) const {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < operand_rank; ++d) {
      auto in = [d](const std::vector<int64_t>& list) {
        return std::find(list.begin(), list.end(), d) != list.end();
      };
      if (!in(collapsed_slice_dims) && !in(operand_batching_dims)) {
        dims.push_back(d);
      }
    }
    return dims;
  }
  // The start-indices dimensions the batch dimensions of the output index,
  // in order: all but index_vector_dim.
  std::vector<int64_t> BatchDims(int64_t indices_rank) const {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < indices_rank; ++d) {
      if (d != index_vector_dim) dims.push_back(d);
    }
    return dims;
  }
};

}  // namespace mxla

#endif  // MXLA_IR_GATHER_DIMENSION_NUMBERS_H_
