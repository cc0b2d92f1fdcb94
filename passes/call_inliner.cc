#include "passes/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_set.h"

#include "ir/hlo_clone.h"
#include "ir/op_spec.h"
#include "passes/fusion_planning.h"
#include "ir/status_macros.h"

namespace mxla {

absl::Status InlineCall(HloComputation& computation, HloInstruction* call) {
  RET_CHECK((call->opcode() == HloOpcode::kCall ||
             call->opcode() == HloOpcode::kFusion) &&
            call->to_apply() != nullptr);
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

namespace {

// Whether mxla can emit `fusion` as it is: its body fuses, and planning
// finds a plan for it.
bool CanEmitAsIs(const HloInstruction& fusion,
                 const FusionPlanningOptions& options) {
  if (fusion.fusion_kind() == FusionKind::kCustom) return false;
  for (const HloInstruction* instruction :
       fusion.to_apply()->instructions()) {
    const HloOpcode opcode = instruction->opcode();
    const bool fuses =
        GetOpSpec(opcode).fusion == FusionClass::kFusible ||
        opcode == HloOpcode::kParameter || opcode == HloOpcode::kConstant;
    if (!fuses) return false;
  }
  return PlanFusion(fusion, options).ok();
}

}  // namespace

absl::StatusOr<bool> UnplannableFusionInlinerPass::Run(HloModule& module) {
  bool changed = false;
  bool inlined = true;
  while (inlined) {  // an inlined body may bring fusions of its own
    inlined = false;
    absl::flat_hash_set<const HloComputation*> fused_bodies;
    for (const HloComputation* computation : module.computations()) {
      for (const HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() == HloOpcode::kFusion) {
          fused_bodies.insert(instruction->to_apply());
        }
      }
    }
    for (HloComputation* computation : module.computations()) {
      if (fused_bodies.contains(computation)) continue;
      for (HloInstruction* instruction :
           computation->MakeInstructionPostOrder()) {
        if (instruction->opcode() != HloOpcode::kFusion ||
            instruction->fusion_plan() != nullptr ||
            CanEmitAsIs(*instruction, options_)) {
          continue;
        }
        RETURN_IF_ERROR(InlineCall(*computation, instruction));
        inlined = changed = true;
      }
    }
  }
  return changed;
}

}  // namespace mxla
