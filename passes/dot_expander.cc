#include "passes/dot_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"

namespace mxla {
namespace {

using expansion::Concat;
using expansion::Iota;
using expansion::Transposed;

// The dot's products [result..., contracted...], in `type`: each operand
// transposed to (batch, free, contracted) and broadcast over the other's
// free dimensions.
HloInstruction* Products(HloComputation& computation, HloInstruction* lhs,
                         HloInstruction* rhs, const DotDimensionNumbers& dnums,
                         const Shape& dot_shape, PrimitiveType type) {
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs->shape().rank(), dnums.lhs_batch, dnums.lhs_contracting);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs->shape().rank(), dnums.rhs_batch, dnums.rhs_contracting);
  const int64_t batch = dnums.lhs_batch.size();
  const int64_t nl = lhs_free.size(), nr = rhs_free.size();
  const int64_t contracted = dnums.lhs_contracting.size();
  std::vector<int64_t> product_dims(dot_shape.dimensions().begin(),
                                    dot_shape.dimensions().end());
  for (int64_t d : dnums.lhs_contracting) {
    product_dims.push_back(lhs->shape().dimensions(d));
  }
  const Shape product = ShapeUtil::MakeShape(type, product_dims);
  HloInstruction* lhs_t =
      Transposed(computation, lhs,
                 Concat(dnums.lhs_batch, lhs_free, dnums.lhs_contracting));
  HloInstruction* rhs_t =
      Transposed(computation, rhs,
                 Concat(dnums.rhs_batch, rhs_free, dnums.rhs_contracting));
  HloInstruction* lhs_b =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          product, lhs_t,
          Concat(Iota(0, batch + nl), Iota(batch + nl + nr, contracted))));
  HloInstruction* rhs_b =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          product, rhs_t,
          Concat(Iota(0, batch), Iota(batch + nl, nr + contracted))));
  return computation.AddInstruction(HloInstruction::CreateBinary(
      product, HloOpcode::kMultiply, lhs_b, rhs_b));
}

class Expander {
 public:
  explicit Expander(HloModule& module) : adders_(module, "dot_add") {}

  absl::Status Expand(HloComputation& computation, HloInstruction* dot);

 private:
  expansion::AddComputations adders_;
};

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
  HloInstruction* result =
      Products(computation, lhs, rhs, dnums, dot->shape(), type);
  // Summed over the contracted dimensions, which follow the result's.
  const int64_t contracted = dnums.lhs_contracting.size();
  if (contracted > 0) {
    HloInstruction* zero = computation.AddInstruction(
        HloInstruction::CreateConstant(Literal(ShapeUtil::MakeShape(type, {}))));
    result = computation.AddInstruction(HloInstruction::CreateReduce(
        ShapeUtil::ChangeElementType(dot->shape(), type), {result, zero},
        Iota(dot->shape().rank(), contracted), adders_.Get(type)));
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

bool DotExpanderPass::IsMatrixProduct(const HloInstruction& dot) {
  const PrimitiveType type = dot.shape().element_type();
  return (type == F32 || type == F64) &&
         dot.operand(0)->shape().element_type() == type &&
         dot.operand(1)->shape().element_type() == type;
}

absl::StatusOr<bool> DotExpanderPass::Run(HloModule& module) {
  Expander expander(module);
  bool changed = false;
  // Loop bodies and branches are compiled as programs too: their products
  // reach the kernel like the entry's (a decode step's matrix-vector
  // products are in a while body).
  const absl::flat_hash_set<const HloComputation*> programs =
      expansion::ProgramComputations(module);
  for (HloComputation* computation : module.computations()) {
    const bool keep =
        keep_matrix_products_ && programs.contains(computation);
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kDot) continue;
      if (keep && IsMatrixProduct(*instruction)) continue;
      if (keep && expansion::IsWidenableToF32(*instruction)) {
        // 16-bit operands are converted as the kernel packs them.
        RETURN_IF_ERROR(
            expansion::WidenToF32(*computation, instruction).status());
        changed = true;
        continue;
      }
      RETURN_IF_ERROR(expander.Expand(*computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
