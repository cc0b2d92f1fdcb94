// The batching rule of select-and-scatter: the batch is one more window
// dimension, of size 1, stride 1 and no padding, so each window stays
// inside one example and each example's source scatters into its own
// result. The operand and the source get the batch (an unbatched one
// broadcast along it); a batched initial value is refused by name, as
// reduce refuses one (it would need a scatter per example).
#include <vector>

#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kSelectAndScatter>,
                             const BatchContext& context) {
  if (context.batched[2]) {
    return NoRuleError(context, "with a batched initial value");
  }
  Window window = {WindowDimension{}};
  const Window own = context.instruction.window();
  window.insert(window.end(), own.begin(), own.end());
  return Reemit(context,
                {BatchedOperand(context, 0), BatchedOperand(context, 1),
                 context.operands[2]},
                [&](HloInstruction& copy) { copy.set_window(window); });
}

}  // namespace mxla::batching_rules
