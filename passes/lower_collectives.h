// lower-collectives: a collective on mxla's one device (verified: one
// participant per group) becomes what it computes there, in plain HLO: its
// operands (a tuple of them for several) for all-reduce, all-gather,
// reduce-scatter, all-to-all and collective-broadcast; a copy of the
// operand, or zeros when no pair targets device 0, for collective-permute;
// tuples and get-tuple-elements for the -start/-done pairs. The JIT runs
// it first; the interpreter evaluates collectives as they are. Any form.
#ifndef MXLA_PASSES_LOWER_COLLECTIVES_H_
#define MXLA_PASSES_LOWER_COLLECTIVES_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class LowerCollectivesPass : public HloPass {
 public:
  absl::string_view name() const override { return "lower-collectives"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_LOWER_COLLECTIVES_H_
