// lower-collectives: a collective on mxla's one device (verified: one
// participant per group) or an asynchronous wrapper becomes what it
// computes there, in plain HLO: its operands (a tuple of them for several)
// for all-reduce, all-gather, reduce-scatter, all-to-all and
// collective-broadcast; a copy of the operand, or zeros when no pair
// targets device 0, for collective-permute; for async-start and call-start
// a tuple of the operands, a call of the computation and zeros for the
// context (copy-start: the operand twice); get-tuple-elements for the
// -done ops; add-dependency becomes its first operand (one device has no
// side effects to order). It first checks that every group and pair names
// only device 0: a program whose collectives need more devices is
// InvalidArgument naming the op and the id. The JIT runs it first; the interpreter evaluates them as they
// are. Any form.
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
