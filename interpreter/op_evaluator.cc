#include "interpreter/op_evaluator.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/evaluation_plan.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

absl::StatusOr<Literal> EvaluateOp(const HloInstruction& instruction,
                                   absl::Span<const Literal* const> operands,
                                   const EvaluatorOptions& options) {
  const int64_t arity = HloOpcodeArity(instruction.opcode());
  RET_CHECK(arity < 0 || static_cast<int64_t>(operands.size()) == arity,
            "expected ", arity, " operands, got ", operands.size());
  OpEvaluator evaluator(instruction, operands, options);
  absl::StatusOr<Literal> result = VisitOp<absl::StatusOr<Literal>>(
      evaluator, instruction.opcode());
  // Catches malformed (unverified) instructions, not evaluator logic.
  if (result.ok() && result->shape() != instruction.shape()) {
    return absl::InternalError(absl::StrCat(
        "computed a value of shape ", result->shape().ToString(),
        " but the instruction's shape is ", instruction.shape().ToString()));
  }
  return result;
}

}  // namespace mxla::hlo_evaluator_internal
