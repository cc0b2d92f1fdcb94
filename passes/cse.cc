#include "passes/cse.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace mxla {
namespace {

// A hash consistent with HloInstruction::IdenticalIgnoringName; collisions
// are resolved by comparing candidates.
size_t InstructionHash(const HloInstruction& instruction) {
  size_t hash = absl::HashOf(static_cast<int>(instruction.opcode()),
                             instruction.shape().ToString(),
                             instruction.dimensions());
  for (const HloInstruction* operand : instruction.operands()) {
    hash = absl::HashOf(hash, operand);
  }
  return hash;
}

}  // namespace

absl::StatusOr<bool> CsePass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() == HloOpcode::kParameter) continue;
      std::vector<HloInstruction*>& bucket =
          seen[InstructionHash(*instruction)];
      HloInstruction* twin = nullptr;
      for (HloInstruction* candidate : bucket) {
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
