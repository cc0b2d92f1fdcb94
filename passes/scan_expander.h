// expand-scans: the JIT's scan. Each scan becomes a while loop over the
// scan dimension whose state is (step, inputs..., carries..., stacked
// outputs...): the body dynamic-slices each input at the step's index
// (counting down with is_reverse), calls the scan's computation on the
// slices and carries, and dynamic-update-slices each output into its
// stack; then the scan's result is (stacked outputs..., carries...). The
// loop runs the same steps in the same order as the interpreter's scan.
#ifndef MXLA_PASSES_SCAN_EXPANDER_H_
#define MXLA_PASSES_SCAN_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ScanExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-scans"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_SCAN_EXPANDER_H_
