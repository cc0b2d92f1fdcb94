#include "passes/cse.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace mxla {

size_t CseHash(const HloInstruction& instruction) {
  // Operands and callees by identity, as IdenticalIgnoringName compares
  // them; the attribute hash covers literals by value, so N distinct
  // constants land in N buckets rather than one.
  return absl::HashOf(instruction.AttributeHash(), instruction.operands(),
                      instruction.called_computations());
}

absl::StatusOr<bool> CsePass::Run(HloModule& module) {
  bool changed = false;
  comparisons_ = 0;
  for (HloComputation* computation : module.computations()) {
    absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      // Two rngs of the same parameters draw different numbers (their
      // names differ).
      if (instruction->opcode() == HloOpcode::kParameter ||
          instruction->opcode() == HloOpcode::kRng ||
          HasSideEffect(instruction->opcode())) {
        continue;
      }
      std::vector<HloInstruction*>& bucket = seen[CseHash(*instruction)];
      HloInstruction* twin = nullptr;
      for (HloInstruction* candidate : bucket) {
        ++comparisons_;
        if (candidate->IdenticalIgnoringName(*instruction)) {
          twin = candidate;
          break;
        }
      }
      if (twin == nullptr) {
        bucket.push_back(instruction);
        continue;
      }
      computation->ReplaceInstruction(instruction, twin);
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
