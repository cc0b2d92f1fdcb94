// expand-triangular-solves: the JIT's triangular-solve, as a loop over the
// rows of the solution (a vector-matrix dot and a dynamic update per row)
// in the compute type, in the order of semantics/linear_algebra.h (the
// interpreter's), then converted back to the element type.
#ifndef MXLA_PASSES_TRIANGULAR_SOLVE_EXPANDER_H_
#define MXLA_PASSES_TRIANGULAR_SOLVE_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class TriangularSolveExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-triangular-solves"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_TRIANGULAR_SOLVE_EXPANDER_H_
