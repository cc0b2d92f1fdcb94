#include "passes/call_inliner.h"

#include <vector>

#include "ir/hlo_clone.h"
#include "ir/status_macros.h"

namespace mxla {

absl::Status InlineCall(HloComputation& computation, HloInstruction* call) {
  RET_CHECK(call->opcode() == HloOpcode::kCall && call->to_apply() != nullptr);
  const HloComputation& callee = *call->to_apply();
  RET_CHECK(callee.num_parameters() == call->operand_count());
  InstructionCloneMap clones;
  for (int64_t i = 0; i < call->operand_count(); ++i) {
    clones[callee.parameter_instruction(i)] = call->mutable_operand(i);
  }
  std::vector<HloInstruction*> body;
  for (HloInstruction* instruction : callee.MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kParameter) {
      body.push_back(instruction);
    }
  }
  bool outside = false;
  CloneInstructionsInto(body, computation, clones,
                        [&](HloInstruction* operand) {
                          outside = true;  // unreachable for a valid callee
                          return operand;
                        });
  RET_CHECK(!outside, "call '", call->name(),
            "': its callee uses an instruction of another computation");
  computation.ReplaceInstruction(call, clones.at(callee.root_instruction()));
  return computation.RemoveInstruction(call);
}

absl::StatusOr<bool> CallInlinerPass::Run(HloModule& module) {
  bool changed = false;
  bool inlined = true;
  // Computations call only computations defined before them, so each round
  // strictly shrinks the remaining call depth.
  while (inlined) {
    inlined = false;
    for (HloComputation* computation : module.computations()) {
      for (HloInstruction* instruction :
           computation->MakeInstructionPostOrder()) {
        if (instruction->opcode() != HloOpcode::kCall) continue;
        RETURN_IF_ERROR(InlineCall(*computation, instruction));
        inlined = changed = true;
      }
    }
  }
  return changed;
}

}  // namespace mxla
