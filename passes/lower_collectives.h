// lower-collectives, on a program compiled for one device (the module's
// replica_count x num_partitions is 1, as unless its text or the compile's
// options name more):
// every group and pair must name device 0 only (else InvalidArgument naming
// the op and the id), and a collective or an asynchronous wrapper becomes
// what it computes there, in plain HLO: its operands (a tuple of them for
// several) for all-reduce, all-gather, reduce-scatter, all-to-all and
// collective-broadcast; a copy of the operand, or zeros when no pair
// targets device 0, for collective-permute; replica-id and partition-id
// become the constant 0; for async-start and call-start a tuple of the
// operands, a call of the computation and zeros for the context
// (copy-start: the operand twice); get-tuple-elements for the -done ops;
// add-dependency becomes its first operand (one device has no side
// effects to order). ragged-all-to-all stays, a device step of one
// device, because its offsets and sizes must be range-checked when it
// runs (runtime/ragged_all_to_all.h), which plain HLO cannot do.
//
// On a program compiled for several devices the collectives stay, as the
// runtime's device steps (IsDeviceStepOp), and only their asynchronous
// forms are made synchronous: all-reduce-start and -done become one
// all-reduce, all-gather-start a tuple of its operands and an all-gather,
// collective-permute-start a tuple of its operand, a collective-permute
// and zeros for the context; the wrappers lower as above. XLA's in-place
// collective-permute (four operands) becomes a dynamic-slice, a plain
// permute and a dynamic-update-slice on any count (passes/
// inplace_permute_lowering.h). The JIT runs it
// first; the interpreter evaluates them all as they are.
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
