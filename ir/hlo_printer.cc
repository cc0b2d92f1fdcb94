#include "ir/hlo_printer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"
#include "ir/literal_text.h"

namespace mxla {
namespace {

std::string DimsToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// The text inside the parentheses after the opcode.
std::string OperandsToString(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
      return absl::StrCat(instruction.parameter_number());
    case HloOpcode::kConstant:
      return LiteralValuesToString(instruction.literal());
    default: {
      std::vector<std::string> names;
      for (const HloInstruction* operand : instruction.operands()) {
        names.push_back(operand->name());
      }
      return absl::StrJoin(names, ", ");
    }
  }
}

std::string Quoted(const std::string& text) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""},
                                       {"\n", "\\n"}, {"\t", "\\t"}}),
      "\"");
}

std::string MetadataToString(const OpMetadata& metadata) {
  std::vector<std::string> entries;
  if (!metadata.op_name.empty()) {
    entries.push_back(absl::StrCat("op_name=", Quoted(metadata.op_name)));
  }
  if (!metadata.source_file.empty()) {
    entries.push_back(
        absl::StrCat("source_file=", Quoted(metadata.source_file)));
    entries.push_back(absl::StrCat("source_line=", metadata.source_line));
  }
  return absl::StrCat("metadata={", absl::StrJoin(entries, " "), "}");
}

// The `, attr=value` list after the operands, in XLA's order.
std::string AttributesToString(const HloInstruction& instruction,
                               const HloPrintOptions& options) {
  std::vector<std::string> attributes;
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReduce:
      attributes.push_back(
          absl::StrCat("dimensions=", DimsToString(instruction.dimensions())));
      break;
    case HloOpcode::kCompare:
      attributes.push_back(absl::StrCat(
          "direction=",
          ComparisonDirectionString(instruction.comparison_direction())));
      break;
    case HloOpcode::kIota:
      attributes.push_back(
          absl::StrCat("iota_dimension=", instruction.iota_dimension()));
      break;
    case HloOpcode::kGetTupleElement:
      attributes.push_back(absl::StrCat("index=", instruction.tuple_index()));
      break;
    case HloOpcode::kFusion:
      attributes.push_back(
          absl::StrCat("kind=", FusionKindString(instruction.fusion_kind())));
      break;
    default:
      break;
  }
  if (instruction.broadcast_dimensions().has_value()) {
    attributes.push_back(
        absl::StrCat("broadcast_dimensions=",
                     DimsToString(*instruction.broadcast_dimensions())));
  }
  // A malformed instruction (no called computation) still prints, for the
  // verifier's message about it.
  const HloComputation* callee = instruction.to_apply();
  std::string callee_name = callee != nullptr ? callee->name() : "<none>";
  if (instruction.opcode() == HloOpcode::kReduce) {
    attributes.push_back(absl::StrCat("to_apply=", callee_name));
  } else if (instruction.opcode() == HloOpcode::kFusion) {
    attributes.push_back(absl::StrCat("calls=", callee_name));
    if (instruction.fusion_plan().has_value()) {
      attributes.push_back(
          absl::StrCat("plan=", instruction.fusion_plan()->ToString()));
    }
  }
  if (options.metadata && !instruction.metadata().empty()) {
    attributes.push_back(MetadataToString(instruction.metadata()));
  }
  std::string text;
  for (const std::string& attribute : attributes) {
    absl::StrAppend(&text, ", ", attribute);
  }
  return text;
}

}  // namespace

std::string HloPrinter::InstructionToString(const HloInstruction& instruction,
                                            const HloPrintOptions& options) {
  return absl::StrCat(instruction.name(), " = ",
                      instruction.shape().ToStringWithLayout(), " ",
                      HloOpcodeString(instruction.opcode()), "(",
                      OperandsToString(instruction), ")",
                      AttributesToString(instruction, options));
}

std::string HloPrinter::ComputationToString(const HloComputation& computation,
                                            const HloPrintOptions& options) {
  const HloModule* module = computation.parent();
  bool is_entry =
      module != nullptr && module->entry_computation() == &computation;
  std::string text =
      absl::StrCat(is_entry ? "ENTRY " : "", computation.name(), " {\n");
  for (const HloInstruction* instruction :
       computation.MakeInstructionPostOrder()) {
    absl::StrAppend(&text, "  ",
                    instruction == computation.root_instruction() ? "ROOT " : "",
                    InstructionToString(*instruction, options), "\n");
  }
  absl::StrAppend(&text, "}\n");
  return text;
}

std::string HloPrinter::ModuleToString(const HloModule& module,
                                       const HloPrintOptions& options) {
  std::string text = absl::StrCat("HloModule ", module.name(), "\n");
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    absl::StrAppend(&text, "\n", ComputationToString(*computation, options));
  }
  return text;
}

}  // namespace mxla
