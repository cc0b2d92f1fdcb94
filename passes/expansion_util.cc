#include "passes/expansion_util.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"

namespace mxla::expansion {

std::vector<int64_t> Iota(int64_t from, int64_t count) {
  std::vector<int64_t> values(count);
  std::iota(values.begin(), values.end(), from);
  return values;
}

HloInstruction* Transposed(HloComputation& computation,
                           HloInstruction* operand,
                           const std::vector<int64_t>& permutation) {
  if (permutation == Iota(0, permutation.size())) return operand;
  std::vector<int64_t> dims;
  for (int64_t d : permutation) dims.push_back(operand->shape().dimensions(d));
  return computation.AddInstruction(HloInstruction::CreateTranspose(
      ShapeUtil::MakeShape(operand->shape().element_type(), dims), operand,
      permutation));
}

HloInstruction* Reshaped(HloComputation& computation, HloInstruction* operand,
                         const std::vector<int64_t>& dims) {
  const auto& now = operand->shape().dimensions();
  if (std::vector<int64_t>(now.begin(), now.end()) == dims) return operand;
  return computation.AddInstruction(HloInstruction::CreateReshape(
      ShapeUtil::MakeShape(operand->shape().element_type(), dims), operand));
}

HloInstruction* Zero(HloComputation& computation, PrimitiveType type) {
  return computation.AddInstruction(
      HloInstruction::CreateConstant(Literal(ShapeUtil::MakeShape(type, {}))));
}

HloComputation* AddComputations::Get(PrimitiveType type) {
  if (auto it = made_.find(type); it != made_.end()) return it->second;
  const Shape scalar = ShapeUtil::MakeShape(type, {});
  HloComputation* add = module_.AddComputation(
      absl::StrCat(prefix_, "_", primitive_util::LowercaseName(type)), false);
  HloInstruction* a =
      add->AddInstruction(HloInstruction::CreateParameter(0, scalar, "a"));
  HloInstruction* b =
      add->AddInstruction(HloInstruction::CreateParameter(1, scalar, "b"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, a, b)));
  made_[type] = add;
  return add;
}

}  // namespace mxla::expansion
