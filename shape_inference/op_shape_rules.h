// The shape rule of every op (the `shape_rule` column of ir/hlo_ops.def),
// which the verifier and the parser apply: the shape an instruction must
// have given its operands and attributes, or InvalidArgument saying why it
// has none. Each adapts
// the instruction to ShapeInference; rules whose checks are not a shape
// computation (parameter, iota, broadcast) check and return the declared
// shape. Past HloForm::kBuilder the elementwise rules also reject implicit
// broadcasts.
#ifndef MXLA_SHAPE_INFERENCE_OP_SHAPE_RULES_H_
#define MXLA_SHAPE_INFERENCE_OP_SHAPE_RULES_H_

#include "absl/status/statusor.h"
#include "ir/hlo_form.h"
#include "ir/hlo_opcode.h"
#include "ir/shape.h"

namespace mxla {

class HloInstruction;

// The shape an instruction must have, given its operands and attributes,
// checked against `mode`'s rules; errors are InvalidArgument.
using ShapeRule = absl::StatusOr<Shape> (*)(const HloInstruction& instruction,
                                            VerifierMode mode);

// The rule the table names for `opcode` (never null: the table is expanded
// into one entry per op, so an op without its rule does not compile).
ShapeRule GetShapeRule(HloOpcode opcode);

// GetShapeRule(instruction.opcode()) applied to `instruction`.
absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction,
                                            VerifierMode mode);

namespace shape_rules {

// One declaration per op, from the table's shape_rule column (an op's rule
// shared with others is declared again, which C++ allows).
#define MXLA_HLO_OP(e, text, category, arity, attributes, shape_rule, ...) \
  absl::StatusOr<Shape> shape_rule(const HloInstruction& instruction,     \
                                   VerifierMode mode);
#include "ir/hlo_ops.def"

}  // namespace shape_rules
}  // namespace mxla

#endif  // MXLA_SHAPE_INFERENCE_OP_SHAPE_RULES_H_
