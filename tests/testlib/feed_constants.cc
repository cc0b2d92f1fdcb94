#include "tests/testlib/feed_constants.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/shape_util.h"
#include "passes/simplify.h"

namespace mxla::testing {
namespace {

// Whether the simplify pass folds `instruction` once its operands are
// constants (passes/simplify_rules.cc, FoldConstants).
bool FoldsWhenConstant(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kBroadcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kFusion:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
      return false;
    default:
      return !DependsOnDevice(instruction.opcode()) &&
             instruction.shape().IsArray() &&
             ShapeUtil::ElementsIn(instruction.shape()) <=
                 SimplifyPass::kMaxFoldedElements;
  }
}

}  // namespace

absl::StatusOr<std::vector<Literal>> FeedConstantsAsParameters(
    HloModule& module) {
  HloComputation& entry = *module.entry_computation();
  // Foldable: every operand a constant or foldable itself.
  absl::flat_hash_set<const HloInstruction*> foldable;
  std::vector<HloInstruction*> read;  // constants a foldable op reads
  absl::flat_hash_set<const HloInstruction*> seen;
  for (HloInstruction* instruction : entry.MakeInstructionPostOrder()) {
    if (!FoldsWhenConstant(*instruction)) continue;
    bool all_constant = true;
    for (const HloInstruction* operand : instruction->operands()) {
      all_constant &= operand->opcode() == HloOpcode::kConstant ||
                      foldable.contains(operand);
    }
    if (!all_constant) continue;
    foldable.insert(instruction);
    for (HloInstruction* operand : instruction->operands()) {
      if (operand->opcode() == HloOpcode::kConstant &&
          seen.insert(operand).second) {
        read.push_back(operand);
      }
    }
  }
  std::vector<Literal> values;
  for (HloInstruction* constant : read) {
    HloInstruction* parameter =
        entry.AddInstruction(HloInstruction::CreateParameter(
            entry.num_parameters(), constant->shape(), constant->name()));
    entry.ReplaceInstruction(constant, parameter);
    values.push_back(Literal(constant->literal()));
    absl::Status removed = entry.RemoveInstruction(constant);
    if (!removed.ok()) return removed;
  }
  return values;
}

absl::StatusOr<FedModule> WithConstantsFed(
    const HloModule& module, absl::Span<const Literal* const> arguments) {
  FedModule fed;
  fed.module = module.Clone();
  absl::StatusOr<std::vector<Literal>> constants =
      FeedConstantsAsParameters(*fed.module);
  if (!constants.ok()) return constants.status();
  fed.constants = *std::move(constants);
  fed.arguments.assign(arguments.begin(), arguments.end());
  for (const Literal& value : fed.constants) fed.arguments.push_back(&value);
  return fed;
}

}  // namespace mxla::testing
