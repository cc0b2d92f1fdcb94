#include "interpreter/op_evaluator.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "semantics/batch_norm.h"
#include "semantics/bit_generators.h"
#include "semantics/bit_ops.h"
#include "semantics/linear_algebra.h"
#include "semantics/index_walk.h"
#include "semantics/random_numbers.h"
#include "semantics/scalar_semantics.h"
#include "semantics/scatter_elements.h"
#include "semantics/select_and_scatter.h"
#include "semantics/sort_rows.h"
#include "semantics/stochastic_convert.h"
#include "ir/replica_groups.h"
#include "ir/shape_summary.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// `operand` read at the result's dimensions: itself in lowered HLO, an
// implicit broadcast into `storage` in the builder form.
absl::StatusOr<const Literal*> AtResultDims(
    const Literal& operand, const Shape& result,
    const std::optional<std::vector<int64_t>>& broadcast_dimensions,
    Literal& storage) {
  if (operand.shape().IsArray() &&
      ShapeUtil::SameDimensions(operand.shape(), result)) {
    return &operand;
  }
  ASSIGN_OR_RETURN(storage, ImplicitBroadcast(operand, result.dimensions(),
                                              broadcast_dimensions));
  return &storage;
}

absl::StatusOr<Literal> EvaluateBinary(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  Literal lhs_storage, rhs_storage;
  const auto& dims = instruction.broadcast_dimensions();
  ASSIGN_OR_RETURN(
      const Literal* lhs,
      AtResultDims(*operands[0], instruction.shape(), dims, lhs_storage));
  ASSIGN_OR_RETURN(
      const Literal* rhs,
      AtResultDims(*operands[1], instruction.shape(), dims, rhs_storage));
  if (instruction.opcode() == HloOpcode::kCompare) {
    return semantics::ApplyCompare(instruction.comparison_direction(), *lhs,
                                   *rhs, instruction.total_order_comparison());
  }
  return semantics::ApplyBinaryOp(instruction.opcode(), *lhs, *rhs);
}

// The three operands of select or clamp read at the result's dimensions:
// a scalar among arrays applies everywhere (the builder form of select,
// and clamp's bounds in any form).
struct ThreeAtResult {
  Literal storage[3];
  const Literal* at_result[3];
};

absl::Status ReadThreeAtResult(const HloInstruction& instruction,
                               absl::Span<const Literal* const> operands,
                               ThreeAtResult& three) {
  for (int i = 0; i < 3; ++i) {
    ASSIGN_OR_RETURN(three.at_result[i],
                     AtResultDims(*operands[i], instruction.shape(),
                                  std::nullopt, three.storage[i]));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvaluateSelect(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  ThreeAtResult three;
  RETURN_IF_ERROR(ReadThreeAtResult(instruction, operands, three));
  const Literal* const* at_result = three.at_result;
  return semantics::ApplySelect(*at_result[0], *at_result[1], *at_result[2]);
}

// clamp(min, x, max) = min(max(x, min), max), with maximum's and minimum's
// NaN and signed-zero rules.
absl::StatusOr<Literal> EvaluateClamp(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  ThreeAtResult three;
  RETURN_IF_ERROR(ReadThreeAtResult(instruction, operands, three));
  const Literal* const* at_result = three.at_result;
  ASSIGN_OR_RETURN(Literal low,
                   semantics::ApplyBinaryOp(HloOpcode::kMaximum,
                                            *at_result[1], *at_result[0]));
  return semantics::ApplyBinaryOp(HloOpcode::kMinimum, low, *at_result[2]);
}

}  // namespace

// Unary, binary and compare: the scalar semantics, element by element.
OpEvaluator::Result OpEvaluator::ScalarFunction() {
  if (GetHloOpcodeCategory(instruction_.opcode()) == HloOpcodeCategory::kUnary) {
    return semantics::ApplyUnaryOp(instruction_.opcode(), operand(0));
  }
  return EvaluateBinary(instruction_, operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kSelect>) {
  return EvaluateSelect(instruction_, operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kClamp>) {
  return EvaluateClamp(instruction_, operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kConvert>) {
  return semantics::ApplyConvert(operand(0), shape().element_type());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kIsFinite>) {
  return semantics::ApplyIsFinite(operand(0));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kReducePrecision>) {
  return semantics::ApplyReducePrecision(operand(0),
                                         instruction_.exponent_bits(),
                                         instruction_.mantissa_bits());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kBitcastConvert>) {
  return semantics::ApplyBitcastConvert(operand(0), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kStochasticConvert>) {
  return semantics::StochasticConvert(operand(0), operand(1),
                                      shape().element_type());
}

}  // namespace mxla::hlo_evaluator_internal
