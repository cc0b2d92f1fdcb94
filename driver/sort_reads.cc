#include "driver/sort_reads.h"

#include <algorithm>
#include <optional>

#include "ir/hlo_computation.h"

namespace mxla {
namespace {

// The limit along `dimension` of a slice that starts there at 0 with
// stride 1; nothing for any other instruction.
std::optional<int64_t> PrefixSliceLimit(const HloInstruction& instruction,
                                        int64_t dimension) {
  if (instruction.opcode() != HloOpcode::kSlice ||
      instruction.slice_starts()[dimension] != 0 ||
      instruction.slice_strides()[dimension] != 1) {
    return std::nullopt;
  }
  return instruction.slice_limits()[dimension];
}

// The prefix of `value` (one sorted array) its readers read, up to `size`.
int64_t PrefixReadOf(const HloInstruction& value, int64_t dimension,
                     int64_t size) {
  if (value.parent()->root_instruction() == &value) return size;
  int64_t prefix = 0;
  for (const HloInstruction* user : value.users()) {
    if (std::optional<int64_t> limit = PrefixSliceLimit(*user, dimension)) {
      prefix = std::max(prefix, *limit);
      continue;
    }
    if (user->opcode() != HloOpcode::kFusion) return size;
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) != &value) continue;
      const HloInstruction* parameter =
          user->to_apply()->parameter_instruction(i);
      if (user->to_apply()->root_instruction() == parameter) return size;
      for (const HloInstruction* use : parameter->users()) {
        std::optional<int64_t> limit = PrefixSliceLimit(*use, dimension);
        if (!limit.has_value()) return size;
        prefix = std::max(prefix, *limit);
      }
    }
  }
  return prefix;
}

}  // namespace

std::vector<bool> UnreadSortOutputs(const HloInstruction& sort) {
  const int64_t n = sort.operand_count();
  std::vector<bool> unread(n, false);
  if (!sort.shape().IsTuple() || sort.parent()->root_instruction() == &sort) {
    return unread;
  }
  std::vector<bool> read(n, false);
  for (const HloInstruction* user : sort.users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return unread;
    read[user->tuple_index()] = true;
  }
  for (int64_t i = 0; i < n; ++i) unread[i] = !read[i];
  return unread;
}

int64_t SortedPrefixRead(const HloInstruction& sort) {
  const int64_t dimension = sort.dimensions(0);
  const int64_t size = sort.operand(0)->shape().dimensions(dimension);
  if (!sort.shape().IsTuple()) return PrefixReadOf(sort, dimension, size);
  if (sort.parent()->root_instruction() == &sort) return size;
  int64_t prefix = 0;
  for (const HloInstruction* user : sort.users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return size;
    prefix = std::max(prefix, PrefixReadOf(*user, dimension, size));
  }
  return prefix;
}

}  // namespace mxla
