// Gradient of `reduce` with a multiply reducer (jnp.prod): element i of a
// reduced group gets the cotangent times init times the product of the
// group's other elements, as JAX's _reduce_prod_jvp_rule computes it:
// exclusive products from the left and from the right, multiplied, with
// no division, so that a zero in the group gives the exact gradient (the
// product of the others) rather than 0/0. The products from each side are
// a scan in log2(n) steps (each step multiplies by the values 2^s before
// it), n log n multiplies rather than n^2. The initial value gets the
// cotangent times the product of the elements.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// [..., n]: along the last dimension, x0, x0 x1, x0 x1 x2, ...
XlaOp InclusiveProducts(XlaOp rows) {
  const Shape shape = ShapeOf(rows);
  const int64_t rank = shape.dimensions().size();
  const int64_t n = shape.dimensions(rank - 1);
  std::vector<int64_t> start(rank, 0), limit(shape.dimensions().begin(),
                                             shape.dimensions().end());
  std::vector<int64_t> strides(rank, 1);
  for (int64_t step = 1; step < n; step *= 2) {
    limit[rank - 1] = n - step;
    PaddingConfig before(rank);
    before[rank - 1].low = step;
    rows = rows * Pad(Slice(rows, start, limit, strides), ScalarLike(rows, 1),
                      before);
  }
  return rows;
}

// [..., n]: along the last dimension, 1, x0, x0 x1, ... (each element's
// product of the ones before it).
XlaOp ProductsBefore(XlaOp rows) {
  const Shape shape = ShapeOf(rows);
  const int64_t rank = shape.dimensions().size();
  PaddingConfig shifted(rank);
  shifted[rank - 1].low = 1;
  shifted[rank - 1].high = -1;
  return InclusiveProducts(Pad(rows, ScalarLike(rows, 1), shifted));
}

}  // namespace

Result ProductReduceCotangents(const GradientContext& context) {
  const HloInstruction& reduce = context.instruction;
  const XlaOp& operand = context.operands[0];
  const XlaOp& init = context.operands[1];
  const Shape shape = ShapeOf(operand);
  const int64_t rank = shape.dimensions().size();
  const std::vector<int64_t>& reduced = reduce.dimensions();
  // Kept dimensions first, reduced ones last, flattened into one row of
  // n elements per result element.
  std::vector<int64_t> order, kept_sizes;
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      order.push_back(d);
      kept_sizes.push_back(shape.dimensions(d));
    }
  }
  for (int64_t d : reduced) {
    order.push_back(d);
    n *= shape.dimensions(d);
  }
  std::vector<int64_t> row_shape = kept_sizes;
  row_shape.push_back(n);
  const XlaOp rows = Reshape(Transpose(operand, order), row_shape);
  const int64_t last = row_shape.size() - 1;
  const XlaOp others =
      ProductsBefore(rows) * Rev(ProductsBefore(Rev(rows, {last})), {last});
  std::vector<int64_t> kept_dims(kept_sizes.size());
  std::iota(kept_dims.begin(), kept_dims.end(), 0);
  const XlaOp scale = context.cotangent * init;
  const XlaOp row_cotangent =
      others * BroadcastInDim(scale, row_shape, kept_dims);
  // Back to the operand's layout.
  std::vector<int64_t> transposed_sizes;
  for (int64_t d : order) transposed_sizes.push_back(shape.dimensions(d));
  std::vector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i) inverse[order[i]] = i;
  const XlaOp operand_cotangent =
      Transpose(Reshape(row_cotangent, transposed_sizes), inverse);
  // The product of each group's elements: its last inclusive product (1
  // for an empty group).
  std::vector<int64_t> all(kept_sizes.size());
  std::iota(all.begin(), all.end(), 0);
  if (n == 0) {
    return OperandCotangents{operand_cotangent,
                             SumOver(context.cotangent, all)};
  }
  std::vector<int64_t> from(row_shape.size(), 0);
  from[last] = n - 1;
  const XlaOp products =
      Reshape(Slice(InclusiveProducts(rows), from, row_shape,
                    std::vector<int64_t>(row_shape.size(), 1)),
              kept_sizes);
  return OperandCotangents{operand_cotangent,
                           SumOver(context.cotangent * products, all)};
}

}  // namespace mxla::gradient_rules
