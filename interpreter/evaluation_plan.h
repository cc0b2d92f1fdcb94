// Internal to the evaluator: a computation prepared for evaluation, and
// running it. Calls to computations that run per element (reducers,
// comparators, combiners) make the plan once and run it many times.
#ifndef MXLA_INTERPRETER_EVALUATION_PLAN_H_
#define MXLA_INTERPRETER_EVALUATION_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/literal.h"

namespace mxla::hlo_evaluator_internal {

// The instructions the root depends on, operands before users, with each
// value's last use, so values can be freed as soon as nothing needs them.
struct Plan {
  // The root last, unless a side effect after it reads it.
  std::vector<const HloInstruction*> order;
  int64_t root = 0;  // Its position in `order`.
  std::vector<std::vector<int64_t>> operand_slots;  // Positions in `order`.
  std::vector<int64_t> last_use;  // Position of the last user; root: size.
};

absl::StatusOr<Plan> MakePlan(const HloComputation& computation);

// Runs a plan on checked arguments; an instruction's error is prefixed
// with its name and opcode.
absl::StatusOr<Literal> RunPlan(const Plan& plan,
                                absl::Span<const Literal* const> arguments,
                                const EvaluatorOptions& options = {});

// One instruction on operand values known to be non-null, one per operand
// (op_evaluator.cc).
absl::StatusOr<Literal> EvaluateOp(const HloInstruction& instruction,
                                   absl::Span<const Literal* const> operands,
                                   const EvaluatorOptions& options);

}  // namespace mxla::hlo_evaluator_internal

#endif  // MXLA_INTERPRETER_EVALUATION_PLAN_H_
