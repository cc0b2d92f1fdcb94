// The batching rule of scatter: every operand gets the batch (an
// unbatched one broadcast along it), and the batch pairs the inputs with
// the indices as one more of XLA's batching dimensions; in the updates it
// is the first scatter dimension, matching the indices' first. Each
// example scatters into its own input.
#include <vector>

#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kScatter>, const BatchContext& context) {
  const HloInstruction& scatter = context.instruction;
  const ScatterDimensionNumbers own = scatter.scatter_dimension_numbers();
  ScatterDimensionNumbers numbers = own;
  numbers.update_window_dims = Shifted(own.update_window_dims);
  numbers.inserted_window_dims = Shifted(own.inserted_window_dims);
  numbers.scatter_dims_to_operand_dims = Shifted(own.scatter_dims_to_operand_dims);
  numbers.input_batching_dims = WithLeadingZero(own.input_batching_dims);
  numbers.scatter_indices_batching_dims =
      WithLeadingZero(own.scatter_indices_batching_dims);
  numbers.index_vector_dim = own.index_vector_dim + 1;
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < scatter.operand_count(); ++i) {
    operands.push_back(BatchedOperand(context, i));
  }
  return Reemit(context, operands, [&](HloInstruction& copy) {
    copy.set_scatter_dimension_numbers(numbers);
  });
}

}  // namespace mxla::batching_rules
