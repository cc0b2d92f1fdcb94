// HloPass: one transformation of a module. Run returns whether it changed
// anything. Errors are Internal (a broken invariant) unless a pass documents
// otherwise (fusion and row-fusion: FailedPrecondition on HLO that is not
// lowered). After
// an error the module may hold the rewrites made before it (simplify, for
// one, keeps its earlier replacements): discard it, as Compile does by
// optimizing a copy.
//
// A pass states which HLO form it expects and moves the module's form
// forward when its output follows more rules (HloModule::AdvanceForm:
// lower-broadcasts to kLowered, fusion to kFused); the pipeline verifies
// the module against its form after every pass.
#ifndef MXLA_PASSES_HLO_PASS_H_
#define MXLA_PASSES_HLO_PASS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_module.h"

namespace mxla {

class HloPass {
 public:
  virtual ~HloPass() = default;
  // Kebab-case, unique: "lower-broadcasts".
  virtual absl::string_view name() const = 0;
  // Rewrites `module` in place; true if anything changed. Expects a module
  // that verifies in the form the pass documents.
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
};

// For passes that need lowered HLO: FailedPrecondition "<pass> needs
// lowered HLO; run lower-broadcasts first: <instruction>" naming the first
// instruction (in any computation) with implicit broadcast_dimensions, so
// that builder-form input is reported as the input's fault, not as an
// invalid module the pass produced.
absl::Status CheckLoweredInput(const HloModule& module,
                               absl::string_view pass_name);

}  // namespace mxla

#endif  // MXLA_PASSES_HLO_PASS_H_
