// Shape inference for the collectives (XLA's rules; the group sizes are
// the caller's, see shape_rules::Collective) and the asynchronous
// wrappers.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

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

absl::StatusOr<Shape> ShapeInference::InferAllReduceShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands) {
  if (operands.empty()) return OpError(opcode, "expects an operand.");
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(
        ExpectValidArray(opcode, *operands[i], absl::StrCat("operand ", i)));
  }
  return TupleOrSingle(operands);
}

absl::StatusOr<Shape> ShapeInference::InferAllGatherShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    int64_t dimension, int64_t shard_count) {
  if (operands.empty()) return OpError(opcode, "expects an operand.");
  if (shard_count < 1) {
    return OpError(opcode, "the shard count must be at least 1; got ",
                   shard_count, ".");
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& operand = *operands[i];
    RETURN_IF_ERROR(
        ExpectValidArray(opcode, operand, absl::StrCat("operand ", i)));
    if (dimension < 0 || dimension >= operand.rank()) {
      return OpError(opcode, "all_gather_dimension ", dimension,
                     " is out of bounds for operand ", i, " ",
                     operand.ToString(), ".");
    }
    std::vector<int64_t> dims(operand.dimensions().begin(),
                              operand.dimensions().end());
    dims[dimension] *= shard_count;
    results.push_back(ShapeUtil::MakeShape(operand.element_type(), dims));
  }
  const Shape gathered = results.size() == 1
                             ? results[0]
                             : ShapeUtil::MakeTupleShape(results);
  if (opcode != HloOpcode::kAllGatherStart) return gathered;
  return ShapeUtil::MakeTupleShape({TupleOrSingle(operands), gathered});
}

absl::StatusOr<Shape> ShapeInference::InferReduceScatterShape(
    absl::Span<const Shape* const> operands, int64_t dimension,
    int64_t shard_count) {
  constexpr HloOpcode kOp = HloOpcode::kReduceScatter;
  if (operands.empty()) return OpError(kOp, "expects an operand.");
  if (shard_count < 1) {
    return OpError(kOp, "the shard count must be at least 1; got ",
                   shard_count, ".");
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& operand = *operands[i];
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, operand, absl::StrCat("operand ", i)));
    if (dimension < 0 || dimension >= operand.rank()) {
      return OpError(kOp, "scatter_dimension ", dimension,
                     " is out of bounds for operand ", i, " ",
                     operand.ToString(), ".");
    }
    std::vector<int64_t> dims(operand.dimensions().begin(),
                              operand.dimensions().end());
    if (dims[dimension] % shard_count != 0) {
      return OpError(kOp, "operand ", i, " ", operand.ToString(),
                     ": scatter dimension ", dimension, " size ",
                     dims[dimension], " must be dividable by shard_count ",
                     shard_count, ".");
    }
    dims[dimension] /= shard_count;
    results.push_back(ShapeUtil::MakeShape(operand.element_type(), dims));
  }
  return results.size() == 1 ? results[0] : ShapeUtil::MakeTupleShape(results);
}

absl::StatusOr<Shape> ShapeInference::InferAllToAllShape(
    const Shape& operand, int64_t split_dimension, int64_t concat_dimension,
    int64_t split_count) {
  constexpr HloOpcode kOp = HloOpcode::kAllToAll;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  if (split_count < 1) {
    return OpError(kOp, "the split count must be at least 1; got ",
                   split_count, ".");
  }
  if (split_dimension < 0 || split_dimension >= operand.rank()) {
    return OpError(kOp, "split_dimension ", split_dimension,
                   " is out-of-bounds in shape ", operand.ToString(), ".");
  }
  if (concat_dimension < 0 || concat_dimension >= operand.rank()) {
    return OpError(kOp, "concat_dimension ", concat_dimension,
                   " is out-of-bounds in shape ", operand.ToString(), ".");
  }
  std::vector<int64_t> dims(operand.dimensions().begin(),
                            operand.dimensions().end());
  if (dims[split_dimension] % split_count != 0) {
    return OpError(kOp, "split dimension ", split_dimension, " of ",
                   operand.ToString(), " (size ", dims[split_dimension],
                   ") must be dividable by split_count ", split_count, ".");
  }
  dims[split_dimension] /= split_count;
  dims[concat_dimension] *= split_count;
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferAllToAllTupleShape(
    absl::Span<const Shape* const> operands) {
  constexpr HloOpcode kOp = HloOpcode::kAllToAll;
  if (operands.empty()) return OpError(kOp, "expects an operand.");
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, *operands[i], absl::StrCat("operand ", i)));
    if (*operands[i] != *operands[0]) {
      return OpError(kOp, "has operands with different shapes: the 0th "
                     "operand shape ", operands[0]->ToString(), ", but the ",
                     i, "th operand has shape ", operands[i]->ToString(),
                     ".");
    }
  }
  std::vector<Shape> elements;
  for (const Shape* shape : operands) elements.push_back(*shape);
  return ShapeUtil::MakeTupleShape(elements);
}

absl::StatusOr<Shape> ShapeInference::InferCollectiveBroadcastShape(
    absl::Span<const Shape* const> operands) {
  constexpr HloOpcode kOp = HloOpcode::kCollectiveBroadcast;
  if (operands.size() != 1) {
    return OpError(kOp, "expects one operand; got ", operands.size(), ".");
  }
  RETURN_IF_ERROR(ExpectValidArray(kOp, *operands[0], "operand"));
  return *operands[0];
}

absl::StatusOr<Shape> ShapeInference::InferCollectivePermuteShape(
    HloOpcode opcode, absl::Span<const Shape* const> operands,
    absl::Span<const Shape> context) {
  if (operands.size() != 1) {
    return OpError(opcode, "expects one operand; got ", operands.size(), ".");
  }
  RETURN_IF_ERROR(ExpectValidArray(opcode, *operands[0], "operand"));
  if (opcode != HloOpcode::kCollectivePermuteStart) return *operands[0];
  std::vector<Shape> elements = {*operands[0], *operands[0]};
  elements.insert(elements.end(), context.begin(), context.end());
  return ShapeUtil::MakeTupleShape(elements);
}

absl::StatusOr<Shape> ShapeInference::InferCollectiveDoneShape(
    HloOpcode opcode, const Shape& start) {
  if (opcode == HloOpcode::kAllReduceDone) return start;
  if (!start.IsTuple() || start.tuple_shapes().size() < 2) {
    return OpError(opcode, "expects the tuple of a ",
                   opcode == HloOpcode::kAllGatherDone
                       ? "all-gather-start"
                       : "collective-permute-start",
                   "; got ", start.ToString(), ".");
  }
  return start.tuple_shapes(1);
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
