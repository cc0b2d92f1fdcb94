// dot's dimension numbers: which lhs and rhs dimensions are batch
// dimensions and which are contracted, each list paired in order.
#ifndef MXLA_IR_DOT_DIMENSION_NUMBERS_H_
#define MXLA_IR_DOT_DIMENSION_NUMBERS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mxla {

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};

// The dimensions of a rank-`rank` operand that are neither batch nor
// contracting, in increasing order: they follow the batch dimensions in
// dot's result, lhs's before rhs's.
inline std::vector<int64_t> DotFreeDimensions(
    int64_t rank, const std::vector<int64_t>& batch,
    const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

}  // namespace mxla

#endif  // MXLA_IR_DOT_DIMENSION_NUMBERS_H_
