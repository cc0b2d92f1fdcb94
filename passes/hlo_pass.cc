#include "passes/hlo_pass.h"

#include "absl/strings/str_cat.h"

namespace mxla {

// Reducers and fusion bodies too: a pass that declares its output lowered
// must catch an implicit broadcast anywhere before the verifier does.
absl::Status CheckLoweredInput(const HloModule& module,
                               absl::string_view pass_name) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->broadcast_dimensions().has_value()) {
        return absl::FailedPreconditionError(absl::StrCat(
            pass_name, " needs lowered HLO; run lower-broadcasts first: ",
            instruction->ToString()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace mxla
