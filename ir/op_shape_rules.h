// The verifier's shape rule of every op (the `shape_rule` column of
// ir/hlo_ops.def): the shape an instruction must have given its operands
// and attributes, or InvalidArgument saying why it has none. Each adapts
// the instruction to ShapeInference; rules whose checks are not a shape
// computation (parameter, iota, broadcast) check and return the declared
// shape. Past HloForm::kBuilder the elementwise rules also reject implicit
// broadcasts.
#ifndef MXLA_IR_OP_SHAPE_RULES_H_
#define MXLA_IR_OP_SHAPE_RULES_H_

#include "absl/status/statusor.h"
#include "ir/shape.h"
#include "ir/hlo_form.h"

namespace mxla {

class HloInstruction;

namespace shape_rules {

// One declaration per op, from the table's shape_rule column (an op's rule
// shared with others is declared again, which C++ allows).
#define MXLA_HLO_OP(e, text, category, arity, attributes, shape_rule, ...) \
  absl::StatusOr<Shape> shape_rule(const HloInstruction& instruction,     \
                                   VerifierMode mode);
#include "ir/hlo_ops.def"

}  // namespace shape_rules
}  // namespace mxla

#endif  // MXLA_IR_OP_SHAPE_RULES_H_
