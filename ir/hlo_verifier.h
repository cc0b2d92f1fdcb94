// The HLO verifier: checks that a module is well formed and that every
// instruction's declared shape is the one shape inference gives.
//
// Two modes:
//   kBuilder  the builder's form: a binary elementwise op may carry
//             broadcast_dimensions and operands whose shapes differ from its
//             result (as long as shape inference accepts them); select may
//             take scalar operands;
//   kLowered  XLA's HLO rules: every elementwise op's operands have exactly
//             its result dimensions, no instruction carries
//             broadcast_dimensions, every broadcast maps sizes exactly.
// Both modes reject broadcasts that would stretch a size-1 dimension, and
// check a planned fusion's plan against its fused computation
// (CheckFusionPlan in ir/fusion_plan.h).
//
// Errors are InvalidArgument; an instruction's error names the computation,
// the instruction, its opcode and, when its metadata records one, the
// builder call that made it, then says what is wrong. Module-level errors
// (no entry, a computation without a root, parameter numbers not 0..n-1, a
// duplicate instruction name) name the module or computation. The
// exceptions are Internal: an operand whose user list lacks the instruction
// (IR corrupted by a direct edit) and an opcode the verifier does not know.
#ifndef MXLA_IR_HLO_VERIFIER_H_
#define MXLA_IR_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "ir/hlo_module.h"

namespace mxla {

enum class VerifierMode { kBuilder, kLowered };

// Checks every computation of `module`, reachable or not, and returns the
// first error. Reads only: concurrent calls on a module nobody is changing
// are safe.
absl::Status VerifyModule(const HloModule& module, VerifierMode mode);

}  // namespace mxla

#endif  // MXLA_IR_HLO_VERIFIER_H_
