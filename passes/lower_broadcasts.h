// lower-broadcasts: makes every implicit broadcast explicit, as XlaBuilder
// itself emits it (docs/design.md "Broadcast lowering", xla-semantics.md
// §a.3).
//
// Before: builder-form HLO. A binary elementwise op (or compare) may carry
// broadcast_dimensions and operands whose dimensions differ from its result;
// select may take scalar operands.
// After: lowered HLO. Each such operand is replaced, operand by operand, by
//   1. a rank-raising `broadcast` (dimensions = broadcast_dimensions, the
//      operand's own sizes kept) for a lower-rank non-scalar operand, then
//   2. `reshape` dropping the size-1 dimensions that stretch + an exact
//      `broadcast`, or `broadcast(x), dimensions={}` for a scalar;
// no instruction carries broadcast_dimensions, and evaluating the module
// gives bitwise the same results. New instructions are named after the
// operand (`v.b`, `y.r`) and inherit the op's metadata.
#ifndef MXLA_PASSES_LOWER_BROADCASTS_H_
#define MXLA_PASSES_LOWER_BROADCASTS_H_

#include "passes/hlo_pass.h"

namespace mxla {

class LowerBroadcastsPass : public HloPass {
 public:
  absl::string_view name() const override { return "lower-broadcasts"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_LOWER_BROADCASTS_H_
