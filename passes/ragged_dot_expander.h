// expand-ragged-dots: the JIT's ragged-dot (shape_inference/ragged_dot.h), as
// the interpreter computes it: one dot per group, whose rows a select picks by
// group (non-contracting mode, 0 for rows in no group) or whose operands are
// zeroed outside the group's part of the contracted dimension and concatenated
// along the new group dimension (contracting mode); the batch mode is a dot.
// Group bounds are running sums of group_sizes in s64.
#ifndef MXLA_PASSES_RAGGED_DOT_EXPANDER_H_
#define MXLA_PASSES_RAGGED_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class RaggedDotExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-ragged-dots"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_RAGGED_DOT_EXPANDER_H_
