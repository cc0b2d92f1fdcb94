#include "passes/topk_expander.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// (value a, value b, index a, index b) -> a goes first.
HloComputation* Comparator(HloModule& module, const HloInstruction& topk) {
  const PrimitiveType type = topk.operand(0)->shape().element_type();
  HloComputation* compare =
      module.AddComputation(absl::StrCat(topk.name(), "_compare"), false);
  const Shape value = ShapeUtil::MakeShape(type, {});
  const Shape index = ShapeUtil::MakeShape(S32, {});
  HloInstruction* a =
      compare->AddInstruction(HloInstruction::CreateParameter(0, value, "a"));
  HloInstruction* b =
      compare->AddInstruction(HloInstruction::CreateParameter(1, value, "b"));
  compare->AddInstruction(HloInstruction::CreateParameter(2, index, "ia"));
  compare->AddInstruction(HloInstruction::CreateParameter(3, index, "ib"));
  HloInstruction* first = compare->AddInstruction(HloInstruction::CreateCompare(
      ShapeUtil::MakeShape(PRED, {}), a, b,
      topk.topk_largest() ? ComparisonDirection::kGt
                          : ComparisonDirection::kLt));
  if (primitive_util::IsFloatingPointType(type)) {
    first->set_total_order_comparison(true);
  }
  compare->set_root_instruction(first);
  return compare;
}

HloInstruction* FirstK(HloComputation& computation, HloInstruction* sorted,
                       int64_t k) {
  const Shape& shape = sorted->shape();
  std::vector<int64_t> starts(shape.rank(), 0);
  std::vector<int64_t> limits(shape.dimensions().begin(),
                              shape.dimensions().end());
  limits.back() = k;
  HloInstruction* slice = computation.AddInstruction(
      HloInstruction::CreateGeneric(
          HloOpcode::kSlice, ShapeUtil::MakeShape(shape.element_type(), limits),
          {sorted}));
  slice->set_slice(starts, limits, std::vector<int64_t>(shape.rank(), 1));
  return slice;
}

absl::Status Expand(HloModule& module, HloComputation& computation,
                    HloInstruction* topk) {
  HloInstruction* operand = topk->mutable_operand(0);
  const Shape& shape = operand->shape();
  const int64_t last = shape.rank() - 1;
  HloInstruction* iota = computation.AddInstruction(HloInstruction::CreateIota(
      ShapeUtil::ChangeElementType(shape, S32), last));
  HloInstruction* sort = computation.AddInstruction(
      HloInstruction::CreateGeneric(
          HloOpcode::kSort,
          ShapeUtil::MakeTupleShape({shape, iota->shape()}), {operand, iota}));
  sort->set_dimensions({last});
  sort->set_called_computations({Comparator(module, *topk)});
  std::vector<HloInstruction*> results;
  for (int64_t i = 0; i < 2; ++i) {
    HloInstruction* sorted =
        computation.AddInstruction(HloInstruction::CreateGetTupleElement(
            sort->shape().tuple_shapes(i), sort, i));
    results.push_back(FirstK(computation, sorted, topk->topk_k()));
  }
  HloInstruction* result =
      computation.AddInstruction(HloInstruction::CreateTuple(results));
  result->set_metadata(topk->metadata());
  computation.ReplaceInstruction(topk, result);
  return computation.RemoveInstruction(topk);
}

}  // namespace

absl::StatusOr<bool> TopKExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kTopK) continue;
      RETURN_IF_ERROR(Expand(module, *computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
