#include "passes/map_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// The map's computation on arrays of the map's dimensions, added to the
// map's computation; returns its root.
absl::StatusOr<HloInstruction*> InlineMap(HloInstruction* map) {
  HloComputation& caller = *map->parent();
  const HloComputation& body = *map->to_apply();
  absl::Span<const int64_t> dims = map->shape().dimensions();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (const HloInstruction* instruction : body.MakeInstructionPostOrder()) {
    const Shape shape =
        ShapeUtil::MakeShape(instruction->shape().element_type(), dims);
    HloInstruction* value = nullptr;
    if (instruction->opcode() == HloOpcode::kParameter) {
      value = map->mutable_operand(instruction->parameter_number());
    } else if (instruction->opcode() == HloOpcode::kConstant) {
      HloInstruction* scalar = caller.AddInstruction(
          HloInstruction::CreateConstant(instruction->literal()));
      value = caller.AddInstruction(
          HloInstruction::CreateBroadcast(shape, scalar, {}));
    } else if (IsElementwise(instruction->opcode()) &&
               !instruction->broadcast_dimensions().has_value()) {
      std::vector<HloInstruction*> operands;
      for (const HloInstruction* operand : instruction->operands()) {
        operands.push_back(mapped.at(operand));
      }
      value = caller.AddInstruction(
          instruction->CloneWithNewOperands(shape, operands));
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "map '", map->name(), "': the JIT runs a map whose computation is "
          "elementwise, but '", instruction->name(), "' (",
          HloOpcodeString(instruction->opcode()), ") in '", body.name(),
          "' is not"));
    }
    value->set_metadata(map->metadata());
    mapped[instruction] = value;
  }
  return mapped.at(body.root_instruction());
}

}  // namespace

absl::StatusOr<bool> MapInlinerPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kMap) continue;
      ASSIGN_OR_RETURN(HloInstruction * root, InlineMap(instruction));
      computation->ReplaceInstruction(instruction, root);
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
