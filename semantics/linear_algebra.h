// cholesky and triangular-solve, defined step by step so that the
// interpreter (here) and the JIT's loops (expand-choleskys,
// expand-triangular-solves) compute the same bits. f16, bf16 and f8
// types compute in f32 and round once at the end; f32 and f64 compute in
// their own type. Each dot below sums in index order from +0, one
// rounded multiply and one rounded add per term, as mxla's dot does.
//
// cholesky (per matrix, n x n; lower=false works on a^T and transposes
// the result): l = 0, then for each column j in order
//   s[i]    = a[i][j] - sum_k l[i][k] * l[j][k]      (all k, all rows i)
//   d       = sqrt(s[j])
//   l[i][j] = s[i] / d below the diagonal, d on it, 0 above
// and a matrix with any NaN d (not positive definite) becomes all NaN.
// Only a's lower triangle reaches the result.
//
// triangular-solve: t = op(a) (a or a^T), transposed once more for a
// right-side solve (x op(a) = b is op(a)^T x^T = b^T, solved for x^T);
// t is then lower or upper triangular and row i of x, taken from the
// first row to the last (lower) or the last to the first (upper), is
//   x[i][j] = (b[i][j] - sum_k t'[i][k] * x[k][j]) / t[i][i]
// where t' keeps t's strictly lower (upper) triangle and zeros the rest,
// x starts as 0, and the division is skipped for unit_diagonal.
#ifndef MXLA_SEMANTICS_LINEAR_ALGEBRA_H_
#define MXLA_SEMANTICS_LINEAR_ALGEBRA_H_

#include "absl/status/statusor.h"
#include "ir/linear_algebra.h"
#include "ir/literal.h"

namespace mxla::semantics {

// The type these ops compute in for `type`: f64 for f64, else f32.
PrimitiveType LinearAlgebraComputeType(PrimitiveType type);

absl::StatusOr<Literal> Cholesky(const Literal& a, bool lower);
absl::StatusOr<Literal> TriangularSolve(const Literal& a, const Literal& b,
                                        const TriangularSolveOptions& options);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_LINEAR_ALGEBRA_H_
