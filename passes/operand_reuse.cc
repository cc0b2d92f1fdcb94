#include "passes/operand_reuse.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/shape_util.h"

namespace mxla {

bool ReusesOperandElements(const HloInstruction& instruction,
                           int64_t operand_index) {
  // A dot kernel packs an operand element once per block of the other side;
  // a convolution reads each input element once per window tap over it.
  if (instruction.opcode() == HloOpcode::kDot ||
      instruction.opcode() == HloOpcode::kConvolution) {
    return true;
  }
  if (instruction.opcode() != HloOpcode::kBroadcast) return false;
  return ShapeUtil::ElementsIn(instruction.shape()) >
         ShapeUtil::ElementsIn(instruction.operand(operand_index)->shape());
}

bool ReusedAlongUsers(const HloInstruction& value) {
  // Every instruction reached reads `value`'s elements one for one or
  // permuted (a reduce's result is a new value: the walk stops there), so
  // one reusing read anywhere on the way answers yes.
  std::vector<const HloInstruction*> stack = {&value};
  absl::flat_hash_set<const HloInstruction*> visited = {&value};
  while (!stack.empty()) {
    const HloInstruction* read = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : read->users()) {
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) == read && ReusesOperandElements(*user, i)) {
          return true;
        }
      }
      if (user->opcode() != HloOpcode::kReduce &&
          visited.insert(user).second) {
        stack.push_back(user);
      }
    }
  }
  return false;
}

}  // namespace mxla
