#include "passes/row_fusion.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_clone.h"
#include "ir/status_macros.h"
#include "passes/fusion_cost_model.h"
#include "passes/fusion_planning.h"
#include "passes/operand_reuse.h"
#include "passes/row_fusion_analysis.h"

namespace mxla {
namespace {

bool HasReduce(const HloComputation& computation) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (instruction->opcode() == HloOpcode::kReduce) return true;
  }
  return false;
}

// Whether inlining `body` into a row kernel would redo expensive work for
// every read of its result. The kernel computes a value that depends on a
// reduce once per row (a register), and a reduce's inputs once per element
// in its loop; any other value is computed at each index read. So: an
// expensive op reached from the root without entering a reduce's inputs,
// and not itself computed from a reduce.
bool RecomputesExpensiveWork(const HloComputation& body) {
  absl::flat_hash_set<const HloInstruction*> after_reduce;
  for (const HloInstruction* instruction : body.MakeInstructionPostOrder()) {
    bool after = instruction->opcode() == HloOpcode::kReduce;
    for (const HloInstruction* operand : instruction->operands()) {
      after = after || after_reduce.contains(operand);
    }
    if (after) after_reduce.insert(instruction);
  }
  std::vector<const HloInstruction*> stack = {body.root_instruction()};
  absl::flat_hash_set<const HloInstruction*> visited;
  while (!stack.empty()) {
    const HloInstruction* instruction = stack.back();
    stack.pop_back();
    if (!visited.insert(instruction).second ||
        instruction->opcode() == HloOpcode::kReduce) {
      continue;
    }
    if (IsExpensiveProducer(*instruction) &&
        !after_reduce.contains(instruction)) {
      return true;
    }
    for (const HloInstruction* operand : instruction->operands()) {
      stack.push_back(operand);
    }
  }
  return false;
}

// Whether `consumer`'s body reads some element of `producer` more than once.
bool ReusesProducer(const HloInstruction& producer,
                    const HloInstruction& consumer) {
  const HloComputation& body = *consumer.to_apply();
  for (int64_t i = 0; i < consumer.operand_count(); ++i) {
    if (consumer.operand(i) == &producer &&
        ReusedAlongUsers(*body.parameter_instruction(i))) {
      return true;
    }
  }
  return false;
}

// Whether `producer` may disappear into `consumer`: a fusion with one array
// result that nothing else reads, and not expensive work the consumer would
// redo per read (fusion's rule, passes/fusion.h). A dot kernel (kOutput)
// merges only into a row fusion of its rows (a row dot, checked on the
// merged body): its epilogue is applied per tile, its product per block.
bool Mergeable(const HloInstruction& producer, const HloInstruction& consumer) {
  if (producer.opcode() != HloOpcode::kFusion || producer.shape().IsTuple() ||
      consumer.fusion_kind() == FusionKind::kOutput) {
    return false;
  }
  for (const HloInstruction* user : producer.users()) {
    if (user != &consumer) return false;
  }
  if (!HasReduce(*producer.to_apply()) && !HasReduce(*consumer.to_apply())) {
    return false;
  }
  return !(RecomputesExpensiveWork(*producer.to_apply()) &&
           ReusesProducer(producer, consumer));
}

// Builds the body of `consumer` with `producer`'s body inlined in place of
// the parameter that reads it. Entry values read by either become the
// parameters, once each, consumer's first.
struct MergedBody {
  HloComputation* computation;
  std::vector<HloInstruction*> operands;
};

MergedBody Merge(HloModule& module, const HloInstruction& producer,
                 const HloInstruction& consumer) {
  MergedBody merged{module.AddComputation("fused_computation", false), {}};
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> parameter_of;
  auto parameter_for = [&](HloInstruction* entry_value) {
    auto [it, added] = parameter_of.try_emplace(entry_value, nullptr);
    if (added) {
      const int64_t number = merged.operands.size();
      it->second = merged.computation->AddInstruction(
          HloInstruction::CreateParameter(number, entry_value->shape(),
                                          absl::StrCat("param_", number)));
      merged.operands.push_back(entry_value);
    }
    return it->second;
  };
  for (HloInstruction* operand : consumer.operands()) {
    if (operand != &producer) parameter_for(operand);
  }
  // Clones `body` with its parameters bound to `bindings`; returns its root.
  auto inline_body = [&](const HloComputation& body,
                         const std::vector<HloInstruction*>& bindings) {
    InstructionCloneMap clones;
    std::vector<HloInstruction*> members;
    for (HloInstruction* instruction : body.MakeInstructionPostOrder()) {
      if (instruction->opcode() == HloOpcode::kParameter) {
        clones[instruction] = bindings[instruction->parameter_number()];
      } else {
        members.push_back(instruction);
      }
    }
    CloneInstructionsInto(
        members, *merged.computation, clones,
        [](HloInstruction*) -> HloInstruction* { return nullptr; });
    return clones.at(body.root_instruction());
  };
  std::vector<HloInstruction*> producer_bindings;
  for (HloInstruction* operand : producer.operands()) {
    producer_bindings.push_back(parameter_for(operand));
  }
  HloInstruction* producer_root =
      inline_body(*producer.to_apply(), producer_bindings);
  std::vector<HloInstruction*> consumer_bindings;
  for (HloInstruction* operand : consumer.operands()) {
    consumer_bindings.push_back(operand == &producer ? producer_root
                                                     : parameter_for(operand));
  }
  merged.computation->set_root_instruction(
      inline_body(*consumer.to_apply(), consumer_bindings));
  return merged;
}

// Tries to merge one of `consumer`'s producers into it; returns the new
// fusion, or nullptr if none qualifies.
absl::StatusOr<HloInstruction*> MergeOneProducer(HloModule& module,
                                                 HloInstruction* consumer) {
  HloComputation* entry = module.entry_computation();
  for (HloInstruction* producer : consumer->operands()) {
    if (!Mergeable(*producer, *consumer)) continue;
    MergedBody merged = Merge(module, *producer, *consumer);
    if (!AnalyzeRowFusion(*merged.computation).ok()) continue;
    const bool row_dot = producer->fusion_kind() == FusionKind::kOutput;
    if (row_dot && !RowDotFits(*merged.computation)) continue;
    std::unique_ptr<HloInstruction> created = HloInstruction::CreateFusion(
        consumer->shape(), row_dot ? FusionKind::kOutput : FusionKind::kInput,
        merged.operands, merged.computation);
    // Named before it is added, so the module makes the name unique
    // (renaming it afterwards could duplicate another fusion's name).
    created->set_name("fusion");
    created->set_metadata(consumer->metadata());
    HloInstruction* fusion = entry->AddInstruction(std::move(created));
    entry->ReplaceInstruction(consumer, fusion);
    RETURN_IF_ERROR(entry->RemoveInstruction(consumer));
    RETURN_IF_ERROR(entry->RemoveInstruction(producer));
    return fusion;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<bool> RowFusionPass::Run(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  RET_CHECK(entry != nullptr);
  RETURN_IF_ERROR(CheckLoweredInput(module, name()));
  module.AdvanceForm(HloForm::kLowered);
  bool changed = false;
  // Producers come first in post order, so each has already absorbed its
  // own producers when its consumer tries to absorb it.
  for (HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    HloInstruction* consumer = instruction;
    while (consumer != nullptr) {
      ASSIGN_OR_RETURN(HloInstruction * merged,
                       MergeOneProducer(module, consumer));
      changed = changed || merged != nullptr;
      consumer = merged;
    }
  }
  // Drops the replaced bodies and the candidates that did not qualify.
  module.RemoveUnusedComputations();
  return changed;
}

}  // namespace mxla
