// dce: deletes instructions the root does not depend on (parameters stay,
// they are the signature) and computations nothing calls.
#ifndef MXLA_PASSES_DCE_H_
#define MXLA_PASSES_DCE_H_

#include "ir/hlo_computation.h"
#include "passes/hlo_pass.h"

namespace mxla {

// Deletes the instructions of `computation` its root does not reach
// (parameters stay); returns whether it deleted any.
absl::StatusOr<bool> RemoveDeadInstructions(HloComputation& computation);

class DcePass : public HloPass {
 public:
  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_DCE_H_
