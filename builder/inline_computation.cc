#include "builder/inline_computation.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_clone.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

absl::Status CheckArguments(XlaBuilder& builder,
                            const HloComputation& computation,
                            absl::Span<const XlaOp> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inlining computation '", computation.name(), "': it takes ",
        computation.num_parameters(), " parameters but ", arguments.size(),
        " arguments were given"));
  }
  for (const HloInstruction* parameter : computation.parameter_instructions()) {
    const int64_t number = parameter->parameter_number();
    ASSIGN_OR_RETURN(Shape shape, builder.GetShape(arguments[number]));
    if (shape != parameter->shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inlining computation '", computation.name(), "': argument ",
          number, " has shape ", ShapeUtil::HumanString(shape),
          " but parameter '", parameter->name(), "' is ",
          ShapeUtil::HumanString(parameter->shape())));
    }
  }
  return absl::OkStatus();
}

// Copies what `computation`'s instructions call into the builder's module
// once each, so that clones call the copies.
ComputationCloneMap CopyCallees(XlaBuilder& builder,
                                const HloComputation& computation) {
  ComputationCloneMap callees;
  for (const HloInstruction* instruction : computation.instructions()) {
    for (HloComputation* callee : instruction->called_computations()) {
      if (!callees.contains(callee)) {
        callees[callee] = builder.AddCalledComputation(*callee);
      }
    }
  }
  return callees;
}

}  // namespace

absl::StatusOr<InlinedValues> InlineComputation(
    XlaBuilder& builder, const HloComputation& computation,
    absl::Span<const XlaOp> arguments) {
  RETURN_IF_ERROR(builder.first_error());
  RETURN_IF_ERROR(CheckArguments(builder, computation, arguments));
  InstructionCloneMap clones;
  InlinedValues values;
  for (const HloInstruction* parameter : computation.parameter_instructions()) {
    const XlaOp argument = arguments[parameter->parameter_number()];
    ASSIGN_OR_RETURN(clones[parameter], builder.LookUp(argument));
    values[parameter] = argument;
  }
  std::vector<HloInstruction*> body;
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kParameter) {
      body.push_back(instruction);
    }
  }
  const ComputationCloneMap callees = CopyCallees(builder, computation);
  CloneInstructionsInto(
      body, *builder.computation(), clones,
      [](HloInstruction* outside) -> HloInstruction* { return outside; },
      &callees);
  for (HloInstruction* instruction : body) {
    values[instruction] = builder.HandleFor(clones.at(instruction));
  }
  return values;
}

absl::StatusOr<XlaOp> CallInline(XlaBuilder& builder,
                                 const XlaComputation& computation,
                                 absl::Span<const XlaOp> arguments) {
  const HloComputation& entry = *computation.module().entry_computation();
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, entry, arguments));
  return values.at(entry.root_instruction());
}

absl::StatusOr<XlaComputation> ComputationOfElements(
    const HloComputation& computation, const std::vector<Shape>& elements,
    const std::string& name) {
  XlaBuilder builder(name);
  std::vector<XlaOp> parameters;
  for (size_t i = 0; i < elements.size(); ++i) {
    parameters.push_back(
        Parameter(&builder, i, elements[i], absl::StrCat("e", i)));
  }
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, computation,
                                     {Tuple(&builder, parameters)}));
  return builder.Build(values.at(computation.root_instruction()));
}

XlaOp EmitCopyOf(XlaBuilder& builder, const HloInstruction& instruction,
                 const Shape& shape, absl::Span<const XlaOp> operands,
                 ComputationCloneMap& callees,
                 absl::FunctionRef<void(HloInstruction&)> adjust) {
  if (!builder.first_error().ok()) return XlaOp();
  std::vector<HloInstruction*> new_operands;
  for (XlaOp operand : operands) {
    absl::StatusOr<HloInstruction*> found = builder.LookUp(operand);
    if (!found.ok()) {
      builder.NoteError(found.status());
      return XlaOp();
    }
    new_operands.push_back(*found);
  }
  std::unique_ptr<HloInstruction> copy =
      instruction.CloneWithNewOperands(shape, new_operands);
  std::vector<HloComputation*> called;
  for (HloComputation* callee : copy->called_computations()) {
    auto [it, inserted] = callees.try_emplace(callee, nullptr);
    if (inserted) it->second = builder.AddCalledComputation(*callee);
    called.push_back(it->second);
  }
  copy->set_called_computations(std::move(called));
  adjust(*copy);
  return builder.AddInstruction(std::move(copy),
                                HloOpcodeString(instruction.opcode()),
                                SourceLocation::current());
}

}  // namespace mxla
