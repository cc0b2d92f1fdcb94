#include "passes/expansion_util.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::expansion {

std::vector<int64_t> Iota(int64_t from, int64_t count) {
  std::vector<int64_t> values(count);
  std::iota(values.begin(), values.end(), from);
  return values;
}

absl::flat_hash_set<const HloComputation*> ProgramComputations(
    const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> programs = {
      module.entry_computation()};
  std::vector<const HloComputation*> pending = {module.entry_computation()};
  while (!pending.empty()) {
    const HloComputation* computation = pending.back();
    pending.pop_back();
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kWhile &&
          instruction->opcode() != HloOpcode::kConditional) {
        continue;
      }
      for (const HloComputation* called :
           instruction->called_computations()) {
        if (called != nullptr && programs.insert(called).second) {
          pending.push_back(called);
        }
      }
    }
  }
  return programs;
}

bool IsWidenableToF32(const HloInstruction& product) {
  auto narrow_or_f32 = [](PrimitiveType type) {
    return type == F16 || type == BF16 || type == F32;
  };
  if (!product.shape().IsArray() || product.operand_count() != 2) return false;
  const PrimitiveType out = product.shape().element_type();
  const PrimitiveType lhs = product.operand(0)->shape().element_type();
  const PrimitiveType rhs = product.operand(1)->shape().element_type();
  return narrow_or_f32(out) && narrow_or_f32(lhs) && narrow_or_f32(rhs) &&
         !(out == F32 && lhs == F32 && rhs == F32);
}

absl::StatusOr<HloInstruction*> WidenToF32(HloComputation& computation,
                                           HloInstruction* product) {
  RET_CHECK(IsWidenableToF32(*product), product->ToString());
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : product->operands()) {
    if (operand->shape().element_type() != F32) {
      operand = computation.AddInstruction(HloInstruction::CreateConvert(
          ShapeUtil::ChangeElementType(operand->shape(), F32), operand));
    }
    operands.push_back(operand);
  }
  HloInstruction* wide = computation.AddInstruction(
      product->CloneWithNewOperands(
          ShapeUtil::ChangeElementType(product->shape(), F32), operands));
  HloInstruction* result = wide;
  if (product->shape().element_type() != F32) {
    result = computation.AddInstruction(
        HloInstruction::CreateConvert(product->shape(), wide));
  }
  RETURN_IF_ERROR(ReplaceByExpansion(computation, product, result));
  return wide;
}

HloInstruction* TupleElement(HloComputation& computation,
                             HloInstruction* tuple, int64_t index) {
  return computation.AddInstruction(HloInstruction::CreateGetTupleElement(
      tuple->shape().tuple_shapes(index), tuple, index));
}

HloInstruction* S64Constant(HloComputation& computation, int64_t value) {
  return computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<int64_t>(value)));
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

absl::Status ReplaceByExpansion(HloComputation& computation,
                                HloInstruction* old,
                                HloInstruction* expansion) {
  if (old->shape().IsArray() && expansion->shape().IsArray()) {
    expansion->set_shape(old->shape());
  }
  expansion->set_metadata(old->metadata());
  computation.ReplaceInstruction(old, expansion);
  return computation.RemoveInstruction(old);
}

absl::StatusOr<bool> ExpandEach(
    HloModule& module, absl::Span<const HloOpcode> opcodes,
    absl::FunctionRef<absl::StatusOr<HloInstruction*>(HloComputation&,
                                                      HloInstruction*)>
        expand) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (std::find(opcodes.begin(), opcodes.end(), instruction->opcode()) ==
          opcodes.end()) {
        continue;
      }
      ASSIGN_OR_RETURN(HloInstruction * expansion,
                       expand(*computation, instruction));
      RETURN_IF_ERROR(
          ReplaceByExpansion(*computation, instruction, expansion));
      changed = true;
    }
  }
  return changed;
}

HloInstruction* ElementwiseBuilder::Splat(HloInstruction* scalar) {
  return Add(HloInstruction::CreateBroadcast(
      ArrayOf(scalar->shape().element_type()), scalar, {}));
}

HloInstruction* ElementwiseBuilder::SplatAs(const Literal& value,
                                            PrimitiveType type) {
  return Splat(Add(HloInstruction::CreateConstant(
      semantics::ApplyConvert(value, type).value())));
}

HloInstruction* ElementwiseBuilder::Unary(HloOpcode opcode,
                                          HloInstruction* x) {
  return Add(HloInstruction::CreateUnary(x->shape(), opcode, x));
}

HloInstruction* ElementwiseBuilder::Binary(HloOpcode opcode,
                                           HloInstruction* x,
                                           HloInstruction* y) {
  return Add(HloInstruction::CreateBinary(x->shape(), opcode, x, y));
}

HloInstruction* ElementwiseBuilder::Convert(HloInstruction* x,
                                            PrimitiveType type) {
  if (x->shape().element_type() == type) return x;
  return Add(HloInstruction::CreateConvert(
      ShapeUtil::ChangeElementType(x->shape(), type), x));
}

HloInstruction* ElementwiseBuilder::Compare(HloInstruction* x,
                                            HloInstruction* y,
                                            ComparisonDirection direction) {
  return Add(HloInstruction::CreateCompare(
      ShapeUtil::ChangeElementType(x->shape(), PRED), x, y, direction));
}

HloInstruction* ElementwiseBuilder::Select(HloInstruction* pred,
                                           HloInstruction* on_true,
                                           HloInstruction* on_false) {
  return Add(HloInstruction::CreateSelect(on_true->shape(), pred, on_true,
                                          on_false));
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
