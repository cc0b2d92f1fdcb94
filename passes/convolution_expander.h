// expand-convolutions: the JIT's convolution. Each convolution becomes the
// reduction it computes, with no buffer of patches: the input is padded
// (padding and base dilation as pad's low/high/interior), each window
// position's patch is gathered (start indices iota * stride, an index map),
// window dilation is a strided slice of the patch, and the products with
// the (reversed where asked) kernel are summed over the window taps and the
// input features of the group, in the interpreter's order
// (interpreter/hlo_evaluator_convolution.cc). Taps in padding or in holes
// are masked to add +0, so a non-finite weight there does not turn the
// sum into NaN, exactly as the interpreter's skipping. Groups
// (feature_group_count, batch_group_count) become a dimension of the
// reduction's result. f16 and bf16 compute in f32, as for dot. The fusion
// passes fuse it all into one reduction kernel.
//
// The JIT constructs it with keep_matrix_products when float reductions
// may be reordered (CodegenOptions::reassociate_reductions): an entry
// convolution whose operands and result are all f32 or all f64 (f16 and
// bf16 ones are first widened to that, expansion::WidenToF32) then stays
// a convolution, brought into the product form (ir/conv_product.h) for the
// dot kernel to compute as an implicit matrix product: its result laid out
// (batch, spatial..., feature), transposed back where the user asked for
// another order, and its input made feature-minor the same way (the kernel
// then reads input rows in place). The kernel's sums run over taps and
// features in order, one fused multiply-add each, so they differ from the
// interpreter's by rounding only. A depthwise convolution becomes the sum
// over taps of passes/depthwise_convolution.h instead: memory-bound work,
// vectorized along the features. Any other convolution of several feature
// groups or batch groups, unless its groups are too thin to pay
// (kMinGroupProductFeatures), is first split into one convolution per
// group (passes/grouped_convolution.h), each then a product.
#ifndef MXLA_PASSES_CONVOLUTION_EXPANDER_H_
#define MXLA_PASSES_CONVOLUTION_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ConvolutionExpanderPass : public HloPass {
 public:
  explicit ConvolutionExpanderPass(bool keep_matrix_products = false)
      : keep_matrix_products_(keep_matrix_products) {}
  absl::string_view name() const override { return "expand-convolutions"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  bool keep_matrix_products_;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CONVOLUTION_EXPANDER_H_
