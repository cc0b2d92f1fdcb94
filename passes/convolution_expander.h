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
#ifndef MXLA_PASSES_CONVOLUTION_EXPANDER_H_
#define MXLA_PASSES_CONVOLUTION_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ConvolutionExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-convolutions"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CONVOLUTION_EXPANDER_H_
