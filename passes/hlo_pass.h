// HloPass: one transformation of a module. Run returns whether it changed
// anything; it never leaves a module half-rewritten on error (errors are
// internal invariants, reported as Internal).
//
// A pass states which HLO form it expects and leaves: the pipeline verifies
// in builder mode until a pass reports that its output is lowered HLO (no
// implicit broadcasts), and in lowered mode from then on.
#ifndef MXLA_PASSES_HLO_PASS_H_
#define MXLA_PASSES_HLO_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_module.h"

namespace mxla {

class HloPass {
 public:
  virtual ~HloPass() = default;
  // Kebab-case, unique: "lower-broadcasts".
  virtual absl::string_view name() const = 0;
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
  // True if the module is lowered HLO after this pass.
  virtual bool ProducesLoweredHlo() const { return false; }
};

}  // namespace mxla

#endif  // MXLA_PASSES_HLO_PASS_H_
