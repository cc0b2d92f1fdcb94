// Shape inference for the collectives on mxla's one device (one replica of
// one partition). A collective runs when each of its groups has a single
// participant, where it is an identity (all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-broadcast) or a copy
// (collective-permute from device 0 to itself); one that needs other
// devices is InvalidArgument naming what it needs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_inference.h"
#include "ir/shape_inference_errors.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {

using shape_inference_internal::OpError;

namespace {

constexpr absl::string_view kOneDevice = ShapeInference::kOneDevice;

Shape TupleOrSingle(absl::Span<const Shape* const> shapes) {
  if (shapes.size() == 1) return *shapes[0];
  std::vector<Shape> elements;
  for (const Shape* shape : shapes) elements.push_back(*shape);
  return ShapeUtil::MakeTupleShape(elements);
}

std::string Shapes(absl::Span<const Shape* const> shapes) {
  std::vector<std::string> text;
  for (const Shape* shape : shapes) text.push_back(shape->ToString());
  return absl::StrJoin(text, ", ");
}

// The shape a start op's result has on one device, given its operands.
absl::StatusOr<Shape> StartShape(HloOpcode opcode,
                                 absl::Span<const Shape* const> operands,
                                 const Shape& declared) {
  std::vector<Shape> elements;
  for (const Shape* shape : operands) elements.push_back(*shape);
  if (opcode == HloOpcode::kAllGatherStart) {
    for (const Shape* shape : operands) elements.push_back(*shape);
    return ShapeUtil::MakeTupleShape(elements);
  }
  // collective-permute-start: (operand, result), then any u32[] context
  // values XLA adds.
  elements.push_back(*operands[0]);
  if (declared.IsTuple()) {
    for (size_t i = 2; i < declared.tuple_shapes().size(); ++i) {
      elements.push_back(declared.tuple_shapes(i));
    }
  }
  return ShapeUtil::MakeTupleShape(elements);
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferSingleDeviceCollectiveShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const IdGroups& replica_groups, const IdGroups& source_target_pairs,
    const Shape& declared) {
  for (const std::vector<int64_t>& group : replica_groups) {
    if (group.size() > 1) {
      return OpError(opcode, "replica group {", absl::StrJoin(group, ","), "}",
                     " has ", group.size(), " participants, but ", kOneDevice,
                     ": a collective runs only when every group has one.");
    }
  }
  for (const std::vector<int64_t>& pair : source_target_pairs) {
    if (pair.size() != 2) {
      return OpError(opcode, "each source_target_pair must have 2 ids; got ",
                     "{", absl::StrJoin(pair, ","), "}.");
    }
    if (pair[0] != 0 || pair[1] != 0) {
      return OpError(opcode, "source_target_pair {", absl::StrJoin(pair, ","),
                     "}",
                     " names another device, but ", kOneDevice,
                     ": only {0,0} (a copy) can run.");
    }
  }
  if (operands.empty()) return OpError(opcode, "expects an operand.");
  Shape expected;
  switch (opcode) {
    case HloOpcode::kAllReduceDone:
      expected = *operands[0];
      break;
    case HloOpcode::kAllGatherDone: {
      const Shape& start = *operands[0];
      if (!start.IsTuple() || start.tuple_shapes().size() % 2 != 0 ||
          start.tuple_shapes().size() == 0) {
        return OpError(opcode, "expects an all-gather-start's result; got ",
                       start.ToString(), ".");
      }
      const int64_t n = static_cast<int64_t>(start.tuple_shapes().size()) / 2;
      std::vector<Shape> results(start.tuple_shapes().begin() + n,
                                 start.tuple_shapes().end());
      expected = n == 1 ? results[0] : ShapeUtil::MakeTupleShape(results);
      break;
    }
    case HloOpcode::kCollectivePermuteDone: {
      const Shape& start = *operands[0];
      if (!start.IsTuple() || start.tuple_shapes().size() < 2) {
        return OpError(opcode,
                       "expects a collective-permute-start's result; got ",
                       start.ToString(), ".");
      }
      expected = start.tuple_shapes(1);
      break;
    }
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart: {
      ASSIGN_OR_RETURN(expected, StartShape(opcode, operands, declared));
      break;
    }
    default:
      expected = TupleOrSingle(operands);
      break;
  }
  for (const Shape* operand : operands) {
    if (!operand->IsArray() && opcode != HloOpcode::kAllReduceDone &&
        opcode != HloOpcode::kAllGatherDone &&
        opcode != HloOpcode::kCollectivePermuteDone) {
      return OpError(opcode, "expects array operands; got ",
                     operand->ToString(), ".");
    }
  }
  if (declared != expected) {
    return OpError(opcode, "the result ", declared.ToString(),
                   " is not what one participant makes of its operands (",
                   Shapes(operands), "): ", expected.ToString(),
                   ". It needs more participants, and ", kOneDevice, ".");
  }
  return expected;
}

}  // namespace mxla
