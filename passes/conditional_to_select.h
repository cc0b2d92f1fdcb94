// conditional-to-select: a `conditional` inside a map's computation (or a
// computation such a computation calls) becomes both branches, inlined,
// and a select of their results, as XLA's ConditionalToSelect does for the
// conditionals of embedded computations. The map inliner (inline-maps)
// then lifts the computation like any other elementwise one; the JIT runs
// no conditional per element.
//
// Lowered only where running every branch changes nothing but the time:
// each branch (with everything it calls) is side-effect-free and cheap,
// i.e. made of parameters, scalar constants, elementwise ops, tuples and
// their elements, and calls, fusions, maps and conditionals of such
// computations; no loop, no rng, no infeed. The result is a scalar or a
// tuple of them (each leaf gets its own select; XLA's pass leaves tuples
// alone). A pred index selects branch 0 when true; an s32 index selects
// its branch, and one out of [0, N) the last, as the conditional does.
// Other conditionals are left as they are. Any HLO form.
#ifndef MXLA_PASSES_CONDITIONAL_TO_SELECT_H_
#define MXLA_PASSES_CONDITIONAL_TO_SELECT_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ConditionalToSelectPass : public HloPass {
 public:
  absl::string_view name() const override { return "conditional-to-select"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CONDITIONAL_TO_SELECT_H_
