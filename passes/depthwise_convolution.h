// A depthwise convolution (one feature group per input feature, one output
// feature each) as the sum over window taps of a strided slice of the
// (padded) input times that tap's weights broadcast along the features:
// elementwise work the fusion passes make one loop kernel of, vectorized
// along the features, which are minor (the input is made feature-minor and
// the result transposed back where the user's layout differs). It reads
// each input element once per tap over it and computes nothing twice, the
// memory-bound kernel oneDNN runs for it. Taps in padding or base-dilation
// holes are masked to add nothing, as the interpreter skips them. The sum
// runs over taps in order, so it differs from the interpreter's by rounding
// only: expand-convolutions uses it where reductions may be reordered.
#ifndef MXLA_PASSES_DEPTHWISE_CONVOLUTION_H_
#define MXLA_PASSES_DEPTHWISE_CONVOLUTION_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"

namespace mxla {

// Whether `conv` is depthwise in that sense: feature_group_count equal to
// its input features (more than one), one batch group, one output feature
// per group, a non-empty result, and operands and result all f32 or all
// f64.
bool IsDepthwiseConvolution(const HloInstruction& conv);

// Replaces `conv` (IsDepthwiseConvolution) in `computation` by that sum.
absl::Status ExpandDepthwiseConvolution(HloComputation& computation,
                                        HloInstruction* conv);

// Whether `conv` (IsDepthwiseConvolution) can run on the JIT's depthwise
// kernel: no base dilation, at most kMaxDepthwiseProductTaps taps, and its
// weights within a dot plan's stack bound (kMaxDotPackedBytes, counted as
// the plan check counts them: taps x (features + 144) elements).
bool FitsDepthwiseKernel(const HloInstruction& conv);

// Brings `conv` (FitsDepthwiseKernel) into the depthwise product form
// (ir/conv_product.h IsDepthwiseProduct): the input made feature-minor, the
// kernel (spatial..., 1, feature) and the result (batch, spatial...,
// feature), by transposes around it where they differ. The kernel then
// sums each output element's taps in window order with fused multiply-adds
// (a reassociation: expand-convolutions uses it where reductions may be
// reordered). Returns whether it changed anything.
absl::StatusOr<bool> MakeDepthwiseProduct(HloComputation& computation,
                                          HloInstruction* conv);

}  // namespace mxla

#endif  // MXLA_PASSES_DEPTHWISE_CONVOLUTION_H_
