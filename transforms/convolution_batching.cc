// The batching rule of convolution with a batched input: the batch folds
// into the convolution's own batch dimension (outermost, so each example
// keeps its rows together), the convolution runs once, and the result's
// batch dimension unfolds again. A batched kernel (per-example weights)
// and batch groups are refused by name for now.
#include <vector>

#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kConvolution>,
                             const BatchContext& context) {
  const HloInstruction& conv = context.instruction;
  if (context.batched[1]) {
    return NoRuleError(context, "with a batched kernel");
  }
  if (conv.batch_group_count() != 1) {
    return NoRuleError(context, "with batch groups");
  }
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers numbers,
                   conv.convolution_dimension_numbers());
  const Shape& input = conv.operand(0)->shape();
  const int64_t rank = input.dimensions().size();
  const int64_t b = context.batch_size;
  // [B, d0, ...] -> [d0, ..., B, d_batch, ...] -> [..., B * N, ...].
  std::vector<int64_t> permutation;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == numbers.input_batch) permutation.push_back(0);
    permutation.push_back(d + 1);
  }
  std::vector<int64_t> folded(input.dimensions().begin(), input.dimensions().end());
  folded[numbers.input_batch] *= b;
  const XlaOp lhs = Reshape(Transpose(context.operands[0], permutation), folded);
  std::vector<int64_t> out(conv.shape().dimensions().begin(),
                           conv.shape().dimensions().end());
  const int64_t n = out[numbers.output_batch];
  out[numbers.output_batch] *= b;
  const XlaOp value = EmitCopyOf(
      context.builder, conv, ShapeUtil::MakeShape(conv.shape().element_type(), out),
      {lhs, context.operands[1]}, context.callees);
  // [..., B * N, ...] -> [..., B, N, ...] -> [B, ...].
  std::vector<int64_t> unfolded;
  for (size_t d = 0; d < out.size(); ++d) {
    if (static_cast<int64_t>(d) == numbers.output_batch) {
      unfolded.push_back(b);
      unfolded.push_back(n);
    } else {
      unfolded.push_back(out[d]);
    }
  }
  std::vector<int64_t> to_front = {numbers.output_batch};
  for (int64_t d = 0; d < static_cast<int64_t>(unfolded.size()); ++d) {
    if (d != numbers.output_batch) to_front.push_back(d);
  }
  return Transpose(Reshape(value, unfolded), to_front);
}

}  // namespace mxla::batching_rules
