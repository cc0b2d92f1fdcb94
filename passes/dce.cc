#include "passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// Everything reachable from the root and the side effects through operands
// (iteratively).
absl::flat_hash_set<HloInstruction*> LiveInstructions(
    const HloComputation& computation) {
  absl::flat_hash_set<HloInstruction*> live;
  std::vector<HloInstruction*> stack = {computation.root_instruction()};
  for (HloInstruction* parameter : computation.parameter_instructions()) {
    stack.push_back(parameter);
  }
  for (HloInstruction* instruction : computation.instructions()) {
    if (HasSideEffect(instruction->opcode())) stack.push_back(instruction);
  }
  while (!stack.empty()) {
    HloInstruction* instruction = stack.back();
    stack.pop_back();
    if (!live.insert(instruction).second) continue;
    for (HloInstruction* operand : instruction->operands()) {
      stack.push_back(operand);
    }
  }
  return live;
}

}  // namespace

absl::StatusOr<bool> RemoveDeadInstructions(HloComputation& computation) {
  absl::flat_hash_set<HloInstruction*> live = LiveInstructions(computation);
  absl::flat_hash_set<HloInstruction*> dead;
  for (HloInstruction* instruction : computation.instructions()) {
    if (!live.contains(instruction)) dead.insert(instruction);
  }
  if (dead.empty()) return false;
  RETURN_IF_ERROR(computation.RemoveInstructions(dead));
  return true;
}

absl::StatusOr<bool> DcePass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    ASSIGN_OR_RETURN(bool removed, RemoveDeadInstructions(*computation));
    changed |= removed;
  }
  size_t before = module.computations().size();
  module.RemoveUnusedComputations();
  return changed || module.computations().size() != before;
}

}  // namespace mxla
