#include "semantics/linear_algebra.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/algorithm/container.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics {
namespace {

// A batch of row-major n x m matrices in the compute type.
template <typename T>
struct Matrices {
  std::vector<T> data;
  int64_t count, rows, columns;

  T* Matrix(int64_t index) { return data.data() + index * rows * columns; }
};

template <typename T>
absl::StatusOr<Matrices<T>> ToMatrices(const Literal& literal) {
  const Shape& shape = literal.shape();
  ASSIGN_OR_RETURN(
      Literal wide,
      ApplyConvert(literal, LinearAlgebraComputeType(shape.element_type())));
  const int64_t rank = shape.rank();
  const int64_t rows = shape.dimensions(rank - 2);
  const int64_t columns = shape.dimensions(rank - 1);
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  const int64_t count = rows * columns == 0 ? 0 : elements / (rows * columns);
  absl::Span<const T> values = wide.data<T>();
  return Matrices<T>{std::vector<T>(values.begin(), values.end()), count, rows,
                     columns};
}

template <typename T>
absl::StatusOr<Literal> FromMatrices(const Matrices<T>& matrices,
                                     const Shape& shape) {
  Literal wide(ShapeUtil::ChangeElementType(
      shape, LinearAlgebraComputeType(shape.element_type())));
  absl::c_copy(matrices.data, wide.data<T>().begin());
  return ApplyConvert(wide, shape.element_type());
}

// Transposes each square n x n matrix in place.
template <typename T>
void TransposeSquare(Matrices<T>& matrices) {
  const int64_t n = matrices.rows;
  for (int64_t b = 0; b < matrices.count; ++b) {
    T* m = matrices.Matrix(b);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) std::swap(m[i * n + j], m[j * n + i]);
    }
  }
}

// Each rows x columns matrix becomes its columns x rows transpose.
template <typename T>
Matrices<T> Transposed(const Matrices<T>& matrices) {
  Matrices<T> result{std::vector<T>(matrices.data.size()), matrices.count,
                     matrices.columns, matrices.rows};
  const int64_t size = matrices.rows * matrices.columns;
  for (int64_t b = 0; b < matrices.count; ++b) {
    const T* from = matrices.data.data() + b * size;
    T* to = result.Matrix(b);
    for (int64_t i = 0; i < matrices.rows; ++i) {
      for (int64_t j = 0; j < matrices.columns; ++j) {
        to[j * matrices.rows + i] = from[i * matrices.columns + j];
      }
    }
  }
  return result;
}

template <typename T>
void CholeskyLower(Matrices<T>& a) {
  const int64_t n = a.rows;
  std::vector<T> l(n * n), s(n);
  for (int64_t b = 0; b < a.count; ++b) {
    T* x = a.Matrix(b);
    absl::c_fill(l, T{0});
    bool failed = false;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < n; ++i) {
        T sum = T{0};
        for (int64_t k = 0; k < n; ++k) sum = sum + l[i * n + k] * l[j * n + k];
        s[i] = x[i * n + j] - sum;
      }
      const T d = std::sqrt(s[j]);
      failed = failed || std::isnan(d);
      for (int64_t i = 0; i < n; ++i) {
        l[i * n + j] = i > j ? s[i] / d : i == j ? d : T{0};
      }
    }
    if (failed) absl::c_fill(l, std::numeric_limits<T>::quiet_NaN());
    absl::c_copy(l, x);
  }
}

template <typename T>
absl::StatusOr<Literal> TypedCholesky(const Literal& a, bool lower) {
  ASSIGN_OR_RETURN(Matrices<T> matrices, ToMatrices<T>(a));
  if (!lower) TransposeSquare(matrices);
  CholeskyLower(matrices);
  if (!lower) TransposeSquare(matrices);
  return FromMatrices(matrices, a.shape());
}

// Solves t x = b for each matrix, t m x m and lower (or upper) triangular.
template <typename T>
Matrices<T> Substitute(const Matrices<T>& t, const Matrices<T>& b, bool lower,
                       bool unit_diagonal) {
  const int64_t m = t.rows, n = b.columns;
  Matrices<T> x{std::vector<T>(b.data.size(), T{0}), b.count, m, n};
  for (int64_t batch = 0; batch < b.count; ++batch) {
    const T* tm = t.data.data() + batch * m * m;
    const T* bm = b.data.data() + batch * m * n;
    T* xm = x.Matrix(batch);
    for (int64_t step = 0; step < m; ++step) {
      const int64_t i = lower ? step : m - 1 - step;
      for (int64_t j = 0; j < n; ++j) {
        T sum = T{0};
        for (int64_t k = 0; k < m; ++k) {
          const bool strict = lower ? k < i : k > i;
          sum = sum + (strict ? tm[i * m + k] : T{0}) * xm[k * n + j];
        }
        const T numerator = bm[i * n + j] - sum;
        xm[i * n + j] = unit_diagonal ? numerator : numerator / tm[i * m + i];
      }
    }
  }
  return x;
}

template <typename T>
absl::StatusOr<Literal> TypedTriangularSolve(
    const Literal& a, const Literal& b, const TriangularSolveOptions& options) {
  ASSIGN_OR_RETURN(Matrices<T> t, ToMatrices<T>(a));
  ASSIGN_OR_RETURN(Matrices<T> rhs, ToMatrices<T>(b));
  // op(a), and its transpose again for a right-side solve.
  const bool transpose = options.transposes() != !options.left_side;
  if (transpose) TransposeSquare(t);
  const bool lower = options.lower != transpose;
  if (options.left_side) {
    return FromMatrices(Substitute(t, rhs, lower, options.unit_diagonal),
                        b.shape());
  }
  return FromMatrices(
      Transposed(Substitute(t, Transposed(rhs), lower, options.unit_diagonal)),
      b.shape());
}

}  // namespace

PrimitiveType LinearAlgebraComputeType(PrimitiveType type) {
  return type == F64 ? F64 : F32;
}

absl::StatusOr<Literal> Cholesky(const Literal& a, bool lower) {
  if (LinearAlgebraComputeType(a.shape().element_type()) == F64) {
    return TypedCholesky<double>(a, lower);
  }
  return TypedCholesky<float>(a, lower);
}

absl::StatusOr<Literal> TriangularSolve(const Literal& a, const Literal& b,
                                        const TriangularSolveOptions& options) {
  if (LinearAlgebraComputeType(a.shape().element_type()) == F64) {
    return TypedTriangularSolve<double>(a, b, options);
  }
  return TypedTriangularSolve<float>(a, b, options);
}

}  // namespace mxla::semantics
