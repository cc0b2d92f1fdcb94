#include "runtime/buffer_assignment.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/fusion_plan.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/while_loop_util.h"
#include "runtime/buffer_leaves.h"

namespace mxla {
namespace {

// A while, conditional or sort: a step that runs computations of its own
// on all the leaves of its operands, writing all the leaves of its result.
bool IsSubprogram(const HloInstruction& instruction) {
  return IsSubprogramOp(instruction.opcode());
}


constexpr int64_t kAlignment = 64;

int64_t Aligned(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// A fusion output: (fusion, output number).
using Leaf = std::pair<const HloInstruction*, int64_t>;

// First-fit allocator over one growing arena.
class ArenaAllocator {
 public:
  int64_t Allocate(int64_t bytes) {
    bytes = Aligned(std::max<int64_t>(bytes, 1));
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      int64_t offset = it->first;
      int64_t remaining = it->second - bytes;
      free_.erase(it);
      if (remaining > 0) free_[offset + bytes] = remaining;
      return offset;
    }
    int64_t offset = size_;
    size_ += bytes;
    return offset;
  }
  void Free(int64_t offset, int64_t bytes) {
    bytes = Aligned(std::max<int64_t>(bytes, 1));
    auto [it, inserted] = free_.emplace(offset, bytes);
    // Merge with the next and previous free ranges.
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto previous = std::prev(it);
      if (previous->first + previous->second == it->first) {
        previous->second += it->second;
        free_.erase(it);
      }
    }
  }
  int64_t size() const { return size_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> bytes
  int64_t size_ = 0;
};

// Every parameter's leaves in XLA's order (parameter by parameter, tuple
// elements in order): their slots, and the argument buffer sizes.
absl::Status AssignParameters(const HloComputation& entry,
                              BufferAssignment& assignment,
                              std::map<Leaf, BufferSlot>& slots,
                              absl::flat_hash_map<const HloInstruction*,
                                                  std::vector<Leaf>>& leaves) {
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    const HloInstruction* parameter = entry.parameter_instruction(number);
    RET_CHECK(parameter != nullptr, "no parameter ", number);
    const Shape& shape = parameter->shape();
    leaves[parameter];  // An empty tuple has no leaves, but is a value.
    int64_t i = 0;
    ForEachArrayLeaf(shape, [&](const Shape& array) {
      int64_t bytes = ShapeUtil::ByteSizeOf(array);
      slots[{parameter, i}] = {
          BufferSlot::kParameter,
          static_cast<int64_t>(assignment.argument_bytes.size()), 0, bytes};
      assignment.argument_bytes.push_back(bytes);
      leaves[parameter].push_back({parameter, i});
      ++i;
    });
  }
  return absl::OkStatus();
}

// What each entry value stands for, built in post order: the leaves
// (fusion outputs, parameter elements, constants) of every value, the
// slots of those that are not fusion outputs, and the fusions in order.
struct EntryLeaves {
  std::map<Leaf, BufferSlot> slots;
  absl::flat_hash_map<const HloInstruction*, std::vector<Leaf>> leaves;
  std::vector<const HloInstruction*> fusions;
};

// A nested tuple's leaves are its elements' leaves in order.
void AddTupleLeaves(const HloInstruction& tuple, EntryLeaves& entry) {
  std::vector<Leaf>& own = entry.leaves[&tuple];
  for (const HloInstruction* element : tuple.operands()) {
    const std::vector<Leaf>& element_leaves = entry.leaves.at(element);
    own.insert(own.end(), element_leaves.begin(), element_leaves.end());
  }
}

// Element `index` owns the leaves after those of the elements before it.
absl::Status AddElementLeaves(const HloInstruction& gte, EntryLeaves& entry) {
  const Shape& tuple_shape = gte.operand(0)->shape();
  const std::vector<Leaf>& tuple = entry.leaves.at(gte.operand(0));
  int64_t index = gte.tuple_index();
  RET_CHECK(tuple_shape.IsTuple() && index >= 0 &&
                index < static_cast<int64_t>(tuple_shape.tuple_shapes().size()),
            gte.ToString());
  int64_t first = 0;
  for (int64_t i = 0; i < index; ++i) {
    first += CountArrayLeaves(tuple_shape.tuple_shapes(i));
  }
  int64_t count = CountArrayLeaves(tuple_shape.tuple_shapes(index));
  RET_CHECK(first + count <= static_cast<int64_t>(tuple.size()),
            gte.ToString());
  entry.leaves[&gte] = {tuple.begin() + first, tuple.begin() + first + count};
  return absl::OkStatus();
}

absl::StatusOr<EntryLeaves> CollectLeaves(const HloComputation& computation,
                                          BufferAssignment& assignment) {
  EntryLeaves entry;
  RETURN_IF_ERROR(
      AssignParameters(computation, assignment, entry.slots, entry.leaves));
  for (const HloInstruction* instruction :
       computation.MakeInstructionPostOrder()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
        break;
      case HloOpcode::kConstant:
        entry.slots[{instruction, 0}] = {
            BufferSlot::kConstant,
            static_cast<int64_t>(assignment.constants.size()), 0,
            ShapeUtil::ByteSizeOf(instruction->shape())};
        assignment.constants.push_back(instruction);
        entry.leaves[instruction] = {{instruction, 0}};
        break;
      case HloOpcode::kFusion: {
        std::vector<Leaf>& own = entry.leaves[instruction];
        int64_t outputs = instruction->shape().IsTuple()
                              ? instruction->shape().tuple_shapes().size()
                              : 1;
        for (int64_t i = 0; i < outputs; ++i) own.push_back({instruction, i});
        entry.fusions.push_back(instruction);
        break;
      }
      case HloOpcode::kAfterAll:
        // A token: a leaf of no bytes that nothing reads or writes.
        entry.slots[{instruction, 0}] = {BufferSlot::kArena, 0, 0, 0};
        entry.leaves[instruction] = {{instruction, 0}};
        break;
      case HloOpcode::kTuple:
        AddTupleLeaves(*instruction, entry);
        break;
      case HloOpcode::kGetTupleElement:
        RETURN_IF_ERROR(AddElementLeaves(*instruction, entry));
        break;
      default: {
        if (!IsSubprogramOp(instruction->opcode())) {
          return absl::FailedPreconditionError(absl::StrCat(
              "jit: '", instruction->name(), "' (",
              HloOpcodeString(instruction->opcode()),
              ") is outside any fusion"));
        }
        // A step whose outputs are the result's leaves.
        std::vector<Leaf>& own = entry.leaves[instruction];
        const int64_t outputs = CountArrayLeaves(instruction->shape());
        for (int64_t i = 0; i < outputs; ++i) own.push_back({instruction, i});
        entry.fusions.push_back(instruction);
        break;
      }
    }
  }
  return entry;
}

// Which fusion outputs are written straight into a result buffer: the
// first result each is.
std::map<Leaf, int64_t> InPlaceResults(const std::vector<Leaf>& root_leaves) {
  std::map<Leaf, int64_t> in_place;
  for (int64_t i = 0; i < static_cast<int64_t>(root_leaves.size()); ++i) {
    const Leaf& leaf = root_leaves[i];
    if (leaf.first->opcode() == HloOpcode::kFusion ||
        IsSubprogram(*leaf.first)) {
      in_place.emplace(leaf, i);
    }
  }
  return in_place;
}

// The last step reading each fusion output.
std::map<Leaf, int64_t> LastReads(const EntryLeaves& entry) {
  std::map<Leaf, int64_t> last_read;
  for (int64_t step = 0; step < static_cast<int64_t>(entry.fusions.size());
       ++step) {
    for (const HloInstruction* operand : entry.fusions[step]->operands()) {
      for (const Leaf& leaf : entry.leaves.at(operand)) last_read[leaf] = step;
    }
  }
  return last_read;
}

Shape LeafShape(const Leaf& leaf) {
  const Shape& shape = leaf.first->shape();
  if (IsSubprogram(*leaf.first)) {  // depth-first leaves
    Shape found;
    int64_t i = 0;
    ForEachArrayLeaf(shape, [&](const Shape& array) {
      if (i++ == leaf.second) found = array;
    });
    return found;
  }
  return shape.IsTuple() ? shape.tuple_shapes(leaf.second) : shape;
}

// Where a step may write output leaf `output` over operand leaf `operand`:
// an in-place dynamic-update-slice fusion over its updated operand, a
// scatter's result over its operand, a while loop's result over its
// initial state. `operand` must be read nowhere else by the step.
bool UpdatesInPlace(const HloInstruction& step, const Leaf& operand,
                    const Leaf& output, const EntryLeaves& values) {
  if (output.first != &step) return false;
  // The positions (among every leaf of every operand) holding `operand`.
  std::vector<int64_t> positions;
  int64_t position = 0;
  for (const HloInstruction* value : step.operands()) {
    for (const Leaf& leaf : values.leaves.at(value)) {
      if (leaf == operand) positions.push_back(position);
      ++position;
    }
  }
  if (positions.size() != 1) return false;
  switch (step.opcode()) {
    case HloOpcode::kFusion: {
      // Fusion operands are arrays: one leaf each.
      const int64_t k = InPlaceFusionOperand(step);
      return k >= 0 && positions[0] == k && output.second == 0;
    }
    case HloOpcode::kScatter:
      return positions[0] < step.operand_count() / 2 &&
             output.second == positions[0];
    case HloOpcode::kWhile:
      return output.second == positions[0];
    default:
      return false;
  }
}

// Per leaf of a while loop's state, whether its body passes it through
// unchanged (the body's root tuple holds the parameter's element there);
// empty unless the state is a flat tuple of arrays. Such a leaf never
// changes, so it can stay where its initial value is.
std::vector<bool> PassThroughLeaves(const HloInstruction& loop) {
  const HloComputation* body = while_loop::Body(loop);
  if (body == nullptr || !loop.shape().IsTuple() ||
      body->num_parameters() != 1) {
    return {};
  }
  const HloInstruction* state = body->parameter_instruction(0);
  const HloInstruction* root = body->root_instruction();
  const int64_t elements = loop.shape().tuple_shapes().size();
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != elements) {
    return {};
  }
  std::vector<bool> pass_through(elements);
  for (int64_t i = 0; i < elements; ++i) {
    if (!loop.shape().tuple_shapes(i).IsArray()) return {};
    const HloInstruction* element = root->operand(i);
    pass_through[i] = element->opcode() == HloOpcode::kGetTupleElement &&
                      element->operand(0) == state &&
                      element->tuple_index() == i;
  }
  return pass_through;
}

// The walk over the entry's steps that gives each leaf its buffer: the
// arena, what each argument and result aliases, and the arena temporaries
// live at each step.
class Assigner {
 public:
  Assigner(const HloComputation& entry, EntryLeaves values,
           BufferAssignment& assignment)
      : values_(std::move(values)),
        assignment_(assignment),
        root_leaves_(values_.leaves.at(entry.root_instruction())),
        in_place_(InPlaceResults(root_leaves_)),
        last_read_(LastReads(values_)) {}

  int64_t step_count() const { return values_.fusions.size(); }
  // Each argument leaf's Leaf, and the aliases both ways.
  absl::Status ReadAliases(absl::Span<const AliasedLeaf> aliases);
  // An overwritten argument that a result returns is copied aside first.
  void SetAsideReturnedArguments();
  // The buffers of step `step`'s operands and outputs.
  absl::Status AssignStep(int64_t step);
  // The arena's size and the results' buffers.
  void AssignResults();

 private:
  // Outputs last read before `step` are free again.
  void FreeExpiredBefore(int64_t step);
  // The leaves `fusion` reads: every leaf of every operand of a
  // subprogram, the one array of each operand of a fusion.
  absl::StatusOr<std::vector<Leaf>> OperandLeaves(
      const HloInstruction& fusion) const;
  // Where output `leaf` of the step goes.
  BufferSlot PlaceOutput(const HloInstruction& fusion, int64_t step,
                         const Leaf& leaf,
                         const std::vector<Leaf>& operand_leaves,
                         const std::vector<bool>& pass_through);
  BufferSlot IntoArgument(const HloInstruction& fusion, int64_t step,
                          const Leaf& leaf, int64_t argument, int64_t bytes);
  std::optional<BufferSlot> PassedThroughArgument(
      const Leaf& leaf, const std::vector<Leaf>& operand_leaves,
      const std::vector<bool>& pass_through) const;
  BufferSlot InArena(const HloInstruction& fusion, int64_t step,
                     const Leaf& leaf, const std::vector<Leaf>& operand_leaves,
                     int64_t bytes);
  std::optional<int64_t> TakeDeadOperand(
      const HloInstruction& fusion, int64_t step, const Leaf& leaf,
      const std::vector<Leaf>& operand_leaves, int64_t bytes);

  EntryLeaves values_;
  BufferAssignment& assignment_;
  const std::vector<Leaf> root_leaves_;
  const std::map<Leaf, int64_t> in_place_;
  const std::map<Leaf, int64_t> last_read_;
  std::vector<Leaf> argument_leaf_;
  std::map<int64_t, int64_t> argument_of_result_;  // result leaf -> argument
  std::vector<bool> overwritten_;
  // The last step reading each overwritten argument.
  std::vector<int64_t> argument_last_read_;
  ArenaAllocator arena_;
  std::map<int64_t, BufferSlot> set_aside_;  // argument leaf -> arena copy
  std::multimap<int64_t, Leaf> expiring_;    // last read step -> leaf
};

absl::Status Assigner::ReadAliases(absl::Span<const AliasedLeaf> aliases) {
  argument_leaf_.resize(assignment_.argument_bytes.size());
  for (const auto& [leaf, slot] : values_.slots) {
    if (slot.kind == BufferSlot::kParameter) argument_leaf_[slot.index] = leaf;
  }
  overwritten_.assign(argument_leaf_.size(), false);
  for (const AliasedLeaf& alias : aliases) {
    RET_CHECK(
        alias.result_leaf >= 0 &&
            alias.result_leaf < static_cast<int64_t>(root_leaves_.size()) &&
            alias.argument_leaf >= 0 &&
            alias.argument_leaf < static_cast<int64_t>(argument_leaf_.size()),
        "alias out of range");
    RET_CHECK(
        argument_of_result_.emplace(alias.result_leaf, alias.argument_leaf)
            .second,
        "result leaf aliased twice");
    // Returning the argument itself leaves its buffer as it is.
    overwritten_[alias.argument_leaf] =
        root_leaves_[alias.result_leaf] != argument_leaf_[alias.argument_leaf];
  }
  argument_last_read_.assign(argument_leaf_.size(), -1);
  for (int64_t a = 0; a < static_cast<int64_t>(argument_leaf_.size()); ++a) {
    if (!overwritten_[a]) continue;
    auto read = last_read_.find(argument_leaf_[a]);
    if (read != last_read_.end()) argument_last_read_[a] = read->second;
  }
  return absl::OkStatus();
}

void Assigner::SetAsideReturnedArguments() {
  for (const Leaf& leaf : root_leaves_) {
    if (leaf.first->opcode() != HloOpcode::kParameter) continue;
    const BufferSlot& slot = values_.slots.at(leaf);
    if (!overwritten_[slot.index] || set_aside_.count(slot.index)) continue;
    BufferSlot copy{BufferSlot::kArena, 0, arena_.Allocate(slot.bytes),
                    slot.bytes};
    set_aside_[slot.index] = copy;
    assignment_.copies_before.push_back({slot, copy});
  }
}

void Assigner::FreeExpiredBefore(int64_t step) {
  while (!expiring_.empty() && expiring_.begin()->first < step) {
    const BufferSlot& slot = values_.slots.at(expiring_.begin()->second);
    arena_.Free(slot.offset, slot.bytes);
    expiring_.erase(expiring_.begin());
  }
}

absl::StatusOr<std::vector<Leaf>> Assigner::OperandLeaves(
    const HloInstruction& fusion) const {
  std::vector<Leaf> operand_leaves;
  for (const HloInstruction* operand : fusion.operands()) {
    const std::vector<Leaf>& leaves = values_.leaves.at(operand);
    if (IsSubprogram(fusion)) {
      operand_leaves.insert(operand_leaves.end(), leaves.begin(), leaves.end());
      continue;
    }
    RET_CHECK(operand->shape().IsArray(), fusion.ToString());
    operand_leaves.push_back(leaves[0]);
  }
  return operand_leaves;
}

absl::Status Assigner::AssignStep(int64_t step) {
  FreeExpiredBefore(step);
  const HloInstruction* fusion = values_.fusions[step];
  FusionStep fusion_step{fusion, {}};
  ASSIGN_OR_RETURN(const std::vector<Leaf> operand_leaves,
                   OperandLeaves(*fusion));
  for (const Leaf& leaf : operand_leaves) {
    fusion_step.buffers.push_back(values_.slots.at(leaf));
  }
  const std::vector<bool> pass_through = fusion->opcode() == HloOpcode::kWhile
                                             ? PassThroughLeaves(*fusion)
                                             : std::vector<bool>{};
  for (const Leaf& leaf : values_.leaves.at(fusion)) {
    const BufferSlot slot =
        PlaceOutput(*fusion, step, leaf, operand_leaves, pass_through);
    values_.slots[leaf] = slot;
    fusion_step.buffers.push_back(slot);
  }
  assignment_.steps.push_back(std::move(fusion_step));
  return absl::OkStatus();
}

BufferSlot Assigner::PlaceOutput(const HloInstruction& fusion, int64_t step,
                                 const Leaf& leaf,
                                 const std::vector<Leaf>& operand_leaves,
                                 const std::vector<bool>& pass_through) {
  const int64_t bytes = ShapeUtil::ByteSizeOf(LeafShape(leaf));
  auto result = in_place_.find(leaf);
  auto alias = result == in_place_.end()
                   ? argument_of_result_.end()
                   : argument_of_result_.find(result->second);
  if (alias != argument_of_result_.end()) {
    return IntoArgument(fusion, step, leaf, alias->second, bytes);
  }
  if (result != in_place_.end()) {
    BufferSlot slot;
    slot.bytes = bytes;
    slot.kind = BufferSlot::kResult;
    slot.index = result->second;
    return slot;
  }
  if (std::optional<BufferSlot> argument =
          PassedThroughArgument(leaf, operand_leaves, pass_through)) {
    return *argument;
  }
  return InArena(fusion, step, leaf, operand_leaves, bytes);
}

// Into the argument's buffer, if nothing reads the argument later (or this
// step reads it only to update it in place); else kept in the arena to the
// end, then copied in.
BufferSlot Assigner::IntoArgument(const HloInstruction& fusion, int64_t step,
                                  const Leaf& leaf, int64_t argument,
                                  int64_t bytes) {
  const int64_t read = argument_last_read_[argument];
  if (read < step ||
      (read == step &&
       UpdatesInPlace(fusion, argument_leaf_[argument], leaf, values_))) {
    return {BufferSlot::kParameter, argument, 0, bytes};
  }
  BufferSlot slot;
  slot.bytes = bytes;
  slot.kind = BufferSlot::kArena;
  slot.offset = arena_.Allocate(bytes);
  return slot;
}

// A loop state leaf the body never changes, starting as an argument
// nothing writes: the loop reads the argument in place instead of copying
// it in (a model's weights, carried through a generate loop).
std::optional<BufferSlot> Assigner::PassedThroughArgument(
    const Leaf& leaf, const std::vector<Leaf>& operand_leaves,
    const std::vector<bool>& pass_through) const {
  if (leaf.second >= static_cast<int64_t>(pass_through.size()) ||
      !pass_through[leaf.second]) {
    return std::nullopt;
  }
  const BufferSlot& operand = values_.slots.at(operand_leaves[leaf.second]);
  if (operand.kind != BufferSlot::kParameter || overwritten_[operand.index]) {
    return std::nullopt;
  }
  return operand;
}

// An arena temporary, live until its last read.
BufferSlot Assigner::InArena(const HloInstruction& fusion, int64_t step,
                             const Leaf& leaf,
                             const std::vector<Leaf>& operand_leaves,
                             int64_t bytes) {
  BufferSlot slot;
  slot.bytes = bytes;
  slot.kind = BufferSlot::kArena;
  const std::optional<int64_t> over =
      TakeDeadOperand(fusion, step, leaf, operand_leaves, bytes);
  slot.offset = over.has_value() ? *over : arena_.Allocate(bytes);
  auto read = last_read_.find(leaf);
  expiring_.emplace(read == last_read_.end() ? step : read->second, leaf);
  return slot;
}

// Over a dead operand's slice when the step updates it in place: the
// operand's arena offset, no longer expiring; none when no operand fits.
std::optional<int64_t> Assigner::TakeDeadOperand(
    const HloInstruction& fusion, int64_t step, const Leaf& leaf,
    const std::vector<Leaf>& operand_leaves, int64_t bytes) {
  for (const Leaf& operand : operand_leaves) {
    auto operand_read = last_read_.find(operand);
    const BufferSlot& operand_slot = values_.slots.at(operand);
    if (operand_slot.kind != BufferSlot::kArena ||
        operand_slot.bytes != bytes ||
        operand.first->opcode() == HloOpcode::kAfterAll ||
        operand_read == last_read_.end() || operand_read->second != step ||
        !UpdatesInPlace(fusion, operand, leaf, values_)) {
      continue;
    }
    auto range = expiring_.equal_range(step);
    auto owner = std::find_if(range.first, range.second,
                              [&](auto& e) { return e.second == operand; });
    if (owner == range.second) continue;  // not an arena temporary
    expiring_.erase(owner);
    return operand_slot.offset;
  }
  return std::nullopt;
}

void Assigner::AssignResults() {
  assignment_.arena_bytes = arena_.size();
  for (const Leaf& leaf : root_leaves_) {
    BufferSlot slot = values_.slots.at(leaf);
    // A parameter returned as it was (not a value written over it).
    if (leaf.first->opcode() == HloOpcode::kParameter &&
        set_aside_.count(slot.index)) {
      slot = set_aside_.at(slot.index);
    }
    assignment_.results.push_back(slot);
  }
}

}  // namespace

absl::StatusOr<BufferAssignment> AssignBuffers(
    const HloComputation& entry, absl::Span<const AliasedLeaf> aliases) {
  BufferAssignment assignment;
  assignment.aliases.assign(aliases.begin(), aliases.end());
  ASSIGN_OR_RETURN(EntryLeaves values, CollectLeaves(entry, assignment));
  Assigner assigner(entry, std::move(values), assignment);
  RETURN_IF_ERROR(assigner.ReadAliases(aliases));
  assigner.SetAsideReturnedArguments();
  for (int64_t step = 0; step < assigner.step_count(); ++step) {
    RETURN_IF_ERROR(assigner.AssignStep(step));
  }
  assigner.AssignResults();
  return assignment;
}

}  // namespace mxla
