// expand-dots: the JIT's dot, until issue 17's kernel. Each dot becomes the
// reduction it computes: the operands transposed to (batch, free,
// contracting) order and broadcast to (batch, lhs free, rhs free,
// contracting), multiplied, and summed over the contracting dimensions from
// 0. The fusion passes then fuse it all into one reduction kernel that
// never materializes the products. Its order and rounding are the
// interpreter's (interpreter/hlo_evaluator_dot.cc): bit-identical unless
// reductions are reassociated. f16 and bf16 dots are computed in f32 and
// converted back. Any HLO form; the result is lowered.
#ifndef MXLA_PASSES_DOT_EXPANDER_H_
#define MXLA_PASSES_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class DotExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-dots"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_DOT_EXPANDER_H_
