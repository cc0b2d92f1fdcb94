// expand-rng-bit-generators: the JIT's rng-bit-generator. Each becomes the
// elementwise computation of semantics/bit_generators.h: per element, its
// counter from iotas and the state, the ThreeFry or Philox rounds in u32
// arithmetic, and the element's word of the result (each element computes
// its counter's words and picks one); the new state is a few u64 scalar ops
// on the state. It all fuses into loops, as many as the fusion pass's size
// bound cuts the rounds into.
#ifndef MXLA_PASSES_RNG_BIT_GENERATOR_EXPANDER_H_
#define MXLA_PASSES_RNG_BIT_GENERATOR_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class RngBitGeneratorExpanderPass : public HloPass {
 public:
  absl::string_view name() const override {
    return "expand-rng-bit-generators";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_RNG_BIT_GENERATOR_EXPANDER_H_
