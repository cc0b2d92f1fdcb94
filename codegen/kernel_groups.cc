#include "codegen/kernel_groups.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_printer.h"
#include "ir/status_macros.h"

namespace mxla::codegen {

absl::StatusOr<KernelGroups> GroupKernels(const HloModule& fused) {
  const HloComputation* entry = fused.entry_computation();
  RET_CHECK(entry != nullptr);
  KernelGroups groups;
  HloPrintOptions canonical;
  canonical.canonical = true;
  absl::flat_hash_map<std::string, int64_t> kernel_of_key;
  for (const HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kFusion) {
      if (IsCodelessEntryOp(instruction->opcode())) continue;
      if (IsSubprogramOp(instruction->opcode())) continue;  // runtime steps
      return absl::FailedPreconditionError(absl::StrCat(
          "codegen needs a fused module (run the fusion pass): '",
          instruction->name(), "' (", HloOpcodeString(instruction->opcode()),
          ") is outside any fusion"));
    }
    // Fusions that print alike in canonical form compute alike.
    auto [it, inserted] = kernel_of_key.try_emplace(
        HloPrinter::InstructionToString(*instruction, canonical),
        static_cast<int64_t>(groups.first_fusion.size()));
    if (inserted) groups.first_fusion.push_back(instruction);
    groups.fusions.push_back(instruction);
    groups.kernel_of_fusion.push_back(it->second);
  }
  return groups;
}

}  // namespace mxla::codegen
