// scatter's dimension numbers (XLA's ScatterDimensionNumbers): which update
// dimensions are window dimensions, which operand dimensions the window
// leaves out (inserted, size 1) or takes from the scatter position
// (batching), and which operand dimension each entry of a start index
// vector indexes.
#ifndef MXLA_IR_SCATTER_DIMENSION_NUMBERS_H_
#define MXLA_IR_SCATTER_DIMENSION_NUMBERS_H_

#include <cstdint>
#include <vector>

namespace mxla {

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

}  // namespace mxla

#endif  // MXLA_IR_SCATTER_DIMENSION_NUMBERS_H_
