// dot's dimension numbers: which lhs and rhs dimensions are batch
// dimensions and which are contracted, each list paired in order.
#ifndef MXLA_IR_DOT_DIMENSION_NUMBERS_H_
#define MXLA_IR_DOT_DIMENSION_NUMBERS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/primitive_type.h"

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

// Of two element types, the one a mixed dot computes in: a float over an
// integer, then the wider; on a tie, `a`.
inline PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b) {
  const bool a_float = primitive_util::IsFloatingPointType(a);
  const bool b_float = primitive_util::IsFloatingPointType(b);
  if (a_float != b_float) return a_float ? a : b;
  return primitive_util::BitWidth(b) > primitive_util::BitWidth(a) ? b : a;
}

// The type a dot of `lhs` and `rhs` element types with result type
// `result` multiplies and accumulates in: the higher of the three, as f32
// for f16 and bf16 (XLA:CPU upcasts them). Both backends convert the
// operands to it and the sum to `result`.
inline PrimitiveType DotAccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                                         PrimitiveType result) {
  return primitive_util::ComputeType(
      HigherPrecisionType(result, HigherPrecisionType(lhs, rhs)));
}

}  // namespace mxla

#endif  // MXLA_IR_DOT_DIMENSION_NUMBERS_H_
