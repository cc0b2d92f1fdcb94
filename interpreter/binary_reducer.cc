#include "interpreter/binary_reducer.h"

#include "ir/hlo_instruction.h"

namespace mxla::hlo_evaluator_internal {

std::optional<BinaryReducer> AsBinaryReducer(const HloComputation& reducer,
                                             PrimitiveType type) {
  const HloInstruction* root = reducer.root_instruction();
  if (root == nullptr ||
      GetHloOpcodeCategory(root->opcode()) != HloOpcodeCategory::kBinary ||
      root->operand_count() != 2 || !root->shape().IsScalar() ||
      root->shape().element_type() != type ||
      reducer.parameter_instructions().size() != 2) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter || a->shape() != root->shape() ||
      b->shape() != root->shape() ||
      a->parameter_number() + b->parameter_number() != 1) {
    return std::nullopt;
  }
  return BinaryReducer{root->opcode(), a->parameter_number() == 1};
}

}  // namespace mxla::hlo_evaluator_internal
