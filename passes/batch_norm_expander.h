// expand-batch-norms: the JIT's batch-norm-training, -inference and -grad,
// as per-feature reductions and elementwise ops in the compute type, in
// the order of semantics/batch_norm.h (the interpreter's), then converted
// back to the element type.
#ifndef MXLA_PASSES_BATCH_NORM_EXPANDER_H_
#define MXLA_PASSES_BATCH_NORM_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class BatchNormExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-batch-norms"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_BATCH_NORM_EXPANDER_H_
