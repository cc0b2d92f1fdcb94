#include "ir/hlo_verifier.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_inference.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

ProgramShape ComputeProgramShape(const HloComputation& computation) {
  ProgramShape program_shape;
  program_shape.parameters.resize(computation.num_parameters());
  for (const HloInstruction* parameter :
       computation.parameter_instructions()) {
    int64_t number = parameter->parameter_number();
    if (number >= 0 && number < computation.num_parameters()) {
      program_shape.parameters[number] = parameter->shape();
    }
  }
  program_shape.result = computation.root_instruction()->shape();
  return program_shape;
}

std::vector<const Shape*> OperandShapes(const HloInstruction& instruction) {
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : instruction.operands()) {
    shapes.push_back(&operand->shape());
  }
  return shapes;
}

// Lowered HLO: an elementwise op's operands all have its dimensions.
absl::Status CheckNoImplicitBroadcast(const HloInstruction& instruction) {
  if (instruction.broadcast_dimensions().has_value()) {
    return absl::InvalidArgumentError(
        "carries broadcast_dimensions, which lowered HLO does not allow "
        "(run lower-broadcasts first)");
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!ShapeUtil::SameDimensions(operand->shape(), instruction.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Implicit broadcast is not allowed in HLO. Operand ",
          operand->name(), " has shape ", operand->shape().ToString(),
          " but the result has ", instruction.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

// The shape the instruction must have given its operands and attributes.
// Instructions whose checks are not a shape computation return their own
// shape after checking.
absl::StatusOr<Shape> InferShape(const HloInstruction& instruction,
                                 VerifierMode mode) {
  const Shape& shape = instruction.shape();
  auto operand = [&](int64_t i) -> const Shape& {
    return instruction.operand(i)->shape();
  };
  HloOpcode opcode = instruction.opcode();
  switch (GetHloOpcodeCategory(opcode)) {
    case HloOpcodeCategory::kUnary:
      return ShapeInference::InferUnaryOpShape(opcode, operand(0));
    case HloOpcodeCategory::kBinary:
    case HloOpcodeCategory::kCompare:
      if (mode == VerifierMode::kLowered) {
        RETURN_IF_ERROR(CheckNoImplicitBroadcast(instruction));
      }
      return ShapeInference::InferBinaryOpShape(
          opcode, operand(0), operand(1),
          instruction.broadcast_dimensions().value_or(std::vector<int64_t>{}));
    default:
      break;
  }
  switch (opcode) {
    case HloOpcode::kParameter:
      return shape;
    case HloOpcode::kConstant:
      return instruction.literal().shape();
    case HloOpcode::kIota:
      RETURN_IF_ERROR(ShapeInference::CheckIota(shape, instruction.iota_dimension()));
      return shape;
    case HloOpcode::kSelect:
      if (mode == VerifierMode::kLowered) {
        RETURN_IF_ERROR(CheckNoImplicitBroadcast(instruction));
      }
      return ShapeInference::InferSelectShape(
          operand(0), operand(1), operand(2),
          /*allow_scalar_broadcast=*/mode == VerifierMode::kBuilder);
    case HloOpcode::kConvert:
      return ShapeInference::InferConvertShape(operand(0),
                                               shape.element_type());
    case HloOpcode::kBroadcast:
      RETURN_IF_ERROR(ShapeInference::CheckBroadcast(
          operand(0), shape, instruction.dimensions()));
      return ShapeUtil::ChangeElementType(shape,
                                          operand(0).element_type());
    case HloOpcode::kReshape:
      return ShapeInference::InferReshapeShape(operand(0), shape.dimensions());
    case HloOpcode::kTranspose:
      return ShapeInference::InferTransposeShape(operand(0),
                                                 instruction.dimensions());
    case HloOpcode::kReduce:
      return ShapeInference::InferReduceShape(
          OperandShapes(instruction), instruction.dimensions(),
          ComputeProgramShape(*instruction.to_apply()));
    case HloOpcode::kTuple:
      return ShapeInference::InferTupleShape(OperandShapes(instruction));
    case HloOpcode::kGetTupleElement:
      return ShapeInference::InferGetTupleElementShape(
          operand(0), instruction.tuple_index());
    case HloOpcode::kFusion: {
      ProgramShape body = ComputeProgramShape(*instruction.to_apply());
      if (body.parameters.size() != instruction.operands().size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fusion has ", instruction.operand_count(),
            " operands but its computation takes ", body.parameters.size(),
            " parameters"));
      }
      for (int64_t i = 0; i < instruction.operand_count(); ++i) {
        if (body.parameters[i] != operand(i)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "fusion operand ", i, " has shape ", operand(i).ToString(),
              " but fused parameter ", i, " has ",
              body.parameters[i].ToString()));
        }
      }
      return body.result;
    }
    default:
      return absl::InternalError("verifier does not know this opcode");
  }
}

absl::Status CheckOperandCountAndAttributes(const HloInstruction& instruction) {
  int64_t arity = HloOpcodeArity(instruction.opcode());
  if (arity >= 0 && instruction.operand_count() != arity) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects ", arity, " operands but has ",
                     instruction.operand_count()));
  }
  if (instruction.broadcast_dimensions().has_value() &&
      !IsBinaryElementwise(instruction.opcode())) {
    return absl::InvalidArgumentError(
        "only binary elementwise ops may carry broadcast_dimensions");
  }
  bool calls = instruction.opcode() == HloOpcode::kReduce ||
               instruction.opcode() == HloOpcode::kFusion;
  if (calls != (instruction.called_computations().size() == 1)) {
    return absl::InvalidArgumentError(
        calls ? "needs exactly one called computation"
              : "must not call a computation");
  }
  if (instruction.opcode() == HloOpcode::kConstant &&
      !instruction.has_literal()) {
    return absl::InvalidArgumentError("constant without a literal");
  }
  return absl::OkStatus();
}

absl::Status VerifyInstruction(const HloInstruction& instruction,
                               const HloComputation& computation,
                               const absl::flat_hash_set<const HloComputation*>&
                                   module_computations,
                               VerifierMode mode) {
  RETURN_IF_ERROR(CheckOperandCountAndAttributes(instruction));
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand->parent() != &computation) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operand ", operand->name(), " belongs to another computation"));
    }
    if (!instruction.IsUserOf(operand)) {
      return absl::InternalError(absl::StrCat(
          "operand ", operand->name(), " does not list it as a user"));
    }
  }
  for (const HloComputation* callee : instruction.called_computations()) {
    if (!module_computations.contains(callee)) {
      return absl::InvalidArgumentError(
          "calls a computation that is not in the module");
    }
    if (callee->root_instruction() == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "calls computation ", callee->name(), ", which has no root"));
    }
  }
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(instruction.shape()));
  ASSIGN_OR_RETURN(Shape inferred, InferShape(instruction, mode));
  if (inferred != instruction.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "declared shape ", instruction.shape().ToString(),
        " differs from the inferred shape ", inferred.ToString()));
  }
  if (instruction.fusion_plan().has_value()) {
    if (instruction.opcode() != HloOpcode::kFusion) {
      return absl::InvalidArgumentError("only a fusion may carry a plan");
    }
    return CheckFusionPlan(*instruction.fusion_plan(), instruction);
  }
  return absl::OkStatus();
}

absl::Status VerifyParameters(const HloComputation& computation) {
  std::vector<int64_t> numbers;
  for (const HloInstruction* parameter :
       computation.parameter_instructions()) {
    numbers.push_back(parameter->parameter_number());
  }
  std::sort(numbers.begin(), numbers.end());
  for (int64_t i = 0; i < static_cast<int64_t>(numbers.size()); ++i) {
    if (numbers[i] != i) {
      return absl::InvalidArgumentError(absl::StrCat(
          "computation '", computation.name(),
          "': parameter numbers must be 0..", numbers.size() - 1,
          " without gaps or duplicates, got {", absl::StrJoin(numbers, ","),
          "}"));
    }
  }
  return absl::OkStatus();
}

// ", made by Add at main.cc:12" for instructions whose metadata says where
// they came from, so a verifier error points at the user's code.
std::string MadeAt(const OpMetadata& metadata) {
  if (metadata.empty()) return "";
  std::string text = ", made by ";
  absl::StrAppend(&text, metadata.op_name.empty() ? "?" : metadata.op_name);
  if (!metadata.source_file.empty()) {
    absl::StrAppend(&text, " at ", metadata.source_file, ":",
                    metadata.source_line);
  }
  return text;
}

}  // namespace

absl::Status VerifyModule(const HloModule& module, VerifierMode mode) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  absl::flat_hash_set<const HloComputation*> computations;
  for (const HloComputation* computation : module.computations()) {
    computations.insert(computation);
  }
  absl::flat_hash_set<std::string> names;
  for (const HloComputation* computation : module.computations()) {
    const HloInstruction* root = computation->root_instruction();
    if (root == nullptr || root->parent() != computation) {
      return absl::InvalidArgumentError(absl::StrCat(
          "computation '", computation->name(), "' has no root instruction"));
    }
    RETURN_IF_ERROR(VerifyParameters(*computation));
    for (const HloInstruction* instruction : computation->instructions()) {
      if (!names.insert(instruction->name()).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction name '", instruction->name(),
            "' is used twice in module '", module.name(), "'"));
      }
      absl::Status status =
          VerifyInstruction(*instruction, *computation, computations, mode);
      if (!status.ok()) {
        return absl::Status(
            status.code(),
            absl::StrCat("computation '", computation->name(),
                         "', instruction '", instruction->name(), "' (",
                         HloOpcodeString(instruction->opcode()), ")",
                         MadeAt(instruction->metadata()), ": ",
                         status.message()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace mxla
