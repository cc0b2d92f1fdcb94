#include "passes/while_loop_invariant_code_motion.h"

#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "ir/hlo_clone.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/while_loop_util.h"

namespace mxla {
namespace {

using InstructionSet = absl::flat_hash_set<const HloInstruction*>;

// Cheap to recompute, and hoisted alone they would only widen the loop
// state: moved only along with work that reads them (XLA's list, with
// constants and reshapes at its defaults).
bool NotWorthHoistingIndividually(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReverse:
    case HloOpcode::kSlice:
    case HloOpcode::kTranspose:
    case HloOpcode::kTuple:
      return true;
    default:
      return false;
  }
}

bool IsStateElement(const HloInstruction* instruction,
                    const HloInstruction* parameter) {
  return instruction->opcode() == HloOpcode::kGetTupleElement &&
         instruction->operand(0) == parameter;
}

// What moves out of one loop's body.
struct Hoisting {
  // Body instructions to compute before the loop, operands first: hoisted
  // work, the invariant instructions it reads, and the state elements
  // (get-tuple-element of the parameter) under them.
  std::vector<HloInstruction*> copied;
  // Hoisted values the body still reads: the new state elements.
  std::vector<HloInstruction*> live_in;
};

Hoisting FindHoisting(const HloComputation& body) {
  const HloInstruction* parameter = body.parameter_instruction(0);
  const std::vector<bool> invariant_elements =
      while_loop::InvariantElements(body);
  InstructionSet invariant;  // may move, but only along with hoisted work
  InstructionSet hoisted;
  for (const HloInstruction* read : parameter->users()) {
    if (invariant_elements[read->tuple_index()] && read->shape().IsArray()) {
      invariant.insert(read);
    }
  }
  auto is_invariant = [&](const HloInstruction* operand) {
    return operand->opcode() == HloOpcode::kConstant ||
           invariant.contains(operand) || hoisted.contains(operand);
  };
  const std::vector<HloInstruction*> order = body.MakeInstructionPostOrder();
  for (HloInstruction* instruction : order) {
    if (instruction->opcode() == HloOpcode::kParameter ||
        IsStateElement(instruction, parameter) ||
        !absl::c_all_of(instruction->operands(), is_invariant) ||
        !while_loop::IsPure(*instruction)) {
      continue;
    }
    // A tuple-shaped value moves only if just its elements are read, so
    // that the state stays a flat tuple of arrays.
    if (instruction->shape().IsTuple() &&
        !absl::c_all_of(instruction->users(), [](const HloInstruction* user) {
          return user->opcode() == HloOpcode::kGetTupleElement;
        })) {
      continue;
    }
    if (NotWorthHoistingIndividually(*instruction)) {
      if (instruction->opcode() != HloOpcode::kConstant) {
        invariant.insert(instruction);
      }
      continue;
    }
    hoisted.insert(instruction);
  }
  Hoisting hoisting;
  if (hoisted.empty()) return hoisting;
  // Everything hoisted work reads, transitively.
  InstructionSet needed(hoisted.begin(), hoisted.end());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!needed.contains(*it) || IsStateElement(*it, parameter)) continue;
    for (const HloInstruction* operand : (*it)->operands()) {
      needed.insert(operand);
    }
  }
  for (HloInstruction* instruction : order) {
    if (!needed.contains(instruction)) continue;
    hoisting.copied.push_back(instruction);
    if (!hoisted.contains(instruction)) continue;
    const bool read_in_loop = absl::c_any_of(
        instruction->users(),
        [&](const HloInstruction* user) { return !hoisted.contains(user); });
    if (read_in_loop) {
      hoisting.live_in.push_back(instruction);
    }
  }
  return hoisting;
}

// The hoisted work, copied before the loop onto the loop's init: the copy
// of each instruction `hoisting` copies.
absl::StatusOr<InstructionCloneMap> CopyBeforeLoop(HloInstruction* loop,
                                                   const Hoisting& hoisting) {
  const HloComputation& body = *while_loop::Body(*loop);
  const HloInstruction* parameter = body.parameter_instruction(0);
  InstructionCloneMap outside;
  std::vector<HloInstruction*> work;
  for (HloInstruction* instruction : hoisting.copied) {
    if (IsStateElement(instruction, parameter)) {
      outside[instruction] =
          while_loop::InitElement(loop, instruction->tuple_index());
    } else {
      work.push_back(instruction);
    }
  }
  bool stray = false;
  CloneInstructionsInto(work, *loop->parent(), outside,
                        [&](HloInstruction* operand) {
                          stray = true;
                          return operand;
                        });
  RET_CHECK(!stray, "hoisted work of '", body.name(),
            "' reads a value the loop does not make invariant");
  return outside;
}

// The loop's state with one more element per hoisted value the body
// reads: its shapes, its init, and the body's reads of those values.
struct WiderState {
  std::vector<Shape> shapes;
  std::vector<HloInstruction*> init;
  std::vector<std::pair<const HloInstruction*, while_loop::Replacement>>
      replacements;
};

WiderState Widen(HloInstruction* loop, const Hoisting& hoisting,
                 const InstructionCloneMap& outside) {
  const int64_t old_size = loop->shape().tuple_shapes().size();
  WiderState wider;
  wider.shapes = loop->shape().tuple_shapes();
  for (int64_t i = 0; i < old_size; ++i) {
    wider.init.push_back(while_loop::InitElement(loop, i));
  }
  for (const HloInstruction* value : hoisting.live_in) {
    const int64_t index = wider.shapes.size();
    const Shape shape = value->shape();
    wider.shapes.push_back(shape);
    wider.init.push_back(outside.at(value));
    wider.replacements.emplace_back(
        value,
        [shape, index](HloComputation& computation, HloInstruction* state) {
          return computation.AddInstruction(
              HloInstruction::CreateGetTupleElement(shape, state, index));
        });
  }
  return wider;
}

// Replaces `loop` by one over the wider state, whose body passes the
// hoisted values on; its users read the old elements.
absl::Status ReplaceByWider(HloInstruction* loop, const Hoisting& hoisting,
                            const WiderState& wider) {
  const HloComputation& body = *while_loop::Body(*loop);
  const HloComputation& condition = *while_loop::Condition(*loop);
  HloComputation& parent = *loop->parent();
  const int64_t old_size = loop->shape().tuple_shapes().size();
  const Shape state = ShapeUtil::MakeTupleShape(wider.shapes);
  std::vector<int64_t> same(old_size);
  for (int64_t i = 0; i < old_size; ++i) same[i] = i;
  ASSIGN_OR_RETURN(
      while_loop::LoopCopy new_body,
      while_loop::CopyLoopComputation(
          body, "licm", state, same, wider.replacements,
          [&](while_loop::LoopCopy& copy) {
            std::vector<HloInstruction*> next =
                copy.clones.at(body.root_instruction())->operands();
            for (const HloInstruction* value : hoisting.live_in) {
              next.push_back(copy.clones.at(value));
            }
            return copy.computation->AddInstruction(
                HloInstruction::CreateTuple(next));
          }));
  ASSIGN_OR_RETURN(
      while_loop::LoopCopy new_condition,
      while_loop::CopyLoopComputation(condition, "licm", state, same));
  HloInstruction* new_init =
      parent.AddInstruction(HloInstruction::CreateTuple(wider.init));
  auto old_elements = [&](HloInstruction* new_loop) {
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < old_size; ++i) {
      elements.push_back(parent.AddInstruction(
          HloInstruction::CreateGetTupleElement(wider.shapes[i], new_loop, i)));
    }
    return parent.AddInstruction(HloInstruction::CreateTuple(elements));
  };
  return while_loop::ReplaceLoop(loop, new_init, new_condition.computation,
                                 new_body.computation, old_elements)
      .status();
}

absl::StatusOr<bool> HoistFromLoop(HloInstruction* loop) {
  if (!while_loop::IsRewritable(*loop)) return false;
  // XLA's rule: a loop that runs at most once gains nothing.
  if (while_loop::KnownTripCount(*loop, 1).has_value()) return false;
  Hoisting hoisting = FindHoisting(*while_loop::Body(*loop));
  if (hoisting.live_in.empty()) return false;
  ASSIGN_OR_RETURN(const InstructionCloneMap outside,
                   CopyBeforeLoop(loop, hoisting));
  RETURN_IF_ERROR(
      ReplaceByWider(loop, hoisting, Widen(loop, hoisting, outside)));
  return true;
}

}  // namespace

absl::StatusOr<bool> WhileLoopInvariantCodeMotionPass::Run(
    HloModule& module) {
  // Inner loops first, so that work they hoist into an outer body can
  // leave that loop too.
  std::vector<HloInstruction*> loops;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kWhile) {
        loops.push_back(instruction);
      }
    }
  }
  bool changed = false;
  for (HloInstruction* loop : loops) {
    ASSIGN_OR_RETURN(bool hoisted, HoistFromLoop(loop));
    changed |= hoisted;
  }
  return changed;
}

}  // namespace mxla
