// Operand reuse: whether evaluating every element of an instruction (or of a
// fused computation) once reads some element of an operand more than once.
// Fusion uses it the way XLA's instruction fusion uses ReusesOperandElements:
// an expensive producer (IsExpensiveElementwise) fused into a consumer that
// reuses its elements would be recomputed once per read, so it is given its
// own fusion instead and its result is read from memory.
//
// Of the fusible ops only a broadcast that grows (more result elements than
// operand elements) reuses its operand, and a dot (packed once per block of
// the other operand) always does. Elementwise ops, reshape, transpose
// and a reduce's inputs read each element once per result element that
// needs it; a reduce's init value is treated like XLA treats it, as a use.
#ifndef MXLA_PASSES_OPERAND_REUSE_H_
#define MXLA_PASSES_OPERAND_REUSE_H_

#include <cstdint>

#include "ir/hlo_instruction.h"

namespace mxla {

// Whether `instruction` reads some element of its operand `operand_index`
// (in range) more than once.
bool ReusesOperandElements(const HloInstruction& instruction,
                           int64_t operand_index);

// Whether some path from `value` through its users (in a fused
// computation: up to the root) crosses an instruction that reuses the
// elements it reads, so that evaluating the users' elements once each
// reads some element of `value` more than once. Iterative; linear in the
// number of instructions reached.
bool ReusedAlongUsers(const HloInstruction& value);

}  // namespace mxla

#endif  // MXLA_PASSES_OPERAND_REUSE_H_
