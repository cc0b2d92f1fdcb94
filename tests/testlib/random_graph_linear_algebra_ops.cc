// Steps of the random-graph generator for cholesky and triangular-solve,
// on operands built so that the results stay in a known range: a
// triangular-solve's matrix is a constant with a dominant diagonal
// (garbage, NaN-free, in the triangle it must not read), and cholesky
// factors x x^T + s I, positive definite by construction.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

bool IsFloatMatrixBatch(const Value& value) {
  return value.shape.rank() >= 2 &&
         primitive_util::IsFloatingPointType(value.shape.element_type());
}

std::vector<int64_t> SquareBatch(const Shape& shape, int64_t n) {
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end() - 2);
  dims.push_back(n);
  dims.push_back(n);
  return dims;
}

// A constant Source of `dims` and `type` with `values` (given in f64).
Source ConstantOf(PrimitiveType type, const std::vector<int64_t>& dims,
                  const std::vector<double>& values) {
  Literal wide(ShapeUtil::MakeShape(F64, dims));
  std::copy(values.begin(), values.end(), wide.data<double>().begin());
  Source source;
  source.kind = Source::Kind::kConstant;
  source.shape = ShapeUtil::MakeShape(type, dims);
  source.literal = semantics::ApplyConvert(wide, type).value();
  source.range = LiteralRange(source.literal);
  return source;
}

}  // namespace

bool Generator::TryTriangularSolve(int64_t budget) {
  const int64_t b = PickValue(IsFloatMatrixBatch);
  if (b < 0 || budget < 2) return false;
  const Shape shape = values_[b].shape;
  const Range b_range = values_[b].range;
  const PrimitiveType type = shape.element_type();
  const bool left_side = rng_.OneIn(2);
  const bool lower = rng_.OneIn(2);
  const bool unit_diagonal = rng_.OneIn(3);
  const auto transpose = static_cast<TriangularSolveTranspose>(rng_.Uniform(3));
  const int64_t m = shape.dimensions(shape.rank() - (left_side ? 2 : 1));
  const std::vector<int64_t> dims = SquareBatch(shape, m);
  if (!FitsLimits(dims)) return false;
  // In the triangle |t| < 1/m and |diagonal| >= 1, so every |x| stays
  // below (1 + 1/m)^m |b| < e |b|; the rest is read by neither backend.
  auto uniform = [&] { return rng_.Uniform(1 << 20) * 0x1p-20; };  // [0, 1)
  std::vector<double> values(ShapeUtil::ElementsIn(Shape(F64, dims)));
  for (size_t k = 0; k < values.size(); ++k) {
    const int64_t i = static_cast<int64_t>(k) / m % m;
    const int64_t j = static_cast<int64_t>(k) % m;
    if (i == j && !unit_diagonal) {
      values[k] = (rng_.OneIn(2) ? 1 : -1) * (1 + uniform());
    } else if (i != j && (lower ? j < i : j > i)) {
      values[k] = (2 * uniform() - 1) / m;
    } else {
      values[k] = 4 * uniform() - 2;
    }
  }
  const Source a = ConstantOf(type, dims, values);
  const double bound = 3 * b_range.Magnitude();
  Range range = Range::Of(-bound, bound);
  range.nan = b_range.nan;
  if (!Accept(range, type)) return false;
  XlaOp a_op = Emit(a);
  XlaOp b_op = Emit(ValueSource(b, type));
  Record(
      TriangularSolve(a_op, b_op, left_side, lower, unit_diagonal, transpose),
      range);
  return true;
}

bool Generator::TryCholesky(int64_t budget) {
  const int64_t x = PickValue([](const Value& v) {
    return IsFloatMatrixBatch(v) && v.range.Finite() &&
           v.range.Magnitude() <= 8;
  });
  if (x < 0 || budget < 4) return false;
  const Shape shape = values_[x].shape;
  const PrimitiveType type = shape.element_type();
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(rank - 2);
  const int64_t k = shape.dimensions(rank - 1);
  const std::vector<int64_t> dims = SquareBatch(shape, n);
  if (!FitsLimits(dims)) return false;
  // x x^T + s I with s past every Gram entry: |l| <= sqrt(a_ii).
  const double magnitude = values_[x].range.Magnitude();
  const double shift = std::ceil(k * magnitude * magnitude) + 1;
  std::vector<double> diagonal(ShapeUtil::ElementsIn(Shape(F64, dims)));
  for (size_t e = 0; e < diagonal.size(); ++e) {
    diagonal[e] = e / n % n == e % n ? shift : 0;
  }
  const double bound = std::sqrt(2 * shift) * 1.01;
  const Range range = Range::Of(-bound, bound);
  if (!Accept(range, type)) return false;
  XlaOp op = Emit(ValueSource(x, type));
  DotDimensionNumbers gram;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    gram.lhs_batch.push_back(d);
    gram.rhs_batch.push_back(d);
  }
  gram.lhs_contracting = {rank - 1};
  gram.rhs_contracting = {rank - 1};
  XlaOp spd =
      Add(DotGeneral(op, op, gram), Emit(ConstantOf(type, dims, diagonal)));
  Record(Cholesky(spd, /*lower=*/rng_.OneIn(2)), range);
  return true;
}

}  // namespace mxla::random_graph_internal
