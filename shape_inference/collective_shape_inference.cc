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

// Every replica group has one participant and every source-target pair
// is {0,0}.
absl::Status CheckOneParticipant(HloOpcode opcode,
                                 const IdGroups& replica_groups,
                                 const IdGroups& source_target_pairs) {
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
  return absl::OkStatus();
}

// The result one participant makes of its operands: a done op's value out
// of its start's tuple, a start's tuple, or the operands themselves.
absl::StatusOr<Shape> OneParticipantResult(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const Shape& declared) {
  switch (opcode) {
    case HloOpcode::kAllReduceDone:
      return *operands[0];
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
      return n == 1 ? results[0] : ShapeUtil::MakeTupleShape(results);
    }
    case HloOpcode::kCollectivePermuteDone: {
      const Shape& start = *operands[0];
      if (!start.IsTuple() || start.tuple_shapes().size() < 2) {
        return OpError(opcode,
                       "expects a collective-permute-start's result; got ",
                       start.ToString(), ".");
      }
      return start.tuple_shapes(1);
    }
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart:
      return StartShape(opcode, operands, declared);
    default:
      return TupleOrSingle(operands);
  }
}

// An async done's or update's operand: the start's tuple, element `i` of
// which is asked for.
absl::StatusOr<Shape> StartElement(HloOpcode opcode,
                                   absl::Span<const Shape* const> operands,
                                   int64_t i) {
  if (operands.size() != 1 || !operands[0]->IsTuple() ||
      static_cast<int64_t>(operands[0]->tuple_shapes().size()) <= i) {
    return OpError(opcode, "expects the tuple of a start; got ",
                   Shapes(operands), ".");
  }
  return operands[0]->tuple_shapes(i);
}

// async-done, call-done and copy-done give the start's value;
// async-update keeps the start's tuple.
absl::StatusOr<Shape> InferAsyncDoneShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const Shape& declared) {
  if (opcode == HloOpcode::kAsyncUpdate) {
    RETURN_IF_ERROR(StartElement(opcode, operands, 1).status());
    if (*operands[0] != declared) {
      return OpError(opcode, "the result ", declared.ToString(),
                     " is not its operand's shape ", operands[0]->ToString(),
                     ".");
    }
    return declared;
  }
  ASSIGN_OR_RETURN(Shape result, StartElement(opcode, operands, 1));
  if (result != declared) {
    return OpError(opcode, "the result ", declared.ToString(),
                   " is not the start's value ", result.ToString(), ".");
  }
  return result;
}

// The value a start computes: copy-start's one array operand, or the
// called computation's result on the operands.
absl::StatusOr<Shape> AsyncStartValue(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const std::optional<ProgramShape>& callee) {
  if (opcode == HloOpcode::kCopyStart) {
    if (operands.size() != 1 || !operands[0]->IsArray()) {
      return OpError(opcode, "expects one array operand; got ",
                     Shapes(operands), ".");
    }
    return *operands[0];
  }
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
  return callee->result;
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferSingleDeviceCollectiveShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    const IdGroups& replica_groups, const IdGroups& source_target_pairs,
    const Shape& declared) {
  RETURN_IF_ERROR(
      CheckOneParticipant(opcode, replica_groups, source_target_pairs));
  if (operands.empty()) return OpError(opcode, "expects an operand.");
  ASSIGN_OR_RETURN(const Shape expected,
                   OneParticipantResult(opcode, operands, declared));
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
  switch (opcode) {
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCallDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kAsyncUpdate:
      return InferAsyncDoneShape(opcode, operands, declared);
    default:
      break;
  }
  // A start: (operands, value, context...).
  ASSIGN_OR_RETURN(const Shape value,
                   AsyncStartValue(opcode, operands, callee));
  std::vector<Shape> inputs;
  for (const Shape* operand : operands) inputs.push_back(*operand);
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
