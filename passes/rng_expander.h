// expand-rngs: the JIT's rng. Each rng becomes the elementwise computation
// of semantics/random_numbers.h (an iota of element indices, 64-bit
// integer mixing, then the distribution's arithmetic in f64), which fuses
// like any other loop. The key comes from the rng's name, so the pass runs
// before any pass that could rename an instruction (inlining does).
#ifndef MXLA_PASSES_RNG_EXPANDER_H_
#define MXLA_PASSES_RNG_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class RngExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-rngs"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_RNG_EXPANDER_H_
