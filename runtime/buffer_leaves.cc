#include "runtime/buffer_leaves.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// Like ForEachArrayLeaf, with the leaf's tuple index (error paths only).
void ForEachIndexedLeaf(
    const Shape& shape, std::vector<int64_t>& index,
    absl::FunctionRef<void(const Shape&, const std::vector<int64_t>&)> fn) {
  if (!shape.IsTuple()) {
    fn(shape, index);
    return;
  }
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
       ++i) {
    index.push_back(i);
    ForEachIndexedLeaf(shape.tuple_shapes(i), index, fn);
    index.pop_back();
  }
}

// "tuple element {0,1}, f32[2]" or "f32[2]" for leaf `leaf` of `shape`.
std::string DescribeLeafOf(const Shape& shape, int64_t leaf) {
  std::string text;
  int64_t count = 0;
  std::vector<int64_t> index;
  ForEachIndexedLeaf(shape, index, [&](const Shape& array,
                                       const std::vector<int64_t>& at) {
    if (count++ != leaf) return;
    text = at.empty() ? array.ToString()
                      : absl::StrCat("tuple element {", absl::StrJoin(at, ","),
                                     "}, ", array.ToString());
  });
  return text;
}

bool Overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + static_cast<uintptr_t>(b_bytes) &&
         y < x + static_cast<uintptr_t>(a_bytes);
}

}  // namespace

void ForEachArrayLeaf(const Shape& shape,
                      absl::FunctionRef<void(const Shape&)> fn) {
  if (!shape.IsTuple()) {
    fn(shape);
    return;
  }
  for (const Shape& element : shape.tuple_shapes()) {
    ForEachArrayLeaf(element, fn);
  }
}

int64_t CountArrayLeaves(const Shape& shape) {
  int64_t count = 0;
  ForEachArrayLeaf(shape, [&](const Shape&) { ++count; });
  return count;
}

template <typename LiteralType>
void CollectLeavesOf(LiteralType& literal,
                     std::vector<LiteralType*>& leaves) {
  if (!literal.shape().IsTuple()) {
    leaves.push_back(&literal);
    return;
  }
  for (int64_t i = 0; i < literal.tuple_size(); ++i) {
    CollectLeavesOf(literal.tuple_element(i), leaves);
  }
}

void CollectArrayLeaves(Literal& literal, std::vector<Literal*>& leaves) {
  CollectLeavesOf(literal, leaves);
}

void CollectArrayLeaves(const Literal& literal,
                        std::vector<const Literal*>& leaves) {
  CollectLeavesOf(literal, leaves);
}

int64_t CountArgumentLeaves(const HloComputation& entry) {
  int64_t count = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    count += CountArrayLeaves(entry.parameter_instruction(i)->shape());
  }
  return count;
}

int64_t CountResultLeaves(const HloComputation& entry) {
  return CountArrayLeaves(entry.root_instruction()->shape());
}

std::string DescribeArgumentLeaf(const HloComputation& entry, int64_t leaf) {
  int64_t first = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction* parameter = entry.parameter_instruction(i);
    int64_t count = CountArrayLeaves(parameter->shape());
    if (leaf < first + count) {
      return absl::StrCat("argument buffer ", leaf, " (parameter ", i, " '",
                          parameter->name(), "', ",
                          DescribeLeafOf(parameter->shape(), leaf - first),
                          ")");
    }
    first += count;
  }
  return absl::StrCat("argument buffer ", leaf);
}

std::string DescribeResultLeaf(const HloComputation& entry, int64_t leaf) {
  return absl::StrCat("result buffer ", leaf, " (",
                      DescribeLeafOf(entry.root_instruction()->shape(), leaf),
                      ")");
}

namespace {

// One leaf's buffer: `size` bytes, as its shape has, and not null when it
// has any; `describe` names the leaf.
absl::Status CheckLeafBuffer(const void* data, int64_t size, const Shape& shape,
                             absl::FunctionRef<std::string()> describe) {
  int64_t expected = ShapeUtil::ByteSizeOf(shape);
  if (size != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(describe(), " has ", size, " bytes, expected ", expected));
  }
  if (data == nullptr && expected > 0) {
    return absl::InvalidArgumentError(absl::StrCat(describe(), " is null"));
  }
  return absl::OkStatus();
}

// As many buffers and sizes as the entry has argument and result leaves,
// each of its leaf's size and not null.
absl::Status CheckLeafBuffers(const HloComputation& entry,
                              absl::Span<const void* const> arguments,
                              absl::Span<const int64_t> argument_sizes,
                              absl::Span<void* const> results,
                              absl::Span<const int64_t> result_sizes) {
  const int64_t argument_count = CountArgumentLeaves(entry);
  const int64_t result_count = CountResultLeaves(entry);
  if (static_cast<int64_t>(arguments.size()) != argument_count ||
      argument_sizes.size() != arguments.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", argument_count, " argument buffers and sizes, got ",
        arguments.size(), " buffers and ", argument_sizes.size(), " sizes"));
  }
  if (static_cast<int64_t>(results.size()) != result_count ||
      result_sizes.size() != results.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", result_count, " result buffers and sizes, got ",
        results.size(), " buffers and ", result_sizes.size(), " sizes"));
  }
  absl::Status status;
  int64_t leaf = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    ForEachArrayLeaf(entry.parameter_instruction(i)->shape(),
                     [&](const Shape& shape) {
      int64_t k = leaf++;
      if (!status.ok()) return;
      status = CheckLeafBuffer(arguments[k], argument_sizes[k], shape,
                               [&] { return DescribeArgumentLeaf(entry, k); });
    });
  }
  if (!status.ok()) return status;
  leaf = 0;
  ForEachArrayLeaf(entry.root_instruction()->shape(), [&](const Shape& shape) {
    int64_t k = leaf++;
    if (!status.ok()) return;
    status = CheckLeafBuffer(results[k], result_sizes[k], shape,
                             [&] { return DescribeResultLeaf(entry, k); });
  });
  return status;
}

// Per result leaf, the argument leaf it donates (-1: none): a result
// buffer that is the argument buffer it aliases (the module's
// input_output_alias).
absl::StatusOr<std::vector<int64_t>> DonatedArguments(
    const HloComputation& entry, absl::Span<const void* const> arguments,
    absl::Span<void* const> results) {
  std::vector<int64_t> donated(results.size(), -1);
  if (entry.parent() == nullptr ||
      entry.parent()->entry_computation() != &entry) {
    return donated;
  }
  ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                   ResolveInputOutputAliases(*entry.parent()));
  for (const AliasedLeaf& alias : aliases) {
    if (results[alias.result_leaf] == arguments[alias.argument_leaf]) {
      donated[alias.result_leaf] = alias.argument_leaf;
    }
  }
  return donated;
}

// The first forbidden overlap in a fixed order (donated arguments, then
// results by number), named: what CheckSizedBuffers reports once
// HasForbiddenOverlap has found that there is one.
// The first result, in order, overlapping a buffer it must not (another
// argument than the one it donates, or an earlier result), and that
// buffer: each result compared with every other buffer.
struct ResultOverlap {
  size_t result;
  size_t other;
  bool other_is_result;
};
std::optional<ResultOverlap> FirstResultOverlap(
    absl::Span<const void* const> arguments,
    absl::Span<const int64_t> argument_sizes, absl::Span<void* const> results,
    absl::Span<const int64_t> result_sizes, absl::Span<const int64_t> donated) {
  for (size_t r = 0; r < results.size(); ++r) {
    for (size_t a = 0; a < arguments.size(); ++a) {
      if (donated[r] != static_cast<int64_t>(a) &&
          Overlap(results[r], result_sizes[r], arguments[a],
                  argument_sizes[a])) {
        return ResultOverlap{r, a, false};
      }
    }
    for (size_t s = 0; s < r; ++s) {
      if (Overlap(results[r], result_sizes[r], results[s], result_sizes[s])) {
        return ResultOverlap{r, s, true};
      }
    }
  }
  return std::nullopt;
}

absl::Status FirstForbiddenOverlap(const HloComputation& entry,
                                   absl::Span<const void* const> arguments,
                                   absl::Span<const int64_t> argument_sizes,
                                   absl::Span<void* const> results,
                                   absl::Span<const int64_t> result_sizes,
                                   absl::Span<const int64_t> donated) {
  for (int64_t a : donated) {
    if (a < 0) continue;
    for (size_t b = 0; b < arguments.size(); ++b) {
      if (static_cast<int64_t>(b) != a &&
          Overlap(arguments[a], argument_sizes[a], arguments[b],
                  argument_sizes[b])) {
        return absl::InvalidArgumentError(
            absl::StrCat("donated ", DescribeArgumentLeaf(entry, a),
                         " overlaps ", DescribeArgumentLeaf(entry, b)));
      }
    }
  }
  const std::optional<ResultOverlap> overlap = FirstResultOverlap(
      arguments, argument_sizes, results, result_sizes, donated);
  if (!overlap.has_value()) {
    return absl::InternalError("no forbidden overlap to name");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      DescribeResultLeaf(entry, overlap->result), " overlaps ",
      overlap->other_is_result ? DescribeResultLeaf(entry, overlap->other)
                               : DescribeArgumentLeaf(entry, overlap->other)));
}

// HasForbiddenOverlap with the buffers sorted by address: each then meets
// exactly the earlier ones still open at its start, the pairs that overlap.
bool ForbiddenInAddressOrder(absl::Span<const void* const> arguments,
                             absl::Span<const int64_t> argument_sizes,
                             absl::Span<void* const> results,
                             absl::Span<const int64_t> result_sizes,
                             absl::Span<const int64_t> donated) {
  struct Range {
    uintptr_t begin;
    uintptr_t end;
    int64_t index;
    bool result;
  };
  std::vector<Range> ranges;
  ranges.reserve(arguments.size() + results.size());
  auto add = [&](const void* data, int64_t bytes, int64_t index, bool result) {
    if (bytes == 0) return;
    const auto begin = reinterpret_cast<uintptr_t>(data);
    ranges.push_back({begin, begin + static_cast<uintptr_t>(bytes), index,
                      result});
  };
  for (size_t a = 0; a < arguments.size(); ++a) {
    add(arguments[a], argument_sizes[a], a, false);
  }
  for (size_t r = 0; r < results.size(); ++r) {
    add(results[r], result_sizes[r], r, true);
  }
  auto forbidden = [&](const Range& x, const Range& y) {
    if (!x.result && !y.result) return false;
    if (x.result && y.result) return true;
    const Range& result = x.result ? x : y;
    const Range& argument = x.result ? y : x;
    return donated[result.index] != argument.index;
  };
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& x, const Range& y) { return x.begin < y.begin; });
  std::vector<const Range*> open;
  for (const Range& range : ranges) {
    std::erase_if(open, [&](const Range* earlier) {
      return earlier->end <= range.begin;
    });
    for (const Range* earlier : open) {
      if (forbidden(*earlier, range)) return true;
    }
    open.push_back(&range);
  }
  return false;
}

}  // namespace

bool HasForbiddenOverlap(absl::Span<const void* const> arguments,
                         absl::Span<const int64_t> argument_sizes,
                         absl::Span<void* const> results,
                         absl::Span<const int64_t> result_sizes,
                         absl::Span<const int64_t> donated) {
  // A donated argument is its result's buffer: whatever overlaps it
  // overlaps that result, so arguments never need comparing. A few
  // results (most calls, however many arguments): each against every
  // other buffer, cheaper than sorting them all.
  constexpr size_t kPairwiseResults = 16;
  if (results.size() <= kPairwiseResults) {
    return FirstResultOverlap(arguments, argument_sizes, results,
                              result_sizes, donated)
        .has_value();
  }
  return ForbiddenInAddressOrder(arguments, argument_sizes, results,
                                 result_sizes, donated);
}

absl::Status CheckSizedBuffers(const HloComputation& entry,
                               absl::Span<const void* const> arguments,
                               absl::Span<const int64_t> argument_sizes,
                               absl::Span<void* const> results,
                               absl::Span<const int64_t> result_sizes) {
  RETURN_IF_ERROR(CheckLeafBuffers(entry, arguments, argument_sizes, results,
                                   result_sizes));
  // A result overlaps no other result, and no argument but the one it
  // donates; a donated argument overlaps no other argument. Checked by
  // address order (a model's hundreds of state arrays made the pairwise
  // check 0.35 ms a call); only a failure compares every pair, to name
  // the first.
  ASSIGN_OR_RETURN(const std::vector<int64_t> donated,
                   DonatedArguments(entry, arguments, results));
  if (!HasForbiddenOverlap(arguments, argument_sizes, results, result_sizes,
                           donated)) {
    return absl::OkStatus();
  }
  return FirstForbiddenOverlap(entry, arguments, argument_sizes, results,
                               result_sizes, donated);
}

}  // namespace mxla
