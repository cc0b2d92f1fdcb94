#include "interpreter/evaluation_plan.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

absl::StatusOr<Plan> MakePlan(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  RET_CHECK(root != nullptr, "computation ", computation.name(),
            " has no root");
  std::vector<HloInstruction*> all = computation.MakeInstructionPostOrder();
  // Users come after their operands, so one backward sweep finds
  // everything the root and the side effects depend on.
  absl::flat_hash_set<const HloInstruction*> needed = {root};
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (HasSideEffect((*it)->opcode())) needed.insert(*it);
    if (!needed.contains(*it)) continue;
    for (const HloInstruction* operand : (*it)->operands()) {
      needed.insert(operand);
    }
  }
  Plan plan;
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (const HloInstruction* instruction : all) {
    if (!needed.contains(instruction)) continue;
    position[instruction] = static_cast<int64_t>(plan.order.size());
    plan.order.push_back(instruction);
  }
  const int64_t n = static_cast<int64_t>(plan.order.size());
  RET_CHECK(position.contains(root), "root of ", computation.name(),
            " is not in its post order");
  plan.root = position[root];
  plan.operand_slots.resize(n);
  plan.last_use.assign(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    for (const HloInstruction* operand : plan.order[i]->operands()) {
      auto it = position.find(operand);
      RET_CHECK(it != position.end(), "operand ", operand->name(), " of ",
                plan.order[i]->name(), " is not in ", computation.name());
      plan.operand_slots[i].push_back(it->second);
      plan.last_use[it->second] = i;
    }
  }
  plan.last_use[plan.root] = n;
  return plan;
}

absl::StatusOr<Literal> RunPlan(const Plan& plan,
                                absl::Span<const Literal* const> arguments,
                                const EvaluatorOptions& options) {
  const int64_t n = static_cast<int64_t>(plan.order.size());
  // Parameters and constants are read in place; computed values are owned
  // here until their last user has run.
  std::vector<Literal> owned(n);
  std::vector<const Literal*> values(n, nullptr);
  std::vector<const Literal*> operands;
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction& instruction = *plan.order[i];
    if (instruction.opcode() == HloOpcode::kParameter) {
      int64_t number = instruction.parameter_number();
      RET_CHECK(number >= 0 && number < static_cast<int64_t>(arguments.size()),
                "parameter number ", number, " out of range");
      values[i] = arguments[number];
    } else if (instruction.opcode() == HloOpcode::kConstant &&
               instruction.has_literal()) {
      values[i] = &instruction.literal();
    } else {
      operands.clear();
      for (int64_t slot : plan.operand_slots[i]) {
        operands.push_back(values[slot]);
      }
      absl::StatusOr<Literal> value = EvaluateOp(instruction, operands, options);
      if (!value.ok()) {
        return absl::Status(
            value.status().code(),
            absl::StrCat("evaluating ", instruction.name(), " (",
                         HloOpcodeString(instruction.opcode()),
                         "): ", value.status().message()));
      }
      owned[i] = *std::move(value);
      values[i] = &owned[i];
    }
    for (int64_t slot : plan.operand_slots[i]) {
      if (plan.last_use[slot] == i) {
        owned[slot] = Literal();
        values[slot] = nullptr;
      }
    }
  }
  const int64_t root = plan.root;
  if (values[root] == &owned[root]) return std::move(owned[root]);
  return *values[root];  // A parameter or constant root: copy it.
}

}  // namespace mxla::hlo_evaluator_internal
