// expand-choleskys: the JIT's cholesky, as a loop over the columns of each
// matrix (a matrix-vector dot and a dynamic update per column) in the
// compute type, in the order of semantics/linear_algebra.h (the
// interpreter's), then converted back to the element type.
#ifndef MXLA_PASSES_CHOLESKY_EXPANDER_H_
#define MXLA_PASSES_CHOLESKY_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class CholeskyExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-choleskys"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CHOLESKY_EXPANDER_H_
