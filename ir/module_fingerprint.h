// Module identity for caches. FingerprintModule hashes, and IdenticalModules
// compares, everything a module's HLO text states except metadata: the
// module's name and input_output_alias; the computations in order, with
// their names, which one is the entry, and their roots; and each
// computation's instructions in order, with their names, opcodes, shapes,
// attributes (literals bitwise, so every constant value counts), operands
// (by position) and called computations (by position). Modules
// IdenticalModules calls equal compile to the same code, and their
// fingerprints are equal.
//
// Both are iterative and linear in the module's size (no text is printed).
// A fingerprint is a 64-bit absl::Hash, not stable across processes: equal
// fingerprints make a match likely, and IdenticalModules confirms it.
#ifndef MXLA_IR_MODULE_FINGERPRINT_H_
#define MXLA_IR_MODULE_FINGERPRINT_H_

#include <cstdint>

#include "ir/hlo_module.h"

namespace mxla {

uint64_t FingerprintModule(const HloModule& module);

bool IdenticalModules(const HloModule& a, const HloModule& b);

}  // namespace mxla

#endif  // MXLA_IR_MODULE_FINGERPRINT_H_
