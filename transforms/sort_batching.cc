// The batching rule of sort: every operand gets the batch (an unbatched
// one broadcast along it) and the sort runs along its dimension, one past
// the batch; each example's rows sort on their own.
#include <vector>

#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kSort>, const BatchContext& context) {
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < context.instruction.operand_count(); ++i) {
    operands.push_back(BatchedOperand(context, i));
  }
  return Reemit(context, operands, [&](HloInstruction& copy) {
    copy.set_dimensions(Shifted(context.instruction.dimensions()));
  });
}

}  // namespace mxla::batching_rules
