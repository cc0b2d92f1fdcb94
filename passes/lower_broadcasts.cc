#include "passes/lower_broadcasts.h"

#include <vector>

#include "ir/status_macros.h"
#include "shape_inference/broadcast_sequence.h"

namespace mxla {
namespace {

// Lowers the operands of one elementwise instruction; true if it changed.
absl::StatusOr<bool> LowerInstruction(HloInstruction* instruction) {
  const Shape& result = instruction->shape();
  std::vector<int64_t> broadcast_dimensions =
      instruction->broadcast_dimensions().value_or(std::vector<int64_t>{});
  bool changed = instruction->broadcast_dimensions().has_value();
  instruction->set_broadcast_dimensions(std::nullopt);
  for (int64_t i = 0; i < instruction->operand_count(); ++i) {
    HloInstruction* operand = instruction->mutable_operand(i);
    if (operand->shape().dimensions() == result.dimensions()) continue;
    BroadcastSequenceOptions options;
    options.metadata = instruction->metadata();
    options.name_hint = operand->name();
    // broadcast_dimensions belong to the lower-rank operand; an equal-rank
    // operand only has degenerate dimensions to expand.
    absl::Span<const int64_t> mapping;
    if (operand->shape().rank() < result.rank()) mapping = broadcast_dimensions;
    ASSIGN_OR_RETURN(HloInstruction * lowered,
                     EmitBroadcastSequence(instruction->parent(), operand,
                                           result.dimensions(), mapping,
                                           options));
    instruction->ReplaceOperandWith(i, lowered);
    changed = true;
  }
  return changed;
}

bool MayBroadcastImplicitly(const HloInstruction& instruction) {
  return IsBinaryElementwise(instruction.opcode()) ||
         instruction.opcode() == HloOpcode::kSelect;
}

}  // namespace

absl::StatusOr<bool> LowerBroadcastsPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (!MayBroadcastImplicitly(*instruction)) continue;
      ASSIGN_OR_RETURN(bool lowered, LowerInstruction(instruction));
      changed |= lowered;
    }
  }
  module.AdvanceForm(HloForm::kLowered);
  return changed;
}

}  // namespace mxla
