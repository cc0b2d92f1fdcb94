// expand-scaled-dots: the JIT's scaled-dot, as shape_inference/scaled_dot.h
// defines it and the interpreter computes it: each operand and its scale
// converted to the dequantized type, the scale repeated over its blocks
// (broadcast and reshape), the two multiplied, then a dot of the products. The
// converts, repetitions and products fuse into the dot's operand loops.
#ifndef MXLA_PASSES_SCALED_DOT_EXPANDER_H_
#define MXLA_PASSES_SCALED_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ScaledDotExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-scaled-dots"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_SCALED_DOT_EXPANDER_H_
