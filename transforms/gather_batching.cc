// The batching rule of gather. With the start indices batched (B at
// their dimension 0), B is the first of their batch dimensions, so it
// becomes the result's first non-offset dimension: shifting the offset
// dimensions by one puts it at 0. With the operand batched too, B pairs
// operand and indices as one more batching dimension (XLA's
// operand_batching_dims), each example gathering from its own operand;
// an operand batched alone gets its indices broadcast along B.
#include <vector>

#include "builder/operators.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kGather>, const BatchContext& context) {
  const HloInstruction& gather = context.instruction;
  const GatherDimensionNumbers own = gather.gather_dimension_numbers();
  GatherDimensionNumbers numbers = own;
  numbers.offset_dims = Shifted(own.offset_dims);
  numbers.start_indices_batching_dims = Shifted(own.start_indices_batching_dims);
  numbers.index_vector_dim = own.index_vector_dim + 1;
  std::vector<int64_t> sizes = gather.gather_slice_sizes();
  const XlaOp indices = BatchedOperand(context, 1);
  if (!context.batched[0]) {
    return Gather(context.operands[0], indices, numbers, sizes);
  }
  numbers.collapsed_slice_dims = Shifted(own.collapsed_slice_dims);
  numbers.start_index_map = Shifted(own.start_index_map);
  numbers.operand_batching_dims = WithLeadingZero(own.operand_batching_dims);
  numbers.start_indices_batching_dims =
      WithLeadingZero(own.start_indices_batching_dims);
  sizes.insert(sizes.begin(), 1);
  return Gather(context.operands[0], indices, numbers, sizes);
}

}  // namespace mxla::batching_rules
