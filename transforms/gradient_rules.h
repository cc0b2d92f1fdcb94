// Reverse-mode rules, one per op of the op table (ir/hlo_ops.def): given
// an instruction's primal operands and result and the cotangent of its
// result, the cotangent of each operand. The rules are written with the
// builder's ops against the HLO op, so every client (the C++ Gradient, the
// Python tracer) shares them. Dispatch goes through VisitOp
// (ir/hlo_op_visitor.h): an op added to the table without a rule here
// fails to compile.
#ifndef MXLA_TRANSFORMS_GRADIENT_RULES_H_
#define MXLA_TRANSFORMS_GRADIENT_RULES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/hlo_instruction.h"

namespace mxla {

// What a rule sees of one instruction, in the builder that holds the
// gradient: its primal operand values and result, and the cotangent of its
// result (same shape as the result).
struct GradientContext {
  XlaBuilder& builder;
  const HloInstruction& instruction;
  std::vector<XlaOp> operands;
  XlaOp result;
  XlaOp cotangent;
};

// One cotangent per operand, in operand order; an invalid XlaOp where no
// cotangent flows (an index, a predicate, a constant).
using OperandCotangents = std::vector<XlaOp>;

// The cotangents of `context.instruction`'s operands. Unimplemented, naming
// the op and the instruction, for an op with no rule yet; InvalidArgument
// for one that has no derivative (a bitcast between types). Errors the
// rule's ops record stay in the builder.
absl::StatusOr<OperandCotangents> OperandCotangentsOf(
    const GradientContext& context);

// Whether OperandCotangentsOf has a rule for `opcode` (for the test that
// enumerates the table, and for docs/autodiff.md).
bool HasGradientRule(HloOpcode opcode);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_GRADIENT_RULES_H_
