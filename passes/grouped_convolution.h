// A grouped convolution as its groups' convolutions, each of one group:
// what lets the dot kernel compute grouped convolutions (ResNeXt's feature
// groups, the weight gradients JAX emits with batch_group_count) as
// implicit matrix products (ir/conv_product.h).
//
// With G = feature_group_count > 1, group g reads input features
// [g * F/G, (g + 1) * F/G) and kernel output features [g * O/G,
// (g + 1) * O/G); with BG = batch_group_count > 1, group g reads input
// batch [g * B/BG, (g + 1) * B/BG) (all input features) and kernel output
// features [g * O/BG, (g + 1) * O/BG). Each group is then a convolution of
// one group over slices of the operands, with the same window and
// dimension numbers: the interpreter's terms in the interpreter's order
// for every result element (interpreter/hlo_evaluator_convolution.cc).
// Their results are written in turn into a group-major [G, result with
// O/G features] array (dynamic-update-slices, each in place) and the
// groups moved next to their features, which is one transpose, not a
// concatenation choosing among G operands per element.
//
// The slices and updates are dynamic, their start read from an s32[1]
// constant that becomes a fusion parameter, so the groups' fusions print
// alike and share one compiled kernel each (codegen/kernel_groups.h):
// the compile does not grow with G.
#ifndef MXLA_PASSES_GROUPED_CONVOLUTION_H_
#define MXLA_PASSES_GROUPED_CONVOLUTION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"

namespace mxla {

// Whether `conv` has more than one feature group or more than one batch
// group (not both), an array result with elements, and operands with
// elements.
bool IsGroupedConvolution(const HloInstruction& conv);

// The fewest input or output features per group for which a group's
// product pays: with fewer of both (ResNeXt's first stage, 32 groups of 4
// features in and out) the products are so thin that the expansion's
// reduction runs as fast and compiles faster (measured on 8x56x56x128,
// 3x3: 131 ms expanded, 109 to 171 ms split; 8 in and out: 105 ms
// against 17 to 33 ms).
inline constexpr int64_t kMinGroupProductFeatures = 8;

// Whether each group of `conv` (IsGroupedConvolution) has at least
// kMinGroupProductFeatures input features (the kernel's input features)
// or output features.
bool IsWorthSplitting(const HloInstruction& conv);

// Replaces `conv` (IsGroupedConvolution) in `computation` by the
// concatenation of its groups' convolutions; returns those, in group
// order.
absl::StatusOr<std::vector<HloInstruction*>> SplitGroupedConvolution(
    HloComputation& computation, HloInstruction* conv);

}  // namespace mxla

#endif  // MXLA_PASSES_GROUPED_CONVOLUTION_H_
