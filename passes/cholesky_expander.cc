#include "passes/cholesky_expander.h"

#include <limits>
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

absl::StatusOr<HloInstruction*> ExpandCholesky(HloModule& module,
                                               HloComputation& computation,
                                               HloInstruction* cholesky) {
  ASSIGN_OR_RETURN(const bool lower, cholesky->cholesky_lower());
  const Shape& shape = cholesky->shape();
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(rank - 1);
  const std::vector<int64_t> batch(shape.dimensions().begin(),
                                   shape.dimensions().end() - 2);
  const PrimitiveType compute =
      semantics::LinearAlgebraComputeType(shape.element_type());

  BatchedMatrixBuilder outer(computation, batch);
  HloInstruction* a = outer.Convert(cholesky->mutable_operand(0), compute);
  // An upper factor is the transpose of a^T's lower one.
  if (!lower) a = outer.TransposeMinor(a);
  const Shape matrices = outer.Batched(compute, {n, n});
  const Shape flags = outer.Batched(PRED, {});
  const std::vector<HloInstruction*> factored = expansion::BuildCountedLoop(
      module, computation, cholesky->name(), n,
      {a, outer.Fill(LiteralUtil::CreateR0<float>(0), matrices),
       outer.Fill(LiteralUtil::CreateR0<bool>(false), flags)},
      [&](HloComputation& body, HloInstruction* j,
          const std::vector<HloInstruction*>& state) {
        BatchedMatrixBuilder b(body, batch);
        HloInstruction* l = state[1];
        HloInstruction* s =
            b.Binary(HloOpcode::kSubtract, b.Column(state[0], j),
                     b.MatrixVector(l, b.Row(l, j)));
        HloInstruction* d = b.Unary(HloOpcode::kSqrt, b.Entry(s, j));
        HloInstruction* failed =
            b.Binary(HloOpcode::kOr, state[2],
                     b.Compare(d, d, ComparisonDirection::kNe));
        HloInstruction* diagonal = b.Spread(d, s->shape());
        HloInstruction* column = b.Select(
            b.Positions(n, ComparisonDirection::kGt, j),
            b.Binary(HloOpcode::kDivide, s, diagonal),
            b.Select(b.Positions(n, ComparisonDirection::kEq, j), diagonal,
                     b.Fill(LiteralUtil::CreateR0<float>(0), s->shape())));
        return std::vector<HloInstruction*>{state[0],
                                            b.WithColumn(l, column, j), failed};
      });
  HloInstruction* l = outer.Select(
      outer.Spread(factored[2], matrices),
      outer.Fill(
          LiteralUtil::CreateR0<float>(std::numeric_limits<float>::quiet_NaN()),
          matrices),
      factored[1]);
  if (!lower) l = outer.TransposeMinor(l);
  return outer.Convert(l, shape.element_type());
}

}  // namespace

absl::StatusOr<bool> CholeskyExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(
      module, {HloOpcode::kCholesky},
      [&](HloComputation& computation, HloInstruction* cholesky) {
        return ExpandCholesky(module, computation, cholesky);
      });
}

}  // namespace mxla
