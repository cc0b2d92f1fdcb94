#include "passes/dot_expander.h"

#include <numeric>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

std::vector<int64_t> Iota(int64_t from, int64_t count) {
  std::vector<int64_t> values(count);
  std::iota(values.begin(), values.end(), from);
  return values;
}

template <typename... Lists>
std::vector<int64_t> Concat(const Lists&... lists) {
  std::vector<int64_t> all;
  (all.insert(all.end(), lists.begin(), lists.end()), ...);
  return all;
}

class Expander {
 public:
  explicit Expander(HloModule& module) : module_(module) {}

  absl::Status Expand(HloComputation& computation, HloInstruction* dot);

 private:
  // `operand` with its dimensions in the order `permutation`.
  HloInstruction* Transposed(HloComputation& computation,
                             HloInstruction* operand,
                             const std::vector<int64_t>& permutation);
  // The scalar add computation for `type`, made once per module.
  HloComputation* AddComputation(PrimitiveType type);

  HloModule& module_;
  absl::flat_hash_map<PrimitiveType, HloComputation*> adders_;
};

HloInstruction* Expander::Transposed(HloComputation& computation,
                                     HloInstruction* operand,
                                     const std::vector<int64_t>& permutation) {
  if (permutation == Iota(0, permutation.size())) return operand;
  std::vector<int64_t> dims;
  for (int64_t d : permutation) dims.push_back(operand->shape().dimensions(d));
  return computation.AddInstruction(HloInstruction::CreateTranspose(
      ShapeUtil::MakeShape(operand->shape().element_type(), dims), operand,
      permutation));
}

HloComputation* Expander::AddComputation(PrimitiveType type) {
  if (auto it = adders_.find(type); it != adders_.end()) return it->second;
  const Shape scalar = ShapeUtil::MakeShape(type, {});
  HloComputation* add = module_.AddComputation(
      absl::StrCat("dot_add_", primitive_util::LowercaseName(type)), false);
  HloInstruction* a =
      add->AddInstruction(HloInstruction::CreateParameter(0, scalar, "a"));
  HloInstruction* b =
      add->AddInstruction(HloInstruction::CreateParameter(1, scalar, "b"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, a, b)));
  adders_[type] = add;
  return add;
}

absl::Status Expander::Expand(HloComputation& computation,
                              HloInstruction* dot) {
  const DotDimensionNumbers dnums = dot->dot_dimension_numbers();
  HloInstruction* lhs = dot->mutable_operand(0);
  HloInstruction* rhs = dot->mutable_operand(1);
  // Mixed types and f16/bf16 multiply and accumulate in the accumulation
  // type (f32 for f16 and bf16, as XLA:CPU does) and round once, as the
  // evaluator does: the operands are converted first.
  const PrimitiveType type = DotAccumulationType(
      lhs->shape().element_type(), rhs->shape().element_type(),
      dot->shape().element_type());
  const bool widened = type != dot->shape().element_type();
  if (lhs->shape().element_type() != type) {
    lhs = computation.AddInstruction(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(lhs->shape(), type), lhs));
  }
  if (rhs->shape().element_type() != type) {
    rhs = computation.AddInstruction(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(rhs->shape(), type), rhs));
  }
  const Shape result_shape =
      ShapeUtil::ChangeElementType(dot->shape(), type);
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs->shape().rank(), dnums.lhs_batch, dnums.lhs_contracting);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs->shape().rank(), dnums.rhs_batch, dnums.rhs_contracting);
  const int64_t batch = dnums.lhs_batch.size();
  const int64_t nl = lhs_free.size(), nr = rhs_free.size();
  const int64_t contracted = dnums.lhs_contracting.size();
  // The product's dimensions: the dot's result, then the contracted ones.
  std::vector<int64_t> product_dims(dot->shape().dimensions().begin(),
                                    dot->shape().dimensions().end());
  for (int64_t d : dnums.lhs_contracting) {
    product_dims.push_back(lhs->shape().dimensions(d));
  }
  const Shape product = ShapeUtil::MakeShape(type, product_dims);
  HloInstruction* lhs_t = Transposed(
      computation, lhs,
      Concat(dnums.lhs_batch, lhs_free, dnums.lhs_contracting));
  HloInstruction* rhs_t = Transposed(
      computation, rhs,
      Concat(dnums.rhs_batch, rhs_free, dnums.rhs_contracting));
  HloInstruction* lhs_b =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          product, lhs_t,
          Concat(Iota(0, batch + nl), Iota(batch + nl + nr, contracted))));
  HloInstruction* rhs_b =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          product, rhs_t,
          Concat(Iota(0, batch), Iota(batch + nl, nr + contracted))));
  HloInstruction* result = computation.AddInstruction(
      HloInstruction::CreateBinary(product, HloOpcode::kMultiply, lhs_b,
                                   rhs_b));
  if (contracted > 0) {
    HloInstruction* zero = computation.AddInstruction(
        HloInstruction::CreateConstant(Literal(ShapeUtil::MakeShape(type, {}))));
    result = computation.AddInstruction(HloInstruction::CreateReduce(
        result_shape, {result, zero}, Iota(batch + nl + nr, contracted),
        AddComputation(type)));
  }
  if (widened) {
    result = computation.AddInstruction(
        HloInstruction::CreateConvert(dot->shape(), result));
  }
  result->set_metadata(dot->metadata());
  computation.ReplaceInstruction(dot, result);
  return computation.RemoveInstruction(dot);
}

}  // namespace

absl::StatusOr<bool> DotExpanderPass::Run(HloModule& module) {
  Expander expander(module);
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kDot) continue;
      RETURN_IF_ERROR(expander.Expand(*computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
