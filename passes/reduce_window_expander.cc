#include "passes/reduce_window_expander.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "passes/window_patches.h"

namespace mxla {
namespace {

using expansion::Iota;

// `reducer` (2N scalars: accumulators, elements) extended with a pred mask
// per side: (acc..., acc_mask, x..., x_mask) -> (x_mask ? reducer(acc, x)
// : acc..., acc_mask). The reducer's instructions are cloned in.
absl::StatusOr<HloComputation*> MaskedReducer(HloModule& module,
                                              const HloComputation& reducer) {
  const int64_t n = reducer.num_parameters() / 2;
  HloComputation* masked =
      module.AddComputation(absl::StrCat(reducer.name(), "_masked"), false);
  const Shape mask = ShapeUtil::MakeShape(PRED, {});
  std::vector<HloInstruction*> acc, x;
  InstructionCloneMap clones;
  for (int64_t side = 0; side < 2; ++side) {
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* original =
          reducer.parameter_instruction(side * n + i);
      HloInstruction* parameter =
          masked->AddInstruction(HloInstruction::CreateParameter(
              side * (n + 1) + i, original->shape(), original->name()));
      clones[original] = parameter;
      (side == 0 ? acc : x).push_back(parameter);
    }
    (side == 0 ? acc : x)
        .push_back(masked->AddInstruction(HloInstruction::CreateParameter(
            side * (n + 1) + n, mask, side == 0 ? "acc_mask" : "tap_mask")));
  }
  std::vector<HloInstruction*> body;
  for (HloInstruction* instruction : reducer.MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kParameter) {
      body.push_back(instruction);
    }
  }
  CloneInstructionsInto(body, *masked, clones, [](HloInstruction* operand) {
    return operand;  // every operand is in the reducer
  });
  const HloInstruction* root = reducer.root_instruction();
  if (n > 1 && root->opcode() != HloOpcode::kTuple) {
    return absl::UnimplementedError(absl::StrCat(
        "reduce-window: the JIT needs a variadic reducer whose root is a "
        "tuple, but '",
        reducer.name(), "' returns ", root->ToString()));
  }
  std::vector<HloInstruction*> outputs;
  for (int64_t i = 0; i < n; ++i) {
    HloInstruction* value =
        clones.at(n == 1 ? root : root->operand(i));
    outputs.push_back(masked->AddInstruction(HloInstruction::CreateSelect(
        acc[i]->shape(), x[n], value, acc[i])));
  }
  outputs.push_back(acc[n]);
  masked->set_root_instruction(
      masked->AddInstruction(HloInstruction::CreateTuple(outputs)));
  return masked;
}

absl::Status Expand(HloModule& module, HloComputation& computation,
                    HloInstruction* reduce_window) {
  const int64_t n = reduce_window->operand_count() / 2;
  const Window window = reduce_window->window();
  const int64_t rank = window.size();
  HloComputation* reducer = reduce_window->to_apply();
  const Shape& base = reduce_window->operand(0)->shape();
  std::vector<HloInstruction*> inits;
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < n; ++i) {
    inits.push_back(reduce_window->mutable_operand(n + i));
  }
  for (int64_t d = 0; d < rank; ++d) {
    positions.push_back(WindowOutputSize(base.dimensions(d), window[d]));
  }
  std::vector<HloInstruction*> results;
  if (ShapeUtil::ElementsIn(ShapeUtil::MakeShape(PRED, positions)) == 0) {
    for (int64_t i = 0; i < n; ++i) {
      results.push_back(computation.AddInstruction(
          HloInstruction::CreateBroadcast(
              ShapeUtil::MakeShape(inits[i]->shape().element_type(),
                                   positions),
              inits[i], {})));
    }
  } else {
    std::vector<HloInstruction*> operands;
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(HloInstruction * patches,
                       expansion::WindowPatches(
                           computation, reduce_window->mutable_operand(i), 0,
                           window, inits[i]));
      operands.push_back(patches);
    }
    const bool masked = expansion::WindowHasHoles(window);
    if (masked) {
      ASSIGN_OR_RETURN(HloInstruction * mask,
                       expansion::WindowTapMask(computation,
                                                base.dimensions(), 0, window));
      operands.push_back(mask);
      ASSIGN_OR_RETURN(reducer, MaskedReducer(module, *reducer));
    }
    operands.insert(operands.end(), inits.begin(), inits.end());
    if (masked) {
      operands.push_back(computation.AddInstruction(
          HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true))));
    }
    std::vector<Shape> shapes;
    for (HloInstruction* init : inits) {
      shapes.push_back(
          ShapeUtil::MakeShape(init->shape().element_type(), positions));
    }
    if (masked) shapes.push_back(ShapeUtil::MakeShape(PRED, positions));
    const Shape shape = shapes.size() == 1 ? shapes[0]
                                           : ShapeUtil::MakeTupleShape(shapes);
    HloInstruction* reduce =
        computation.AddInstruction(HloInstruction::CreateReduce(
            shape, operands, Iota(rank, rank), reducer));
    if (shapes.size() == 1) {
      results.push_back(reduce);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        results.push_back(computation.AddInstruction(
            HloInstruction::CreateGetTupleElement(shapes[i], reduce, i)));
      }
    }
  }
  HloInstruction* result =
      n == 1 ? results[0]
             : computation.AddInstruction(HloInstruction::CreateTuple(results));
  result->set_metadata(reduce_window->metadata());
  computation.ReplaceInstruction(reduce_window, result);
  return computation.RemoveInstruction(reduce_window);
}

}  // namespace

absl::StatusOr<bool> ReduceWindowExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kReduceWindow) continue;
      RETURN_IF_ERROR(Expand(module, *computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
