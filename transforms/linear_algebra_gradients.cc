// Gradient rules of cholesky and triangular-solve, with JAX's formulas
// (_cholesky_jvp_rule transposed, _triangular_solve_transpose_rule and
// its jvp for the matrix), over any batch dimensions.
//
// cholesky (lower): a = l l^T read from a's lower triangle. With
// Φ(m) = the lower triangle of m with its diagonal halved, the cotangent
// of the symmetric matrix is s = l^-T Φ(l^T tril(l̄)) l^-1 (two triangular
// solves), and since an element below the diagonal stands for itself and
// its mirror, a's is Φ(s + s^T), zero above the diagonal as the op never
// reads it. The upper form is the lower one of the transposes.
//
// triangular-solve: x = op(a)^-1 b (left side) or b op(a)^-1. b's
// cotangent solves the transposed system with x's, b̄ = op(a)^-T x̄; op(a)'s
// is -b̄ x^T (left) or -x^T b̄ (right), a's that or its transpose, kept on
// the triangle the op reads (without the diagonal for a unit diagonal).
#include <cstdint>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/dot_dimension_numbers.h"
#include "ir/linear_algebra.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

using SolveTranspose = TriangularSolveTranspose;

// `x` with its last two dimensions swapped.
XlaOp MatrixTranspose(XlaOp x) {
  const int64_t rank = ShapeOf(x).rank();
  std::vector<int64_t> permutation(rank);
  for (int64_t d = 0; d < rank; ++d) permutation[d] = d;
  std::swap(permutation[rank - 1], permutation[rank - 2]);
  return Transpose(x, permutation);
}

// [..., m, k] x [..., k, n] -> [..., m, n].
XlaOp BatchMatMul(XlaOp lhs, XlaOp rhs) {
  const int64_t rank = ShapeOf(lhs).rank();
  DotDimensionNumbers dnums;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    dnums.lhs_batch.push_back(d);
    dnums.rhs_batch.push_back(d);
  }
  dnums.lhs_contracting = {rank - 1};
  dnums.rhs_contracting = {rank - 2};
  return DotGeneral(lhs, rhs, dnums);
}

// Row minus column index of each element of x's last two dimensions.
XlaOp RowMinusColumn(XlaOp x) {
  const Shape shape = ShapeOf(x);
  const Shape indices = ShapeUtil::MakeShape(S64, shape.dimensions());
  return Iota(x.builder(), indices, shape.rank() - 2) -
         Iota(x.builder(), indices, shape.rank() - 1);
}

// x on the lower (upper) triangle, zero elsewhere; without the diagonal
// when `strict`.
XlaOp Triangle(XlaOp x, bool lower, bool strict) {
  const XlaOp offset = RowMinusColumn(x);
  const XlaOp zero = Filled(offset, 0);
  const XlaOp kept = lower ? (strict ? Gt(offset, zero) : Ge(offset, zero))
                           : (strict ? Lt(offset, zero) : Le(offset, zero));
  return Select(kept, x, Filled(x, 0));
}

// Φ: the lower triangle with its diagonal halved.
XlaOp Phi(XlaOp x) {
  const XlaOp offset = RowMinusColumn(x);
  const XlaOp on_diagonal = Eq(offset, Filled(offset, 0));
  return Select(on_diagonal, x * Filled(x, 0.5), Triangle(x, true, true));
}

XlaOp Solve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal,
            SolveTranspose transpose) {
  return TriangularSolve(a, b, left_side, lower, unit_diagonal, transpose);
}

// a's cotangent for lower cholesky l of a, given l's.
XlaOp LowerCholeskyCotangent(XlaOp l, XlaOp l_bar) {
  const XlaOp p =
      Phi(BatchMatMul(MatrixTranspose(l), Triangle(l_bar, true, false)));
  // s = l^-T p l^-1: l^T y = p, then s l = y.
  const XlaOp y = Solve(l, p, true, true, false, SolveTranspose::kTranspose);
  const XlaOp s = Solve(l, y, false, true, false, SolveTranspose::kNoTranspose);
  return Phi(s + MatrixTranspose(s));
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kCholesky>,
                             const GradientContext& context) {
  ASSIGN_OR_RETURN(bool lower, context.instruction.cholesky_lower());
  if (lower) {
    return OperandCotangents{
        LowerCholeskyCotangent(context.result, context.cotangent)};
  }
  // u = l^T with l the lower factor of a^T.
  const XlaOp a_t_bar = LowerCholeskyCotangent(
      MatrixTranspose(context.result), MatrixTranspose(context.cotangent));
  return OperandCotangents{MatrixTranspose(a_t_bar)};
}

Result GradientRules::Handle(OpTag<Op::kTriangularSolve>,
                             const GradientContext& context) {
  ASSIGN_OR_RETURN(TriangularSolveOptions options,
                   context.instruction.triangular_solve_options());
  const XlaOp a = context.operands[0];
  const XlaOp x = context.result;
  const SolveTranspose flipped = options.transposes()
                                     ? SolveTranspose::kNoTranspose
                                     : SolveTranspose::kTranspose;
  const XlaOp b_bar = Solve(a, context.cotangent, options.left_side,
                            options.lower, options.unit_diagonal, flipped);
  const XlaOp op_a_bar =
      -(options.left_side ? BatchMatMul(b_bar, MatrixTranspose(x))
                          : BatchMatMul(MatrixTranspose(x), b_bar));
  const XlaOp a_bar =
      options.transposes() ? MatrixTranspose(op_a_bar) : op_a_bar;
  return OperandCotangents{
      Triangle(a_bar, options.lower, options.unit_diagonal), b_bar};
}

}  // namespace mxla::gradient_rules
