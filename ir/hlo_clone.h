// Cloning instructions into a computation: the one loop behind module
// cloning, fusion and row fusion (each instruction is copied by
// HloInstruction::CloneWithNewOperands).
#ifndef MXLA_IR_HLO_CLONE_H_
#define MXLA_IR_HLO_CLONE_H_

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ir/hlo_computation.h"

namespace mxla {

using InstructionCloneMap =
    absl::flat_hash_map<const HloInstruction*, HloInstruction*>;
using ComputationCloneMap =
    absl::flat_hash_map<const HloComputation*, HloComputation*>;

// Adds a clone of each of `instructions` (every one after its operands) to
// `target`, with the same shape, name (made unique in `target`'s module as
// AddInstruction does), attributes and metadata, and records it in
// `clones`. An operand is replaced by its entry in `clones`; one with no
// entry is passed to `outside_operand`, whose result replaces it and is
// recorded. Called computations are replaced through `callees` when it is
// given, else kept.
void CloneInstructionsInto(
    absl::Span<HloInstruction* const> instructions, HloComputation& target,
    InstructionCloneMap& clones,
    absl::FunctionRef<HloInstruction*(HloInstruction*)> outside_operand,
    const ComputationCloneMap* callees = nullptr);

}  // namespace mxla

#endif  // MXLA_IR_HLO_CLONE_H_
