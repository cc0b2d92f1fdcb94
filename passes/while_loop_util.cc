#include "passes/while_loop_util.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_module.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "passes/dce.h"

namespace mxla::while_loop {

HloComputation* Condition(const HloInstruction& loop) {
  return loop.called_computations()[0];
}

HloComputation* Body(const HloInstruction& loop) {
  return loop.called_computations()[1];
}

namespace {

bool IsPureOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kCustomCall:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCallStart:
    case HloOpcode::kCallDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
      return false;
    default:
      return true;
  }
}

// Reads element `index` of `computation`'s parameter: get-tuple-element of
// the parameter.
bool IsElementOfParameter(const HloInstruction* instruction,
                          const HloComputation& computation) {
  return instruction->opcode() == HloOpcode::kGetTupleElement &&
         instruction->operand(0) == computation.parameter_instruction(0);
}

// The parameter is read only through get-tuple-element.
bool ReadsParameterByElement(const HloComputation& computation) {
  if (computation.num_parameters() != 1) return false;
  const HloInstruction* parameter = computation.parameter_instruction(0);
  if (parameter == nullptr || computation.root_instruction() == parameter) {
    return false;
  }
  const int64_t size = parameter->shape().tuple_shapes().size();
  for (const HloInstruction* user : parameter->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement ||
        user->tuple_index() < 0 || user->tuple_index() >= size) {
      return false;
    }
  }
  return true;
}

// An integer scalar constant's value, sign- or zero-extended.
std::optional<int64_t> IntegerConstant(const HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kConstant ||
      !instruction->has_literal() || !instruction->shape().IsScalar()) {
    return std::nullopt;
  }
  const Literal& literal = instruction->literal();
  switch (instruction->shape().element_type()) {
    case S8: return literal.data<int8_t>()[0];
    case S16: return literal.data<int16_t>()[0];
    case S32: return literal.data<int32_t>()[0];
    case S64: return literal.data<int64_t>()[0];
    case U8: return literal.data<uint8_t>()[0];
    case U16: return literal.data<uint16_t>()[0];
    case U32: return literal.data<uint32_t>()[0];
    case U64: return static_cast<int64_t>(literal.data<uint64_t>()[0]);
    default: return std::nullopt;
  }
}

// `value` wrapped to `type`'s width and extended back, as the type's
// arithmetic leaves it.
int64_t Wrap(int64_t value, PrimitiveType type) {
  const int bits = primitive_util::BitWidth(type);
  if (bits >= 64) return value;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(value) & mask;
  if (primitive_util::IsSignedIntegralType(type) &&
      (low >> (bits - 1)) != 0) {
    low |= ~mask;
  }
  return static_cast<int64_t>(low);
}

bool Compare(int64_t a, int64_t b, ComparisonDirection direction,
             bool is_unsigned) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (direction) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return is_unsigned ? ua < ub : a < b;
    case ComparisonDirection::kLe: return is_unsigned ? ua <= ub : a <= b;
    case ComparisonDirection::kGt: return is_unsigned ? ua > ub : a > b;
    case ComparisonDirection::kGe: return is_unsigned ? ua >= ub : a >= b;
  }
  return false;
}

ComparisonDirection Swapped(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kLt: return ComparisonDirection::kGt;
    case ComparisonDirection::kLe: return ComparisonDirection::kGe;
    case ComparisonDirection::kGt: return ComparisonDirection::kLt;
    case ComparisonDirection::kGe: return ComparisonDirection::kLe;
    default: return direction;
  }
}

}  // namespace

bool IsPure(const HloInstruction& instruction) {
  if (!IsPureOpcode(instruction.opcode())) return false;
  for (const HloComputation* callee : instruction.called_computations()) {
    if (callee == nullptr || !IsPureComputation(*callee)) return false;
  }
  return true;
}

bool IsPureComputation(const HloComputation& computation) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (instruction->opcode() != HloOpcode::kParameter &&
        !IsPure(*instruction)) {
      return false;
    }
  }
  return true;
}

bool IsRewritable(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile || loop.operand_count() != 1 ||
      loop.called_computations().size() != 2 || !loop.shape().IsTuple() ||
      loop.operand(0)->shape() != loop.shape()) {
    return false;
  }
  const HloComputation* condition = Condition(loop);
  const HloComputation* body = Body(loop);
  if (condition == nullptr || body == nullptr || condition == body ||
      !ReadsParameterByElement(*condition) ||
      !ReadsParameterByElement(*body) ||
      condition->parameter_instruction(0)->shape() != loop.shape() ||
      body->parameter_instruction(0)->shape() != loop.shape()) {
    return false;
  }
  const HloInstruction* root = body->root_instruction();
  return root != nullptr && root->opcode() == HloOpcode::kTuple &&
         root->shape() == loop.shape();
}

std::optional<int64_t> KnownTripCount(const HloInstruction& loop,
                                      int64_t limit) {
  if (!IsRewritable(loop)) return std::nullopt;
  const HloComputation& condition = *Condition(loop);
  const HloComputation& body = *Body(loop);
  const HloInstruction* compare = condition.root_instruction();
  if (compare == nullptr || compare->opcode() != HloOpcode::kCompare) {
    return std::nullopt;
  }
  ComparisonDirection direction = compare->comparison_direction();
  const HloInstruction* counter = compare->operand(0);
  std::optional<int64_t> bound = IntegerConstant(compare->operand(1));
  if (!IsElementOfParameter(counter, condition)) {
    counter = compare->operand(1);
    bound = IntegerConstant(compare->operand(0));
    direction = Swapped(direction);
  }
  if (!bound || !IsElementOfParameter(counter, condition)) return std::nullopt;
  const int64_t k = counter->tuple_index();
  const PrimitiveType type = counter->shape().element_type();
  const HloInstruction* next = body.root_instruction()->operand(k);
  if (next->opcode() != HloOpcode::kAdd &&
      next->opcode() != HloOpcode::kSubtract) {
    return std::nullopt;
  }
  std::optional<int64_t> step;
  const HloInstruction* read = next->operand(0);
  step = IntegerConstant(next->operand(1));
  if (!step && next->opcode() == HloOpcode::kAdd) {
    read = next->operand(1);
    step = IntegerConstant(next->operand(0));
  }
  if (!step || !IsElementOfParameter(read, body) || read->tuple_index() != k ||
      next->shape() != counter->shape()) {
    return std::nullopt;
  }
  const HloInstruction* init = loop.operand(0);
  if (init->opcode() != HloOpcode::kTuple) return std::nullopt;
  std::optional<int64_t> value = IntegerConstant(init->operand(k));
  if (!value || init->operand(k)->shape() != counter->shape()) {
    return std::nullopt;
  }
  const bool is_unsigned = primitive_util::IsUnsignedIntegralType(type);
  const bool add = next->opcode() == HloOpcode::kAdd;
  for (int64_t trips = 0; trips <= limit; ++trips) {
    if (!Compare(*value, *bound, direction, is_unsigned)) return trips;
    const uint64_t v = static_cast<uint64_t>(*value);
    const uint64_t s = static_cast<uint64_t>(*step);
    *value = Wrap(static_cast<int64_t>(add ? v + s : v - s), type);
  }
  return std::nullopt;
}

std::vector<bool> InvariantElements(const HloComputation& body) {
  const HloInstruction* root = body.root_instruction();
  std::vector<bool> invariant(root->operand_count(), false);
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const HloInstruction* element = root->operand(i);
    invariant[i] = IsElementOfParameter(element, body) &&
                   element->tuple_index() == i;
  }
  return invariant;
}

HloInstruction* InitElement(HloInstruction* loop, int64_t index) {
  HloInstruction* init = loop->mutable_operand(0);
  if (init->opcode() == HloOpcode::kTuple) return init->mutable_operand(index);
  return loop->parent()->AddInstruction(HloInstruction::CreateGetTupleElement(
      init->shape().tuple_shapes(index), init, index));
}

absl::StatusOr<LoopCopy> CopyLoopComputation(
    const HloComputation& from, absl::string_view suffix, const Shape& state,
    absl::Span<const int64_t> old_to_new,
    absl::Span<const std::pair<const HloInstruction*, Replacement>>
        replacements,
    const std::function<HloInstruction*(LoopCopy&)>& make_root) {
  HloModule* module = from.parent();
  RET_CHECK(module != nullptr && ReadsParameterByElement(from));
  const HloInstruction* old_parameter = from.parameter_instruction(0);
  LoopCopy copy;
  copy.computation =
      module->AddComputation(absl::StrCat(from.name(), ".", suffix), false);
  copy.parameter = copy.computation->AddInstruction(
      HloInstruction::CreateParameter(0, state, old_parameter->name()));
  copy.clones[old_parameter] = copy.parameter;
  absl::flat_hash_set<const HloInstruction*> replaced;
  for (const auto& [old, replace] : replacements) {
    copy.clones[old] = replace(*copy.computation, copy.parameter);
    replaced.insert(old);
  }
  std::vector<HloInstruction*> instructions;
  for (HloInstruction* instruction : from.MakeInstructionPostOrder()) {
    if (instruction != old_parameter && !replaced.contains(instruction)) {
      instructions.push_back(instruction);
    }
  }
  bool outside = false;
  CloneInstructionsInto(instructions, *copy.computation, copy.clones,
                        [&](HloInstruction* operand) {
                          outside = true;
                          return operand;
                        });
  RET_CHECK(!outside, "loop computation '", from.name(),
            "' reads an instruction it does not hold");
  // The copied reads of the state now index the new state.
  std::vector<HloInstruction*> gone;
  for (const HloInstruction* read : old_parameter->users()) {
    if (replaced.contains(read)) continue;
    HloInstruction* clone = copy.clones.at(read);
    const int64_t old_index = read->tuple_index();
    RET_CHECK(old_index >= 0 &&
              old_index < static_cast<int64_t>(old_to_new.size()));
    if (old_to_new[old_index] < 0) {
      gone.push_back(clone);
      continue;
    }
    clone->set_tuple_index(old_to_new[old_index]);
    clone->set_shape(state.tuple_shapes(old_to_new[old_index]));
  }
  HloInstruction* root = make_root ? make_root(copy)
                                   : copy.clones.at(from.root_instruction());
  RET_CHECK(root != nullptr);
  copy.computation->set_root_instruction(root);
  RETURN_IF_ERROR(RemoveDeadInstructions(*copy.computation).status());
  const std::vector<HloInstruction*> instructions_left =
      copy.computation->instructions();
  const absl::flat_hash_set<HloInstruction*> kept(instructions_left.begin(),
                                                  instructions_left.end());
  for (HloInstruction* read : gone) {
    RET_CHECK(!kept.contains(read), "loop computation '", from.name(),
              "' still reads a removed element: ", read->ToString());
  }
  return copy;
}

absl::StatusOr<HloInstruction*> ReplaceLoop(
    HloInstruction* loop, HloInstruction* init, HloComputation* condition,
    HloComputation* body,
    const std::function<HloInstruction*(HloInstruction*)>& result) {
  HloComputation* parent = loop->parent();
  RET_CHECK(parent != nullptr);
  auto created =
      HloInstruction::CreateGeneric(HloOpcode::kWhile, init->shape(), {init});
  created->CopyAttributesFrom(*loop);
  created->set_called_computations({condition, body});
  created->set_name(loop->name());
  HloInstruction* new_loop = parent->AddInstruction(std::move(created));
  HloInstruction* replacement = result(new_loop);
  RET_CHECK(replacement != nullptr && replacement->shape() == loop->shape());
  parent->ReplaceInstruction(loop, replacement);
  RETURN_IF_ERROR(parent->RemoveInstruction(loop));
  // Readers of one element read it directly (dce removes the tuple), so
  // that an element the loop no longer carries is not kept alive by it.
  if (replacement->opcode() == HloOpcode::kTuple) {
    const std::vector<HloInstruction*> users = replacement->users();
    for (HloInstruction* user : users) {
      if (user->opcode() == HloOpcode::kGetTupleElement) {
        parent->ReplaceInstruction(
            user, replacement->mutable_operand(user->tuple_index()));
      }
    }
  }
  return new_loop;
}

}  // namespace mxla::while_loop
