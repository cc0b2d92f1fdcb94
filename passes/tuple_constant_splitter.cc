#include "passes/tuple_constant_splitter.h"

#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"

namespace mxla {
namespace {

// `literal` as instructions: an array constant, or a tuple of them.
HloInstruction* Materialize(HloComputation& computation,
                            const Literal& literal) {
  if (!literal.shape().IsTuple()) {
    return computation.AddInstruction(HloInstruction::CreateConstant(literal));
  }
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0;
       i < static_cast<int64_t>(literal.shape().tuple_shapes().size()); ++i) {
    elements.push_back(Materialize(computation, literal.tuple_element(i)));
  }
  return computation.AddInstruction(HloInstruction::CreateTuple(elements));
}

}  // namespace

absl::StatusOr<bool> TupleConstantSplitterPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* constant : computation->MakeInstructionPostOrder()) {
      if (constant->opcode() != HloOpcode::kConstant ||
          !constant->shape().IsTuple()) {
        continue;
      }
      RETURN_IF_ERROR(expansion::ReplaceByExpansion(
          *computation, constant,
          Materialize(*computation, constant->literal())));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
