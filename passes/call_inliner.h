// inline-calls: replaces every `call` with a copy of the computation it
// calls, the copy's parameters being the call's operands, until no call is
// left (a copied body may bring calls of its own). As XLA's CPU pipeline
// does first: the later passes and codegen then see one flat computation.
// The called computations stay in the module until dce drops the ones
// nothing calls. Any HLO form.
#ifndef MXLA_PASSES_CALL_INLINER_H_
#define MXLA_PASSES_CALL_INLINER_H_

#include "absl/status/statusor.h"
#include "ir/fusion_plan_options.h"
#include "ir/hlo_computation.h"
#include "passes/hlo_pass.h"

namespace mxla {

// Replaces `call` (a call or a fusion in `computation`) by a copy of the
// computation it calls.
absl::Status InlineCall(HloComputation& computation, HloInstruction* call);

class CallInlinerPass : public HloPass {
 public:
  absl::string_view name() const override { return "inline-calls"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// inline-unplannable-fusions: a fusion that comes with the input (it has
// no plan yet) and that mxla could not emit (fusion-planning finds no
// plan for it, e.g. a multi-output loop fusion, or its body holds an op
// that does not fuse, such as another fusion), and every kCustom fusion
// (another backend's: XLA:GPU's Triton or library calls) is a call like
// any other:
// it is inlined, and the JIT's own fusion passes then fuse its body their
// way. Fusions mxla can plan are kept as the input made them.
class UnplannableFusionInlinerPass : public HloPass {
 public:
  explicit UnplannableFusionInlinerPass(FusionPlanningOptions options = {})
      : options_(options) {}
  absl::string_view name() const override {
    return "inline-unplannable-fusions";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  FusionPlanningOptions options_;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CALL_INLINER_H_
