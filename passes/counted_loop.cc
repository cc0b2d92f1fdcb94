#include "passes/counted_loop.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "ir/literal.h"
#include "ir/shape_util.h"

namespace mxla::expansion {
namespace {

HloInstruction* Counter(HloComputation& computation, int64_t value) {
  return computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<int64_t>(value)));
}

HloInstruction* Element(HloComputation& computation, HloInstruction* tuple,
                        int64_t index) {
  return computation.AddInstruction(HloInstruction::CreateGetTupleElement(
      tuple->shape().tuple_shapes(index), tuple, index));
}

}  // namespace

std::vector<HloInstruction*> BuildCountedLoop(
    HloModule& module, HloComputation& computation, absl::string_view name,
    int64_t trip_count, const std::vector<HloInstruction*>& init,
    CountedLoopBody body) {
  std::vector<HloInstruction*> first = {Counter(computation, 0)};
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
          ShapeUtil::MakeShape(PRED, {}), Element(*condition, tested, 0),
          Counter(*condition, trip_count), ComparisonDirection::kLt)));

  HloComputation* step =
      module.AddComputation(absl::StrCat(name, "_body"), false);
  HloInstruction* state = step->AddInstruction(
      HloInstruction::CreateParameter(0, state_shape, "state"));
  HloInstruction* i = Element(*step, state, 0);
  std::vector<HloInstruction*> current;
  for (int64_t k = 0; k < static_cast<int64_t>(init.size()); ++k) {
    current.push_back(Element(*step, state, k + 1));
  }
  std::vector<HloInstruction*> next = {
      step->AddInstruction(HloInstruction::CreateBinary(
          i->shape(), HloOpcode::kAdd, i, Counter(*step, 1)))};
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
    final_state.push_back(Element(computation, loop, k + 1));
  }
  return final_state;
}

}  // namespace mxla::expansion
