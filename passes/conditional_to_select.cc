#include "passes/conditional_to_select.h"

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/call_inliner.h"

namespace mxla {
namespace {

bool IsScalarTree(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsScalar();
  for (const Shape& element : shape.tuple_shapes()) {
    if (!IsScalarTree(element)) return false;
  }
  return true;
}

// Whether running `computation` unconditionally costs only time: nothing
// but elementwise work (see the header), memoized in `cheap`.
bool IsCheap(const HloComputation& computation,
             absl::flat_hash_map<const HloComputation*, bool>& cheap) {
  if (auto it = cheap.find(&computation); it != cheap.end()) return it->second;
  cheap[&computation] = false;  // a (malformed) cycle is not cheap
  bool result = true;
  for (const HloInstruction* instruction : computation.instructions()) {
    const HloOpcode opcode = instruction->opcode();
    if (!IsScalarTree(instruction->shape())) {
      result = false;
    } else if (opcode == HloOpcode::kCall || opcode == HloOpcode::kFusion ||
               opcode == HloOpcode::kMap ||
               opcode == HloOpcode::kConditional) {
      for (const HloComputation* callee :
           instruction->called_computations()) {
        result = result && IsCheap(*callee, cheap);
      }
    } else {
      result = opcode == HloOpcode::kParameter ||
               opcode == HloOpcode::kConstant ||
               opcode == HloOpcode::kTuple ||
               opcode == HloOpcode::kGetTupleElement ||
               (IsElementwise(opcode) && !HasSideEffect(opcode) &&
                !instruction->broadcast_dimensions().has_value());
    }
    if (!result) break;
  }
  cheap[&computation] = result;
  return result;
}

// The computations maps apply, and every computation they call.
std::vector<HloComputation*> MapComputations(const HloModule& module) {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<HloComputation*> seen;
  std::vector<HloComputation*> work;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kMap) {
        work.push_back(instruction->to_apply());
      }
    }
  }
  while (!work.empty()) {
    HloComputation* computation = work.back();
    work.pop_back();
    if (!seen.insert(computation).second) continue;
    order.push_back(computation);
    for (const HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        work.push_back(callee);
      }
    }
  }
  return order;
}

// select(pred, on_true, on_false) over every scalar leaf of the two
// (equally shaped) values; tuples are rebuilt around the leaves.
HloInstruction* SelectLeaves(HloComputation& computation, HloInstruction* pred,
                             HloInstruction* on_true, HloInstruction* on_false,
                             const OpMetadata& metadata) {
  HloInstruction* result = nullptr;
  const Shape& shape = on_true->shape();
  if (!shape.IsTuple()) {
    result = computation.AddInstruction(
        HloInstruction::CreateSelect(shape, pred, on_true, on_false));
  } else {
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
         ++i) {
      const Shape& element = shape.tuple_shapes()[i];
      HloInstruction* a = computation.AddInstruction(
          HloInstruction::CreateGetTupleElement(element, on_true, i));
      HloInstruction* b = computation.AddInstruction(
          HloInstruction::CreateGetTupleElement(element, on_false, i));
      a->set_metadata(metadata);
      b->set_metadata(metadata);
      elements.push_back(SelectLeaves(computation, pred, a, b, metadata));
    }
    result = computation.AddInstruction(HloInstruction::CreateTuple(elements));
  }
  result->set_metadata(metadata);
  return result;
}

// Inlines every branch of `conditional` and selects among their results.
absl::Status Lower(HloComputation& computation, HloInstruction* conditional) {
  const OpMetadata metadata = conditional->metadata();
  const std::vector<HloComputation*> branches =
      conditional->called_computations();
  RET_CHECK(!branches.empty() &&
            conditional->operand_count() ==
                static_cast<int64_t>(branches.size()) + 1);
  std::vector<HloInstruction*> results;
  for (size_t i = 0; i < branches.size(); ++i) {
    HloInstruction* call = computation.AddInstruction(
        HloInstruction::CreateGeneric(HloOpcode::kCall, conditional->shape(),
                                      {conditional->mutable_operand(i + 1)}));
    call->set_called_computations({branches[i]});
    call->set_metadata(metadata);
    // InlineCall replaces the call by the copy of the branch's root.
    HloInstruction* holder = computation.AddInstruction(
        HloInstruction::CreateTuple({call}));
    RETURN_IF_ERROR(InlineCall(computation, call));
    results.push_back(holder->mutable_operand(0));
    RETURN_IF_ERROR(computation.RemoveInstruction(holder));
  }
  HloInstruction* index = conditional->mutable_operand(0);
  HloInstruction* value = nullptr;
  const Shape pred_shape = ShapeUtil::MakeScalarShape(PRED);
  if (index->shape().element_type() == PRED) {
    RET_CHECK(results.size() == 2);
    value = SelectLeaves(computation, index, results[0], results[1], metadata);
  } else {
    // Branch N-1 unless the index names another: out of range runs the last.
    value = results.back();
    for (int64_t i = static_cast<int64_t>(results.size()) - 2; i >= 0; --i) {
      HloInstruction* constant = computation.AddInstruction(
          HloInstruction::CreateConstant(LiteralUtil::CreateR0<int32_t>(
              static_cast<int32_t>(i))));
      HloInstruction* taken = computation.AddInstruction(
          HloInstruction::CreateCompare(pred_shape, index, constant,
                                        ComparisonDirection::kEq));
      constant->set_metadata(metadata);
      taken->set_metadata(metadata);
      value = SelectLeaves(computation, taken, results[i], value, metadata);
    }
  }
  computation.ReplaceInstruction(conditional, value);
  return computation.RemoveInstruction(conditional);
}

}  // namespace

absl::StatusOr<bool> ConditionalToSelectPass::Run(HloModule& module) {
  bool changed = false;
  absl::flat_hash_map<const HloComputation*, bool> cheap;
  for (HloComputation* computation : MapComputations(module)) {
    // A lowered conditional brings its branches' own conditionals into
    // this computation: go again until none is left to lower.
    for (bool lowered = true; lowered;) {
      lowered = false;
      for (HloInstruction* instruction :
           computation->MakeInstructionPostOrder()) {
        if (instruction->opcode() != HloOpcode::kConditional ||
            !IsScalarTree(instruction->shape())) {
          continue;
        }
        bool branches_cheap = true;
        for (const HloComputation* branch :
             instruction->called_computations()) {
          branches_cheap = branches_cheap && IsCheap(*branch, cheap);
        }
        if (!branches_cheap) continue;
        RETURN_IF_ERROR(Lower(*computation, instruction));
        lowered = changed = true;
      }
    }
  }
  return changed;
}

}  // namespace mxla
