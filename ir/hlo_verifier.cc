#include "ir/hlo_verifier.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/op_shape_rules.h"

namespace mxla {
namespace {

// The attributes the op table gives the opcode, and only those.
absl::Status CheckAttributes(const HloInstruction& instruction,
                             const OpSpec& spec) {
  for (const auto& [id, value] : instruction.attributes().entries()) {
    const AttrSlot* slot = spec.FindAttribute(id);
    if (slot == nullptr || slot->use == AttrUse::kChecked ||
        slot->use == AttrUse::kIgnored) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.text, " does not take attribute '",
                       GetAttrInfo(id).name, "'"));
    }
  }
  for (const AttrSlot& slot : spec.attributes) {
    const AttrInfo& info = GetAttrInfo(slot.id);
    bool needed = slot.use == AttrUse::kRequired ||
                  slot.use == AttrUse::kPositional;
    if (!needed || info.type == AttrType::kComputation ||
        info.type == AttrType::kComputationList ||
        instruction.attributes().Has(slot.id)) {
      continue;
    }
    if (slot.id == AttrId::kLiteral) {
      return absl::InvalidArgumentError("constant without a literal");
    }
    return absl::InvalidArgumentError(
        absl::StrCat("missing attribute '", info.name, "'"));
  }
  const int64_t callees = spec.called_computation_count();
  if (callees < 0) {
    if (instruction.called_computations().empty()) {
      return absl::InvalidArgumentError("needs a called computation");
    }
    for (const HloComputation* callee : instruction.called_computations()) {
      if (callee == nullptr) {
        return absl::InvalidArgumentError("has a missing called computation");
      }
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(instruction.called_computations().size()) !=
      callees) {
    if (callees == 0) {
      return absl::InvalidArgumentError("must not call a computation");
    }
    return absl::InvalidArgumentError(
        callees == 1 ? std::string("needs exactly one called computation")
                     : absl::StrCat("needs exactly ", callees,
                                    " called computations"));
  }
  return absl::OkStatus();
}

absl::Status CheckOperandCountAndAttributes(const HloInstruction& instruction) {
  const OpSpec& spec = GetOpSpec(instruction.opcode());
  if (spec.arity >= 0 && instruction.operand_count() != spec.arity) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects ", spec.arity, " operands but has ",
                     instruction.operand_count()));
  }
  return CheckAttributes(instruction, spec);
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
  ASSIGN_OR_RETURN(Shape inferred, InferInstructionShape(instruction, mode));
  if (inferred != instruction.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "declared shape ", instruction.shape().ToString(),
        " differs from the inferred shape ", inferred.ToString()));
  }
  if (const FusionPlan* plan = instruction.fusion_plan()) {
    return CheckFusionPlan(*plan, instruction);
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

// The fused form: every computing instruction of the entry is a fusion or
// a step that runs its own computations (IsSubprogramOp); the rest need no
// code (IsCodelessEntryOp).
absl::Status CheckFusedEntry(const HloComputation& entry) {
  for (const HloInstruction* instruction : entry.instructions()) {
    const HloOpcode opcode = instruction->opcode();
    if (IsSubprogramOp(opcode) || IsCodelessEntryOp(opcode) ||
        opcode == HloOpcode::kFusion) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "fused module: entry instruction '", instruction->name(), "' (",
        HloOpcodeString(opcode), ") is outside any fusion"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyModule(const HloModule& module, VerifierMode mode) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  const std::vector<HloComputation*> all = module.computations();
  absl::flat_hash_set<const HloComputation*> computations(all.begin(),
                                                          all.end());
  // Views of the instructions' own names: the module verifies after every
  // pass that changed it, so copying each name would cost a compile.
  absl::flat_hash_set<absl::string_view> names;
  int64_t instructions = 0;
  for (const HloComputation* computation : all) {
    instructions += computation->instruction_count();
  }
  names.reserve(instructions);
  for (const HloComputation* computation : all) {
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
  if (mode == HloForm::kFused) {
    RETURN_IF_ERROR(CheckFusedEntry(*module.entry_computation()));
  }
  return ResolveInputOutputAliases(module).status();
}

absl::Status VerifyModule(const HloModule& module) {
  return VerifyModule(module, module.form());
}

absl::string_view HloFormString(HloForm form) {
  switch (form) {
    case HloForm::kBuilder: return "builder";
    case HloForm::kLowered: return "lowered";
    case HloForm::kFused: return "fused";
  }
  return "?";
}

}  // namespace mxla
