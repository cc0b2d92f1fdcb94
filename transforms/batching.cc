#include "transforms/batching.h"

#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "transforms/batching_rules.h"
#include "transforms/lowered_input.h"

namespace mxla {
namespace {

std::string Prefix(const XlaComputation& f) {
  return absl::StrCat("vmap of '", f.name(), "': ");
}

// `shape` with `dimension` of `size` inserted or, for nullopt, itself.
Shape WithBatchAt(const Shape& shape, std::optional<int64_t> dimension,
                  int64_t size) {
  if (!dimension.has_value()) return shape;
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  dims.insert(dims.begin() + *dimension, size);
  return ShapeUtil::MakeShape(shape.element_type(), dims);
}

absl::Status CheckArgument(XlaBuilder& builder, const XlaComputation& f,
                           int64_t number, XlaOp argument,
                           std::optional<int64_t> in_dim, int64_t batch_size) {
  const HloComputation& entry = *f.module().entry_computation();
  const Shape& parameter = entry.parameter_instruction(number)->shape();
  ASSIGN_OR_RETURN(Shape shape, builder.GetShape(argument));
  const int64_t rank = parameter.IsArray() ? parameter.dimensions().size() : -1;
  if (in_dim.has_value() && (rank < 0 || *in_dim < 0 || *in_dim > rank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "argument ", number, " (", shape.ToString(),
        ") cannot be batched along dimension ", *in_dim));
  }
  const Shape expected = WithBatchAt(parameter, in_dim, batch_size);
  if (shape != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "argument ", number, " is ", shape.ToString(),
        " but parameter ", number, " is ", parameter.ToString(),
        in_dim.has_value()
            ? absl::StrCat(", so with a batch of ", batch_size,
                           " at dimension ", *in_dim, " it must be ",
                           expected.ToString())
            : ""));
  }
  return absl::OkStatus();
}

// `value` with dimension `from` moved to the front.
XlaOp BatchToFront(XlaOp value, int64_t from, int64_t rank) {
  if (from == 0) return value;
  std::vector<int64_t> permutation = {from};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != from) permutation.push_back(d);
  }
  return Transpose(value, permutation);
}

struct Value {
  XlaOp op;
  bool batched = false;
};

// `value` batched: itself, or broadcast along a new leading dimension.
XlaOp Batched(const Value& value, const Shape& shape, int64_t batch_size) {
  if (value.batched) return value.op;
  std::vector<int64_t> dims = {batch_size};
  dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
  std::vector<int64_t> kept(shape.dimensions().size());
  std::iota(kept.begin(), kept.end(), 1);
  return BroadcastInDim(value.op, dims, kept);
}

// Every instruction of `entry` but its parameters (and a root tuple,
// whose elements are the results), batched where an operand is.
absl::Status BatchBody(XlaBuilder& builder, const HloComputation& entry,
                       int64_t batch_size,
                       absl::flat_hash_map<const HloInstruction*, Value>& values) {
  ComputationCloneMap callees;
  const HloInstruction* root = entry.root_instruction();
  for (const HloInstruction* instruction : entry.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    if (instruction == root && root->opcode() == HloOpcode::kTuple) continue;
    BatchContext context{builder, *instruction, {}, {}, batch_size, callees};
    bool any = false;
    for (const HloInstruction* operand : instruction->operands()) {
      context.operands.push_back(values.at(operand).op);
      context.batched.push_back(values.at(operand).batched);
      any = any || context.batched.back();
    }
    if (!any) {
      values[instruction] = {EmitCopyOf(builder, *instruction, instruction->shape(),
                                        context.operands, callees),
                             false};
    } else {
      ASSIGN_OR_RETURN(XlaOp batched, BatchedValueOf(context));
      values[instruction] = {batched, true};
    }
    RETURN_IF_ERROR(builder.first_error());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<XlaOp>> EmitBatched(
    XlaBuilder& builder, const XlaComputation& f,
    absl::Span<const XlaOp> arguments,
    absl::Span<const std::optional<int64_t>> in_dims, int64_t batch_size,
    std::vector<bool>* reached) {
  RETURN_IF_ERROR(builder.first_error());
  const int64_t count = f.module().entry_computation()->num_parameters();
  if (static_cast<int64_t>(arguments.size()) != count ||
      static_cast<int64_t>(in_dims.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "it has ", count, " parameters but ", arguments.size(),
        " arguments and ", in_dims.size(), " batch dimensions were given"));
  }
  if (batch_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Prefix(f), "negative batch size ", batch_size));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> lowered, LoweredInput(f));
  const HloComputation& entry = *lowered->entry_computation();
  absl::flat_hash_map<const HloInstruction*, Value> values;
  for (int64_t i = 0; i < count; ++i) {
    RETURN_IF_ERROR(CheckArgument(builder, f, i, arguments[i], in_dims[i], batch_size));
    const int64_t rank = entry.parameter_instruction(i)->shape().dimensions().size();
    values[entry.parameter_instruction(i)] = {
        in_dims[i] ? BatchToFront(arguments[i], *in_dims[i], rank + 1) : arguments[i],
        in_dims[i].has_value()};
  }
  RETURN_IF_ERROR(BatchBody(builder, entry, batch_size, values));
  const HloInstruction* root = entry.root_instruction();
  std::vector<const HloInstruction*> elements = {root};
  if (root->opcode() == HloOpcode::kTuple) {
    elements.assign(root->operands().begin(), root->operands().end());
  }
  std::vector<XlaOp> results;
  for (const HloInstruction* element : elements) {
    results.push_back(Batched(values.at(element), element->shape(), batch_size));
    if (reached != nullptr) reached->push_back(values.at(element).batched);
  }
  RETURN_IF_ERROR(builder.first_error());
  return results;
}

absl::StatusOr<XlaComputation> Batch(
    const XlaComputation& f, absl::Span<const std::optional<int64_t>> in_dims,
    int64_t batch_size) {
  XlaBuilder builder(absl::StrCat(f.name(), ".vmap"));
  const HloComputation& entry = *f.module().entry_computation();
  if (static_cast<int64_t>(in_dims.size()) != entry.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "it has ", entry.num_parameters(), " parameters but ",
        in_dims.size(), " batch dimensions were given"));
  }
  std::vector<XlaOp> parameters;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction& parameter = *entry.parameter_instruction(i);
    const int64_t rank = parameter.shape().IsArray()
                             ? parameter.shape().dimensions().size() : -1;
    if (in_dims[i].has_value() && (*in_dims[i] < 0 || *in_dims[i] > rank)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(f), "parameter ", i, " (", parameter.shape().ToString(),
          ") cannot be batched along dimension ", *in_dims[i]));
    }
    parameters.push_back(Parameter(
        &builder, i, WithBatchAt(parameter.shape(), in_dims[i], batch_size),
        parameter.name()));
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> results,
                   EmitBatched(builder, f, parameters, in_dims, batch_size));
  const bool tuple = entry.root_instruction()->opcode() == HloOpcode::kTuple;
  return builder.Build(tuple ? Tuple(&builder, results) : results[0]);
}

}  // namespace mxla
