// ragged-dot's dimension numbers: a dot's, plus lhs's one ragged dimension
// and rhs's group dimension. What the op computes with them, in each of its
// three modes, is in shape_inference/ragged_dot.h.
#ifndef MXLA_IR_RAGGED_DOT_DIMENSION_NUMBERS_H_
#define MXLA_IR_RAGGED_DOT_DIMENSION_NUMBERS_H_

#include <cstdint>
#include <vector>

#include "ir/dot_dimension_numbers.h"

namespace mxla {

struct RaggedDotDimensionNumbers {
  DotDimensionNumbers dot;
  std::vector<int64_t> lhs_ragged;
  std::vector<int64_t> rhs_group;
};

}  // namespace mxla

#endif  // MXLA_IR_RAGGED_DOT_DIMENSION_NUMBERS_H_
