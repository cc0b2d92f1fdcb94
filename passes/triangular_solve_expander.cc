#include "passes/triangular_solve_expander.h"

#include <vector>

#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/batched_matrix_builder.h"
#include "passes/counted_loop.h"
#include "passes/expansion_util.h"
#include "semantics/linear_algebra.h"

namespace mxla {
namespace {

using expansion::BatchedMatrixBuilder;

absl::StatusOr<HloInstruction*> ExpandTriangularSolve(
    HloModule& module, HloComputation& computation, HloInstruction* solve) {
  ASSIGN_OR_RETURN(const TriangularSolveOptions options,
                   solve->triangular_solve_options());
  const Shape& shape = solve->shape();
  const int64_t rank = shape.rank();
  const int64_t m = solve->operand(0)->shape().dimensions(rank - 1);
  const std::vector<int64_t> batch(shape.dimensions().begin(),
                                   shape.dimensions().end() - 2);
  const PrimitiveType compute =
      semantics::LinearAlgebraComputeType(shape.element_type());

  BatchedMatrixBuilder outer(computation, batch);
  HloInstruction* t = outer.Convert(solve->mutable_operand(0), compute);
  HloInstruction* b = outer.Convert(solve->mutable_operand(1), compute);
  // t = op(a), transposed again for x op(a) = b, solved as op(a)^T x^T = b^T.
  const bool transpose = options.transposes() != !options.left_side;
  if (transpose) t = outer.TransposeMinor(t);
  if (!options.left_side) b = outer.TransposeMinor(b);
  const bool lower = options.lower != transpose;
  const Shape& solution_shape = b->shape();
  HloInstruction* strict =
      outer.Select(outer.Triangle(m, lower ? ComparisonDirection::kLt
                                           : ComparisonDirection::kGt),
                   t, outer.Fill(LiteralUtil::CreateR0<float>(0), t->shape()));
  const std::vector<HloInstruction*> solved = expansion::BuildCountedLoop(
      module, computation, solve->name(), m,
      {strict, t, b,
       outer.Fill(LiteralUtil::CreateR0<float>(0), solution_shape)},
      [&](HloComputation& body, HloInstruction* step,
          const std::vector<HloInstruction*>& state) {
        BatchedMatrixBuilder builder(body, batch);
        // Rows from the first (lower) or from the last (upper).
        HloInstruction* i =
            lower ? step
                  : builder.Binary(HloOpcode::kSubtract,
                                   builder.Constant<int64_t>(m - 1), step);
        HloInstruction* x = state[3];
        HloInstruction* row =
            builder.Binary(HloOpcode::kSubtract, builder.Row(state[2], i),
                           builder.VectorMatrix(builder.Row(state[0], i), x));
        if (!options.unit_diagonal) {
          HloInstruction* diagonal = builder.Entry(builder.Row(state[1], i), i);
          row = builder.Binary(HloOpcode::kDivide, row,
                               builder.Spread(diagonal, row->shape()));
        }
        return std::vector<HloInstruction*>{state[0], state[1], state[2],
                                            builder.WithRow(x, row, i)};
      });
  HloInstruction* x = solved[3];
  if (!options.left_side) x = outer.TransposeMinor(x);
  return outer.Convert(x, shape.element_type());
}

}  // namespace

absl::StatusOr<bool> TriangularSolveExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(
      module, {HloOpcode::kTriangularSolve},
      [&](HloComputation& computation, HloInstruction* solve) {
        return ExpandTriangularSolve(module, computation, solve);
      });
}

}  // namespace mxla
