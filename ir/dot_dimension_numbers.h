// dot's dimension numbers: which lhs and rhs dimensions are batch
// dimensions and which are contracted, each list paired in order.
#ifndef MXLA_IR_DOT_DIMENSION_NUMBERS_H_
#define MXLA_IR_DOT_DIMENSION_NUMBERS_H_

#include <cstdint>
#include <vector>

namespace mxla {

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};

}  // namespace mxla

#endif  // MXLA_IR_DOT_DIMENSION_NUMBERS_H_
