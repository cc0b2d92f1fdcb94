#include "passes/simplify.h"

#include "ir/status_macros.h"
#include "passes/simplify_rules.h"

namespace mxla {

absl::StatusOr<bool> SimplifyPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      for (const simplify::NamedRule& rule : simplify::Rules()) {
        ASSIGN_OR_RETURN(HloInstruction * replacement, rule.rule(instruction));
        if (replacement == nullptr || replacement == instruction) continue;
        computation->ReplaceInstruction(instruction, replacement);
        changed = true;
        break;
      }
    }
  }
  return changed;
}

}  // namespace mxla
