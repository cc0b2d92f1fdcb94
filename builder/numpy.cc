#include "builder/numpy.h"

#include <algorithm>

namespace mxla::numpy {
namespace {

int64_t RankOf(XlaOp op) {
  if (!op.valid()) return 0;
  absl::StatusOr<Shape> shape = op.builder()->GetShape(op);
  return shape.ok() && shape->IsArray() ? shape->rank() : 0;
}

// The core op decides everything else (and reports invalid operands).
std::vector<int64_t> DimensionsFor(XlaOp lhs, XlaOp rhs) {
  return TrailingBroadcastDimensions(RankOf(lhs), RankOf(rhs));
}

}  // namespace

std::vector<int64_t> TrailingBroadcastDimensions(int64_t lhs_rank,
                                                 int64_t rhs_rank) {
  const int64_t low = std::min(lhs_rank, rhs_rank);
  const int64_t high = std::max(lhs_rank, rhs_rank);
  std::vector<int64_t> dimensions;
  if (low == 0 || low == high) return dimensions;
  for (int64_t d = high - low; d < high; ++d) dimensions.push_back(d);
  return dimensions;
}

#define MXLA_DEFINE_NUMPY_BINARY_OP(Name)                                 \
  XlaOp Name(XlaOp lhs, XlaOp rhs, SourceLocation location) {             \
    return ::mxla::Name(lhs, rhs, DimensionsFor(lhs, rhs), location);     \
  }
MXLA_DEFINE_NUMPY_BINARY_OP(Add)
MXLA_DEFINE_NUMPY_BINARY_OP(Sub)
MXLA_DEFINE_NUMPY_BINARY_OP(Mul)
MXLA_DEFINE_NUMPY_BINARY_OP(Div)
MXLA_DEFINE_NUMPY_BINARY_OP(Rem)
MXLA_DEFINE_NUMPY_BINARY_OP(Max)
MXLA_DEFINE_NUMPY_BINARY_OP(Min)
MXLA_DEFINE_NUMPY_BINARY_OP(Pow)
MXLA_DEFINE_NUMPY_BINARY_OP(And)
MXLA_DEFINE_NUMPY_BINARY_OP(Or)
MXLA_DEFINE_NUMPY_BINARY_OP(Xor)
MXLA_DEFINE_NUMPY_BINARY_OP(Eq)
MXLA_DEFINE_NUMPY_BINARY_OP(Ne)
MXLA_DEFINE_NUMPY_BINARY_OP(Lt)
MXLA_DEFINE_NUMPY_BINARY_OP(Le)
MXLA_DEFINE_NUMPY_BINARY_OP(Gt)
MXLA_DEFINE_NUMPY_BINARY_OP(Ge)
#undef MXLA_DEFINE_NUMPY_BINARY_OP

}  // namespace mxla::numpy
