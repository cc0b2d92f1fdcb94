// A reducer computation that is one binary op on its two scalar
// parameters (the sums, products, maxima and minima of reduce and
// all-reduce): the interpreter then combines elements with a typed loop
// over the scalar semantics (semantics/scalar_semantics.h) instead of
// evaluating the computation once per element on scalar literals, which
// allocates for every element. Both give the same bits: the same op on the
// same values in the same order.
#ifndef MXLA_INTERPRETER_BINARY_REDUCER_H_
#define MXLA_INTERPRETER_BINARY_REDUCER_H_

#include <optional>

#include "ir/hlo_computation.h"
#include "ir/hlo_opcode.h"
#include "ir/primitive_type.h"

namespace mxla::hlo_evaluator_internal {

struct BinaryReducer {
  HloOpcode opcode;
  // The root is op(parameter 1, parameter 0): op(element, accumulator).
  bool swapped = false;
};

// The one op of `reducer` when its root is a binary op whose operands are
// its parameters 0 and 1 (either order), all scalars of `type`; nullopt
// for anything else, including an unverified reducer without a root.
std::optional<BinaryReducer> AsBinaryReducer(const HloComputation& reducer,
                                             PrimitiveType type);

}  // namespace mxla::hlo_evaluator_internal

#endif  // MXLA_INTERPRETER_BINARY_REDUCER_H_
