// Gradient rule of map: a map of an elementwise computation is that
// computation applied to whole arrays (each scalar parameter an operand,
// each constant broadcast), so its vector-Jacobian product is that of the
// equivalent elementwise graph, taken with the rules the graph's ops
// already have. The graph is what the JIT runs for a map: the map alone in
// a computation of its operands (LoweredOpCotangents), after
// conditional-to-select and inline-maps (passes/map_inliner.h), so a map
// the JIT can run has a gradient, and one whose computation holds an op
// without an elementwise meaning (a reduce, a loop) is refused by name.
#include "absl/strings/str_cat.h"
#include "ir/hlo_module.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {

Result GradientRules::Handle(OpTag<Op::kMap>, const GradientContext& context) {
  return LoweredOpCotangents(
      context, {"conditional-to-select", "inline-maps", "dce"},
      absl::StrCat("whose computation '",
                   context.instruction.to_apply()->name(),
                   "' is not elementwise"));
}

}  // namespace mxla::gradient_rules
