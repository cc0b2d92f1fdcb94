// cholesky and triangular-solve: their options (their shape rules are
// shape_inference/linear_algebra_shape_inference.cc).
//
//   cholesky(a), lower=true         a [..., n, n]: l, lower triangular,
//                                   with a = l l^T, read from a's lower
//                                   triangle (lower=false: u, upper, with
//                                   a = u^T u, read from the upper one).
//   triangular-solve(a, b)          a [..., m, m] triangular (its `lower`
//                                   or upper triangle is read; the
//                                   diagonal too unless unit_diagonal):
//                                   x with op(a) x = b (left_side, b
//                                   [..., m, n]) or x op(a) = b (b
//                                   [..., n, m]); op(a) is a or a^T
//                                   (transpose_a).
//
// The arithmetic, exactly as both backends compute it, is in
// semantics/linear_algebra.h.
#ifndef MXLA_IR_LINEAR_ALGEBRA_H_
#define MXLA_IR_LINEAR_ALGEBRA_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

// transpose_a: op(a) = a, a^T, or a's conjugate transpose, which is a^T
// for real types (mxla has no complex types).
enum class TriangularSolveTranspose { kNoTranspose, kTranspose, kAdjoint };

// "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT": XLA's spelling.
absl::string_view TriangularSolveTransposeString(
    TriangularSolveTranspose transpose);
absl::StatusOr<TriangularSolveTranspose> StringToTriangularSolveTranspose(
    absl::string_view text);

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kNoTranspose;

  bool transposes() const {
    return transpose_a != TriangularSolveTranspose::kNoTranspose;
  }
};

}  // namespace mxla

#endif  // MXLA_IR_LINEAR_ALGEBRA_H_
