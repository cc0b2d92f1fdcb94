// Steps of the random-graph generator for cholesky, triangular-solve and
// scaled-dot, on operands built so that the results stay in a known
// range: a triangular-solve's matrix is a constant with a dominant
// diagonal (garbage, NaN-free, in the triangle it must not read), cholesky
// factors x x^T + s I, positive definite by construction, and scaled-dot's
// scales are f8e8m0fnu powers of two in [1/4, 4].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "semantics/scalar_semantics.h"
#include "shape_inference/scaled_dot.h"
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

// a[..., k] x b[k, n] as TryDot, a scaled per row and per block of its
// last dimension (blocks of 1 or of k), b per column or as a whole. The
// scales are f8e8m0fnu where the options allow it, else of a's type.
bool Generator::TryScaledDot(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    return v.shape.rank() >= 1 && v.shape.rank() <= 3 &&
           primitive_util::IsFloatingPointType(v.shape.element_type());
  });
  if (a < 0 || budget < 4) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const PrimitiveType scale_type =
      IsAllowedType(F8E8M0FNU) ? F8E8M0FNU : type;
  const PrimitiveType wide = DequantizedType(type, scale_type);
  if (!IsAllowedType(wide)) return false;
  const int64_t k = shape.dimensions(shape.rank() - 1);
  const int64_t n = RandomDimensionSize(rng_, limits_);
  std::vector<int64_t> out(shape.dimensions().begin(),
                           shape.dimensions().end() - 1);
  out.push_back(n);
  Source rhs;
  if (!FitsLimits(out) || !SourceOfShape(Shape(type, {k, n}), budget - 3,
                                         ValueStyle::kArgument,
                                         /*allow_iota=*/false, &rhs)) {
    return false;
  }
  std::vector<int64_t> scale_dims(shape.dimensions().begin(),
                                  shape.dimensions().end());
  scale_dims.back() = k == 0 || rng_.OneIn(2) ? k : 1;
  auto power_of_two = [&] { return std::ldexp(1.0, rng_.UniformIn(-2, 2)); };
  auto scales_of = [&](const std::vector<int64_t>& dims) {
    std::vector<double> values(ShapeUtil::ElementsIn(Shape(F64, dims)));
    for (double& scale : values) scale = power_of_two();
    return ConstantOf(scale_type, dims, values);
  };
  const Source lhs_scale = scales_of(scale_dims);
  const Source rhs_scale =
      scales_of({k == 0 ? 0 : 1, n == 0 || rng_.OneIn(2) ? n : 1});
  const Range scales = Range::Of(-4, 4);
  auto dequantized = [&](const Range& range) {
    return BinaryRange(HloOpcode::kMultiply, wide,
                       ConvertRange(range, type, wide), scales);
  };
  const Range products =
      BinaryRange(HloOpcode::kMultiply, wide, dequantized(values_[a].range),
                  dequantized(rhs.range));
  const Range range = ReduceRange(HloOpcode::kAdd, wide, products,
                                  Range::Of(0, 0), k);
  if (!Accept(range, wide)) return false;
  XlaOp lhs_op = Emit(ValueSource(a, type));
  XlaOp rhs_op = Emit(rhs);
  DotDimensionNumbers dnums;
  dnums.lhs_contracting = {shape.rank() - 1};
  dnums.rhs_contracting = {0};
  Record(ScaledDot(lhs_op, rhs_op, Emit(lhs_scale), Emit(rhs_scale), dnums),
         range);
  return true;
}

}  // namespace mxla::random_graph_internal
