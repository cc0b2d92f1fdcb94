// inline-calls: replaces every `call` with a copy of the computation it
// calls, the copy's parameters being the call's operands, until no call is
// left (a copied body may bring calls of its own). As XLA's CPU pipeline
// does first: the later passes and codegen then see one flat computation.
// The called computations stay in the module until dce drops the ones
// nothing calls. Any HLO form.
#ifndef MXLA_PASSES_CALL_INLINER_H_
#define MXLA_PASSES_CALL_INLINER_H_

#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"
#include "passes/hlo_pass.h"

namespace mxla {

// Replaces `call` (a kCall of `computation`) by a copy of its callee.
absl::Status InlineCall(HloComputation& computation, HloInstruction* call);

class CallInlinerPass : public HloPass {
 public:
  absl::string_view name() const override { return "inline-calls"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CALL_INLINER_H_
