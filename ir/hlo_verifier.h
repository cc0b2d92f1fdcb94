// The HLO verifier: checks that a module is well formed, follows the rules
// of a form (ir/hlo_form.h: builder, lowered or fused) and that every
// instruction's declared shape is the one its shape rule gives.
// Every form rejects broadcasts that would stretch a size-1 dimension.
//
// Errors are InvalidArgument; an instruction's error names the computation,
// the instruction, its opcode and, when its metadata records one, the
// builder call that made it, then says what is wrong. Module-level errors
// (no entry, a computation without a root, parameter numbers not 0..n-1, a
// duplicate instruction name) name the module or computation. The
// exception is Internal: an operand whose user list lacks the instruction
// (IR corrupted by a direct edit).
#ifndef MXLA_IR_HLO_VERIFIER_H_
#define MXLA_IR_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "ir/hlo_module.h"
#include "ir/hlo_form.h"

namespace mxla {

// Checks every computation of `module`, reachable or not, and returns the
// first error. Reads only: concurrent calls on a module nobody is changing
// are safe.
absl::Status VerifyModule(const HloModule& module, VerifierMode mode);
// The same against the module's own form (HloModule::form()).
absl::Status VerifyModule(const HloModule& module);

}  // namespace mxla

#endif  // MXLA_IR_HLO_VERIFIER_H_
