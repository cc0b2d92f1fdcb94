// expand-stochastic-converts: the JIT's stochastic-convert, as XLA
// decomposes it (semantics/stochastic_convert.h): floor, fraction scaled to
// the random type's width, an unsigned compare, the increment, the sign,
// and the bounds; in f32 for the narrow float types (exact for every step).
#ifndef MXLA_PASSES_STOCHASTIC_CONVERT_EXPANDER_H_
#define MXLA_PASSES_STOCHASTIC_CONVERT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class StochasticConvertExpanderPass : public HloPass {
 public:
  absl::string_view name() const override {
    return "expand-stochastic-converts";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_STOCHASTIC_CONVERT_EXPANDER_H_
