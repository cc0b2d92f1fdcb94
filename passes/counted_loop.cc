#include "passes/counted_loop.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "ir/literal.h"
#include "ir/shape_util.h"
#include "passes/expansion_util.h"

namespace mxla::expansion {

std::vector<HloInstruction*> BuildCountedLoop(
    HloModule& module, HloComputation& computation, absl::string_view name,
    int64_t trip_count, const std::vector<HloInstruction*>& init,
    CountedLoopBody body) {
  // No trip: the state stays as it starts, and no body is built (one for
  // an empty dimension could slice past it).
  if (trip_count == 0) return init;
  std::vector<HloInstruction*> first = {S64Constant(computation, 0)};
  first.insert(first.end(), init.begin(), init.end());
  HloInstruction* start =
      computation.AddInstruction(HloInstruction::CreateTuple(first));
  const Shape& state_shape = start->shape();

  HloComputation* condition =
      module.AddComputation(absl::StrCat(name, "_condition"), false);
  HloInstruction* tested = condition->AddInstruction(
      HloInstruction::CreateParameter(0, state_shape, "state"));
  condition->set_root_instruction(
      condition->AddInstruction(HloInstruction::CreateCompare(
          ShapeUtil::MakeShape(PRED, {}), TupleElement(*condition, tested, 0),
          S64Constant(*condition, trip_count), ComparisonDirection::kLt)));

  HloComputation* step =
      module.AddComputation(absl::StrCat(name, "_body"), false);
  HloInstruction* state = step->AddInstruction(
      HloInstruction::CreateParameter(0, state_shape, "state"));
  HloInstruction* i = TupleElement(*step, state, 0);
  std::vector<HloInstruction*> current;
  for (int64_t k = 0; k < static_cast<int64_t>(init.size()); ++k) {
    current.push_back(TupleElement(*step, state, k + 1));
  }
  std::vector<HloInstruction*> next = {
      step->AddInstruction(HloInstruction::CreateBinary(
          i->shape(), HloOpcode::kAdd, i, S64Constant(*step, 1)))};
  for (HloInstruction* element : body(*step, i, current)) {
    next.push_back(element);
  }
  step->set_root_instruction(
      step->AddInstruction(HloInstruction::CreateTuple(next)));

  HloInstruction* loop = computation.AddInstruction(
      HloInstruction::CreateGeneric(HloOpcode::kWhile, state_shape, {start}));
  loop->set_called_computations({condition, step});
  std::vector<HloInstruction*> final_state;
  for (int64_t k = 0; k < static_cast<int64_t>(init.size()); ++k) {
    final_state.push_back(TupleElement(computation, loop, k + 1));
  }
  return final_state;
}

}  // namespace mxla::expansion
