#include "passes/while_loop_simplifier.h"

#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "ir/hlo_clone.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/while_loop_util.h"

namespace mxla {
namespace {

// A loop that runs 0 times is its init; one that runs once is its body on
// the init.
absl::StatusOr<bool> RemoveTrivialLoop(HloInstruction* loop) {
  const std::optional<int64_t> trips = while_loop::KnownTripCount(*loop, 1);
  if (!trips.has_value() ||
      !while_loop::IsPureComputation(*while_loop::Condition(*loop))) {
    return false;
  }
  HloComputation& parent = *loop->parent();
  HloInstruction* init = loop->mutable_operand(0);
  HloInstruction* result = init;
  if (*trips == 1) {
    const HloComputation& body = *while_loop::Body(*loop);
    if (!while_loop::IsPureComputation(body)) return false;
    const HloInstruction* parameter = body.parameter_instruction(0);
    InstructionCloneMap clones = {{parameter, init}};
    std::vector<HloInstruction*> instructions;
    for (HloInstruction* instruction : body.MakeInstructionPostOrder()) {
      if (instruction != parameter) instructions.push_back(instruction);
    }
    bool stray = false;
    CloneInstructionsInto(instructions, parent, clones,
                          [&](HloInstruction* operand) {
                            stray = true;
                            return operand;
                          });
    RET_CHECK(!stray, "loop body '", body.name(),
              "' reads an instruction it does not hold");
    result = clones.at(body.root_instruction());
  }
  parent.ReplaceInstruction(loop, result);
  RETURN_IF_ERROR(parent.RemoveInstruction(loop));
  return true;
}

// Beyond this many trips a loop counts as possibly endless.
constexpr int64_t kMaxSimulatedTrips = int64_t{1} << 24;

enum class InitKind { kOther, kConstant, kGenerated };

// Whether the loop can recompute an init element instead of carrying it:
// a constant, or an iota or broadcast of a constant (generated, no input).
InitKind Classify(const HloInstruction* value) {
  switch (value->opcode()) {
    case HloOpcode::kConstant:
      return value->has_literal() ? InitKind::kConstant : InitKind::kOther;
    case HloOpcode::kIota:
      return InitKind::kGenerated;
    case HloOpcode::kBroadcast:
      return value->operand(0)->opcode() == HloOpcode::kConstant &&
                     value->operand(0)->has_literal()
                 ? InitKind::kGenerated
                 : InitKind::kOther;
    default:
      return InitKind::kOther;
  }
}

// A copy of the generated value `value` in `computation`.
HloInstruction* Regenerate(const HloInstruction* value,
                           HloComputation& computation) {
  std::vector<HloInstruction*> operands;
  for (const HloInstruction* operand : value->operands()) {
    operands.push_back(Regenerate(operand, computation));
  }
  return computation.AddInstruction(
      value->CloneWithNewOperands(value->shape(), operands));
}

// The get-tuple-elements reading element `index` of the state.
std::vector<HloInstruction*> Reads(const HloComputation& computation,
                                   int64_t index) {
  std::vector<HloInstruction*> reads;
  for (HloInstruction* read : computation.parameter_instruction(0)->users()) {
    if (read->tuple_index() == index) reads.push_back(read);
  }
  return reads;
}

// Every user of the reads is fusible, or the body's root passing the
// element on.
bool ReadOnlyByFusibleOps(absl::Span<HloInstruction* const> reads,
                          const HloInstruction* root) {
  for (const HloInstruction* read : reads) {
    for (const HloInstruction* user : read->users()) {
      if (user != root &&
          GetOpSpec(user->opcode()).fusion != FusionClass::kFusible) {
        return false;
      }
    }
  }
  return true;
}

// The body reads element `index` only to pass it on, at the same index.
bool OnlyPassedOn(absl::Span<HloInstruction* const> reads,
                  const HloInstruction* root, int64_t index) {
  for (const HloInstruction* read : reads) {
    for (const HloInstruction* user : read->users()) {
      if (user != root) return false;
    }
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      if (root->operand(i) == read && i != index) return false;
    }
  }
  return true;
}

// Which invariant elements of a loop's state are recomputed in the loop
// (sink) and which leave the state (drop: the sunk ones and those the loop
// only passes on).
struct Narrowing {
  std::vector<bool> sink, drop;
};

// Invariant elements that are constants or fuse into their readers are
// sunk; they and the invariant elements the loop does not read are
// dropped.
Narrowing ChooseElements(const HloInstruction& loop) {
  const HloComputation& body = *while_loop::Body(loop);
  const HloComputation& condition = *while_loop::Condition(loop);
  const HloInstruction* root = body.root_instruction();
  const HloInstruction* init = loop.operand(0);
  const std::vector<bool> invariant = while_loop::InvariantElements(body);
  const int64_t size = invariant.size();
  Narrowing narrowing{std::vector<bool>(size, false),
                      std::vector<bool>(size, false)};
  for (int64_t k = 0; k < size; ++k) {
    if (!invariant[k]) continue;
    const std::vector<HloInstruction*> body_reads = Reads(body, k);
    const std::vector<HloInstruction*> condition_reads = Reads(condition, k);
    const InitKind kind = init->opcode() == HloOpcode::kTuple
                              ? Classify(init->operand(k))
                              : InitKind::kOther;
    narrowing.sink[k] = kind == InitKind::kConstant ||
                        (kind == InitKind::kGenerated &&
                         ReadOnlyByFusibleOps(body_reads, root) &&
                         ReadOnlyByFusibleOps(condition_reads, nullptr));
    narrowing.drop[k] =
        narrowing.sink[k] ||
        (condition_reads.empty() && OnlyPassedOn(body_reads, root, k));
  }
  return narrowing;
}

// The loop's users keep reading a kept element, so that a loop that may
// never end does not become dead (and deleted) because every element they
// read left it.
void KeepAnElementReadOutside(const HloInstruction& loop,
                              Narrowing& narrowing) {
  const int64_t size = narrowing.drop.size();
  std::vector<bool> read_outside(size, false);
  bool reads_kept = false;
  for (const HloInstruction* user : loop.users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) {
      read_outside.assign(size, true);
      break;
    }
    read_outside[user->tuple_index()] = true;
  }
  for (int64_t k = 0; k < size; ++k) {
    reads_kept |= read_outside[k] && !narrowing.drop[k];
  }
  if (!reads_kept && loop.user_count() > 0 &&
      !while_loop::KnownTripCount(loop, kMaxSimulatedTrips).has_value()) {
    for (int64_t k = 0; k < size; ++k) {
      if (read_outside[k]) narrowing.sink[k] = narrowing.drop[k] = false;
    }
  }
}

// The reads of the sunk elements in `computation`, each replaced by a copy
// of its generated init.
std::vector<std::pair<const HloInstruction*, while_loop::Replacement>>
SunkReads(const HloComputation& computation, const HloInstruction* init,
          const std::vector<bool>& sink) {
  std::vector<std::pair<const HloInstruction*, while_loop::Replacement>>
      replacements;
  for (int64_t k = 0; k < static_cast<int64_t>(sink.size()); ++k) {
    if (!sink[k]) continue;
    const HloInstruction* value = init->operand(k);
    for (const HloInstruction* read : Reads(computation, k)) {
      replacements.emplace_back(
          read, [value](HloComputation& target, HloInstruction*) {
            return Regenerate(value, target);
          });
    }
  }
  return replacements;
}

// Replaces `loop` by one whose state holds the elements `narrowing` does
// not drop.
absl::Status ReplaceByNarrowed(HloInstruction* loop,
                               const Narrowing& narrowing) {
  const std::vector<bool>& drop = narrowing.drop;
  const int64_t size = drop.size();
  const HloComputation& body = *while_loop::Body(*loop);
  const HloInstruction* root = body.root_instruction();
  HloComputation& parent = *loop->parent();
  std::vector<HloInstruction*> init_elements;
  std::vector<int64_t> old_to_new(size, -1);
  std::vector<Shape> shapes;
  std::vector<HloInstruction*> new_init;
  for (int64_t k = 0; k < size; ++k) {
    init_elements.push_back(while_loop::InitElement(loop, k));
    if (drop[k]) continue;
    old_to_new[k] = shapes.size();
    shapes.push_back(loop->shape().tuple_shapes(k));
    new_init.push_back(init_elements[k]);
  }
  const Shape state = ShapeUtil::MakeTupleShape(shapes);
  ASSIGN_OR_RETURN(
      while_loop::LoopCopy new_body,
      while_loop::CopyLoopComputation(
          body, "simplified", state, old_to_new,
          SunkReads(body, loop->operand(0), narrowing.sink),
          [&](while_loop::LoopCopy& copy) {
            const HloInstruction* next = copy.clones.at(root);
            std::vector<HloInstruction*> elements;
            for (int64_t k = 0; k < size; ++k) {
              if (!drop[k]) elements.push_back(next->mutable_operand(k));
            }
            return copy.computation->AddInstruction(
                HloInstruction::CreateTuple(elements));
          }));
  const HloComputation& condition = *while_loop::Condition(*loop);
  ASSIGN_OR_RETURN(while_loop::LoopCopy new_condition,
                   while_loop::CopyLoopComputation(
                       condition, "simplified", state, old_to_new,
                       SunkReads(condition, loop->operand(0), narrowing.sink)));
  HloInstruction* init_tuple =
      parent.AddInstruction(HloInstruction::CreateTuple(new_init));
  // An element that left the state ends as it started.
  auto results = [&](HloInstruction* new_loop) {
    std::vector<HloInstruction*> elements;
    for (int64_t k = 0; k < size; ++k) {
      elements.push_back(
          drop[k]
              ? init_elements[k]
              : parent.AddInstruction(HloInstruction::CreateGetTupleElement(
                    loop->shape().tuple_shapes(k), new_loop, old_to_new[k])));
    }
    return parent.AddInstruction(HloInstruction::CreateTuple(elements));
  };
  return while_loop::ReplaceLoop(loop, init_tuple, new_condition.computation,
                                 new_body.computation, results)
      .status();
}

// Narrows the loop's state (ChooseElements); whether it did.
absl::StatusOr<bool> NarrowLoop(HloInstruction* loop) {
  if (!while_loop::IsRewritable(*loop)) return false;
  Narrowing narrowing = ChooseElements(*loop);
  KeepAnElementReadOutside(*loop, narrowing);
  if (absl::c_none_of(narrowing.drop, [](bool b) { return b; })) {
    return false;
  }
  RETURN_IF_ERROR(ReplaceByNarrowed(loop, narrowing));
  return true;
}

}  // namespace

absl::StatusOr<bool> WhileLoopSimplifierPass::Run(HloModule& module) {
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
    ASSIGN_OR_RETURN(bool removed, RemoveTrivialLoop(loop));
    if (!removed) {
      ASSIGN_OR_RETURN(removed, NarrowLoop(loop));
    }
    changed |= removed;
  }
  return changed;
}

}  // namespace mxla
