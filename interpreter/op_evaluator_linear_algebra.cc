#include "interpreter/hlo_evaluator_index_ops.h"
#include "interpreter/op_evaluator.h"
#include "ir/convolution_dimension_numbers.h"
#include "ir/linear_algebra.h"
#include "ir/status_macros.h"
#include "semantics/batch_norm.h"
#include "semantics/linear_algebra.h"

namespace mxla::hlo_evaluator_internal {

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kDot>) {
  return EvaluateDot(operand(0), operand(1),
                     instruction_.dot_dimension_numbers(), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kRaggedDot>) {
  return EvaluateRaggedDot(operand(0), operand(1), operand(2),
                           instruction_.ragged_dot_dimension_numbers(),
                           shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kScaledDot>) {
  return EvaluateScaledDot(operand(0), operand(1), operand(2), operand(3),
                           instruction_.dot_dimension_numbers(), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kConvolution>) {
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                   instruction_.convolution_dimension_numbers());
  return EvaluateConvolution(operand(0), operand(1), instruction_.window(),
                             dnums, instruction_.feature_group_count(),
                             instruction_.batch_group_count(), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kCholesky>) {
  ASSIGN_OR_RETURN(bool lower, instruction_.cholesky_lower());
  return semantics::Cholesky(operand(0), lower);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kTriangularSolve>) {
  ASSIGN_OR_RETURN(TriangularSolveOptions options,
                   instruction_.triangular_solve_options());
  return semantics::TriangularSolve(operand(0), operand(1), options);
}

OpEvaluator::Result OpEvaluator::BatchNorm() {
  return semantics::EvaluateBatchNorm(instruction_.opcode(), operands_,
                                      instruction_.epsilon(),
                                      instruction_.feature_index(), shape());
}

}  // namespace mxla::hlo_evaluator_internal
