#include "runtime/buffer_assignment.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"

namespace mxla {
namespace {

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

}  // namespace

absl::StatusOr<BufferAssignment> AssignBuffers(const HloComputation& entry) {
  BufferAssignment assignment;
  std::vector<HloInstruction*> order = entry.MakeInstructionPostOrder();
  // The leaves (fusion outputs, parameter elements, constants) each value
  // stands for, and where those that are not fusion outputs live.
  std::map<Leaf, BufferSlot> slots;
  absl::flat_hash_map<const HloInstruction*, std::vector<Leaf>> leaves;
  RETURN_IF_ERROR(AssignParameters(entry, assignment, slots, leaves));
  std::vector<const HloInstruction*> fusions;
  for (const HloInstruction* instruction : order) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
        break;
      case HloOpcode::kConstant:
        slots[{instruction, 0}] = {
            BufferSlot::kConstant,
            static_cast<int64_t>(assignment.constants.size()), 0,
            ShapeUtil::ByteSizeOf(instruction->shape())};
        assignment.constants.push_back(instruction);
        leaves[instruction] = {{instruction, 0}};
        break;
      case HloOpcode::kFusion: {
        std::vector<Leaf>& own = leaves[instruction];
        int64_t outputs = instruction->shape().IsTuple()
                              ? instruction->shape().tuple_shapes().size()
                              : 1;
        for (int64_t i = 0; i < outputs; ++i) own.push_back({instruction, i});
        fusions.push_back(instruction);
        break;
      }
      case HloOpcode::kTuple: {
        // A nested tuple's leaves are its elements' leaves in order.
        std::vector<Leaf>& own = leaves[instruction];
        for (const HloInstruction* element : instruction->operands()) {
          const std::vector<Leaf>& element_leaves = leaves.at(element);
          own.insert(own.end(), element_leaves.begin(), element_leaves.end());
        }
        break;
      }
      case HloOpcode::kGetTupleElement: {
        // Element `index` owns the leaves after those of the elements
        // before it.
        const Shape& tuple_shape = instruction->operand(0)->shape();
        const std::vector<Leaf>& tuple = leaves.at(instruction->operand(0));
        int64_t index = instruction->tuple_index();
        RET_CHECK(tuple_shape.IsTuple() && index >= 0 &&
                      index < static_cast<int64_t>(
                                  tuple_shape.tuple_shapes().size()),
                  instruction->ToString());
        int64_t first = 0;
        for (int64_t i = 0; i < index; ++i) {
          first += CountArrayLeaves(tuple_shape.tuple_shapes(i));
        }
        int64_t count = CountArrayLeaves(tuple_shape.tuple_shapes(index));
        RET_CHECK(first + count <= static_cast<int64_t>(tuple.size()),
                  instruction->ToString());
        leaves[instruction] = {tuple.begin() + first,
                               tuple.begin() + first + count};
        break;
      }
      default:
        return absl::FailedPreconditionError(absl::StrCat(
            "jit: '", instruction->name(), "' (",
            HloOpcodeString(instruction->opcode()), ") is outside any fusion"));
    }
  }

  // Which fusion outputs are written straight into a result buffer.
  const std::vector<Leaf>& root_leaves = leaves.at(entry.root_instruction());
  std::map<Leaf, int64_t> in_place;
  for (int64_t i = 0; i < static_cast<int64_t>(root_leaves.size()); ++i) {
    const Leaf& leaf = root_leaves[i];
    if (leaf.first->opcode() == HloOpcode::kFusion && !in_place.contains(leaf)) {
      in_place[leaf] = i;
    }
  }

  // Last step reading each fusion output.
  std::map<Leaf, int64_t> last_read;
  for (int64_t step = 0; step < static_cast<int64_t>(fusions.size()); ++step) {
    for (const HloInstruction* operand : fusions[step]->operands()) {
      for (const Leaf& leaf : leaves.at(operand)) last_read[leaf] = step;
    }
  }

  auto leaf_shape = [](const Leaf& leaf) -> const Shape& {
    const Shape& shape = leaf.first->shape();
    return shape.IsTuple() ? shape.tuple_shapes(leaf.second) : shape;
  };
  ArenaAllocator arena;
  std::multimap<int64_t, Leaf> expiring;  // last read step -> leaf
  for (int64_t step = 0; step < static_cast<int64_t>(fusions.size()); ++step) {
    // Outputs last read before this step are free again.
    while (!expiring.empty() && expiring.begin()->first < step) {
      const BufferSlot& slot = slots.at(expiring.begin()->second);
      arena.Free(slot.offset, slot.bytes);
      expiring.erase(expiring.begin());
    }
    const HloInstruction* fusion = fusions[step];
    FusionStep fusion_step{fusion, {}};
    for (const HloInstruction* operand : fusion->operands()) {
      RET_CHECK(operand->shape().IsArray(), fusion->ToString());
      fusion_step.buffers.push_back(slots.at(leaves.at(operand)[0]));
    }
    for (const Leaf& leaf : leaves.at(fusion)) {
      BufferSlot slot;
      slot.bytes = ShapeUtil::ByteSizeOf(leaf_shape(leaf));
      if (auto it = in_place.find(leaf); it != in_place.end()) {
        slot.kind = BufferSlot::kResult;
        slot.index = it->second;
      } else {
        slot.kind = BufferSlot::kArena;
        slot.offset = arena.Allocate(slot.bytes);
        auto read = last_read.find(leaf);
        expiring.emplace(read == last_read.end() ? step : read->second, leaf);
      }
      slots[leaf] = slot;
      fusion_step.buffers.push_back(slot);
    }
    assignment.steps.push_back(std::move(fusion_step));
  }
  assignment.arena_bytes = arena.size();
  for (const Leaf& leaf : root_leaves) assignment.results.push_back(slots.at(leaf));
  return assignment;
}

}  // namespace mxla
