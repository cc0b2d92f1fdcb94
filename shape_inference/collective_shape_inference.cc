// Shape inference for the collectives and the asynchronous wrappers on
// mxla's one device (one replica of one partition). A collective runs when each of its groups has a single
// participant, where it is an identity (all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-broadcast) or a copy
// (collective-permute from device 0 to itself); one that needs other
// devices is InvalidArgument naming what it needs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

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

absl::StatusOr<Shape> ShapeInference::InferAsyncShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const std::optional<ProgramShape>& callee, const Shape& declared) {
  auto element = [&](int64_t i) -> absl::StatusOr<Shape> {
    if (operands.size() != 1 || !operands[0]->IsTuple() ||
        static_cast<int64_t>(operands[0]->tuple_shapes().size()) <= i) {
      return OpError(opcode, "expects the tuple of a start; got ",
                     Shapes(operands), ".");
    }
    return operands[0]->tuple_shapes(i);
  };
  switch (opcode) {
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCallDone:
    case HloOpcode::kCopyDone: {
      ASSIGN_OR_RETURN(Shape result, element(1));
      if (result != declared) {
        return OpError(opcode, "the result ", declared.ToString(),
                       " is not the start's value ", result.ToString(), ".");
      }
      return result;
    }
    case HloOpcode::kAsyncUpdate:
      RETURN_IF_ERROR(element(1).status());
      if (*operands[0] != declared) {
        return OpError(opcode, "the result ", declared.ToString(),
                       " is not its operand's shape ",
                       operands[0]->ToString(), ".");
      }
      return declared;
    default:
      break;
  }
  // A start: (operands, value, context...).
  std::vector<Shape> inputs;
  for (const Shape* operand : operands) inputs.push_back(*operand);
  Shape value;
  if (opcode == HloOpcode::kCopyStart) {
    if (operands.size() != 1 || !operands[0]->IsArray()) {
      return OpError(opcode, "expects one array operand; got ",
                     Shapes(operands), ".");
    }
    value = *operands[0];
  } else {
    if (!callee.has_value()) {
      return OpError(opcode, "needs a called computation.");
    }
    if (callee->parameters.size() != operands.size()) {
      return OpError(opcode, "the called computation takes ",
                     callee->parameters.size(), " parameters but there are ",
                     operands.size(), " operands.");
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      if (callee->parameters[i] != *operands[i]) {
        return OpError(opcode, "operand ", i, " is ", operands[i]->ToString(),
                       " but the called computation's parameter ", i, " is ",
                       callee->parameters[i].ToString(), ".");
      }
    }
    value = callee->result;
  }
  const bool copy = opcode == HloOpcode::kCopyStart;
  const Shape first = copy ? value : ShapeUtil::MakeTupleShape(inputs);
  if (!declared.IsTuple() || declared.tuple_shapes().size() < 2 ||
      declared.tuple_shapes(0) != first || declared.tuple_shapes(1) != value) {
    return OpError(opcode, "the result ", declared.ToString(),
                   " must be a tuple of ", first.ToString(), ", ",
                   value.ToString(), " and any context values.");
  }
  return declared;
}

}  // namespace mxla
