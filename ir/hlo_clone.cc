#include "ir/hlo_clone.h"

#include <memory>
#include <vector>

namespace mxla {

void CloneInstructionsInto(
    absl::Span<HloInstruction* const> instructions, HloComputation& target,
    InstructionCloneMap& clones,
    absl::FunctionRef<HloInstruction*(HloInstruction*)> outside_operand,
    const ComputationCloneMap* callees) {
  for (const HloInstruction* instruction : instructions) {
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (HloInstruction* operand : instruction->operands()) {
      auto it = clones.find(operand);
      if (it == clones.end()) {
        it = clones.emplace(operand, outside_operand(operand)).first;
      }
      operands.push_back(it->second);
    }
    std::unique_ptr<HloInstruction> clone =
        instruction->CloneWithNewOperands(instruction->shape(), operands);
    if (callees != nullptr) {
      std::vector<HloComputation*> mapped;
      for (HloComputation* callee : instruction->called_computations()) {
        mapped.push_back(callees->at(callee));
      }
      clone->set_called_computations(std::move(mapped));
    }
    clones[instruction] = target.AddInstruction(std::move(clone));
  }
}

}  // namespace mxla
