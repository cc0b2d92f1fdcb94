// Reverse-mode rules, one per op of the op table (ir/hlo_ops.def): given
// an instruction's primal operands and result and the cotangent of its
// result, the cotangent of each operand. The rules are written with the
// builder's ops against the HLO op, so every client (the C++ Gradient, the
// Python tracer) shares them. Dispatch goes through VisitOp
// (ir/hlo_op_visitor.h): an op added to the table without a rule here
// fails to compile.
#ifndef MXLA_TRANSFORMS_GRADIENT_RULES_H_
#define MXLA_TRANSFORMS_GRADIENT_RULES_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/hlo_instruction.h"

namespace mxla {

// The cotangent of one value: an array's (an invalid XlaOp where none
// flows), or a tuple's, element by element (JAX's tuple of cotangents,
// with nothing where no cotangent reached an element: a rule that needs
// every element makes zeros of those).
struct Cotangent {
  Cotangent() = default;
  Cotangent(XlaOp array) : array(array) {}  // an array's, implicitly
  static Cotangent OfTuple(std::vector<Cotangent> elements) {
    Cotangent tuple;
    tuple.is_tuple = true;
    tuple.elements = std::move(elements);
    return tuple;
  }
  // Whether any cotangent flows in it.
  bool valid() const {
    if (!is_tuple) return array.valid();
    for (const Cotangent& element : elements) {
      if (element.valid()) return true;
    }
    return false;
  }

  bool is_tuple = false;
  XlaOp array;                      // when !is_tuple
  std::vector<Cotangent> elements;  // when is_tuple
};

// What a rule sees of one instruction, in the builder that holds the
// gradient: its primal operand values and result, and the cotangent of its
// result: `cotangent` (same shape as the result) for an array result,
// `tuple_cotangent` (one per element) for a tuple result.
struct GradientContext {
  XlaBuilder& builder;
  const HloInstruction& instruction;
  std::vector<XlaOp> operands;
  XlaOp result;
  XlaOp cotangent;
  std::vector<Cotangent> tuple_cotangent = {};
};

// One cotangent per operand, in operand order; an invalid one where no
// cotangent flows (an index, a predicate, a constant).
using OperandCotangents = std::vector<Cotangent>;

// The cotangents of `context.instruction`'s operands. Unimplemented, naming
// the op and the instruction (and why, where there is a reason), for an op
// or a form with no rule; an op whose derivative is zero as JAX decides (a
// bitcast between types) gives its operands none. Errors the rule's ops
// record stay in the builder.
absl::StatusOr<OperandCotangents> OperandCotangentsOf(
    const GradientContext& context);

// Whether OperandCotangentsOf has a rule for `opcode` (for the test that
// enumerates the table, and for docs/autodiff.md).
bool HasGradientRule(HloOpcode opcode);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_GRADIENT_RULES_H_
