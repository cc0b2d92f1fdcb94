#include "interpreter/binary_reducer.h"

#include "ir/hlo_instruction.h"
#include "ir/shape_util.h"

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

std::optional<BinarySelect> AsBinarySelect(const HloComputation& select,
                                           PrimitiveType type) {
  const HloInstruction* root = select.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->operand_count() != 2 || root->shape().element_type() != PRED ||
      !root->shape().IsScalar() ||
      select.parameter_instructions().size() != 2) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter || a->shape() != scalar ||
      b->shape() != scalar ||
      a->parameter_number() + b->parameter_number() != 1) {
    return std::nullopt;
  }
  return BinarySelect{root->comparison_direction(),
                      root->total_order_comparison(),
                      a->parameter_number() == 1};
}

}  // namespace mxla::hlo_evaluator_internal
