// Gradient rule of convolution: both cotangents are convolutions again,
// as in JAX's _conv_general_dilated_transpose_lhs and _transpose_rhs
// (jax/_src/lax/convolution.py). The input's is the cotangent convolved
// with the spatially reversed kernel (the forward strides become lhs
// dilation, the forward lhs dilation the strides); the kernel's is the
// input convolved with the cotangent (strides and rhs dilation trade
// places), where feature groups become batch groups and batch groups
// feature groups.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

using Padding = std::vector<std::pair<int64_t, int64_t>>;

// The roles of a convolution's three arrays in JAX's spec order: batch (or
// the kernel's output feature), feature (the kernel's input feature), then
// the spatial dimensions.
struct Spec {
  int64_t first;
  int64_t second;
  std::vector<int64_t> spatial;
};

Spec LhsSpec(const ConvolutionDimensionNumbers& d) {
  return {d.input_batch, d.input_feature, d.input_spatial};
}
Spec RhsSpec(const ConvolutionDimensionNumbers& d) {
  return {d.kernel_output_feature, d.kernel_input_feature, d.kernel_spatial};
}
Spec OutSpec(const ConvolutionDimensionNumbers& d) {
  return {d.output_batch, d.output_feature, d.output_spatial};
}
Spec Swapped(Spec spec) {
  std::swap(spec.first, spec.second);
  return spec;
}

ConvolutionDimensionNumbers FromSpecs(const Spec& lhs, const Spec& rhs,
                                      const Spec& out) {
  ConvolutionDimensionNumbers d;
  d.input_batch = lhs.first;
  d.input_feature = lhs.second;
  d.input_spatial = lhs.spatial;
  d.kernel_output_feature = rhs.first;
  d.kernel_input_feature = rhs.second;
  d.kernel_spatial = rhs.spatial;
  d.output_batch = out.first;
  d.output_feature = out.second;
  d.output_spatial = out.spatial;
  return d;
}

// `x` with dimension `from` split into (groups, rest) and the groups made
// the major part of dimension `to`: dims[from] /= groups, dims[to] *=
// groups. JAX's _reshape_axis_out_of then _reshape_axis_into.
XlaOp MoveGroups(XlaOp x, int64_t from, int64_t groups, int64_t to) {
  const Shape shape = ShapeOf(x);
  std::vector<int64_t> split(shape.dimensions().begin(),
                             shape.dimensions().end());
  std::vector<int64_t> merged = split;
  merged[from] /= groups;
  merged[to] *= groups;
  split[from] /= groups;
  split.insert(split.begin() + from, groups);
  // In the split array the groups are axis `from`; `to` moved up by one
  // if it came after it.
  const int64_t target = to < from ? to : to + 1;
  std::vector<int64_t> permutation;
  for (int64_t axis = 0; axis < static_cast<int64_t>(split.size()); ++axis) {
    if (axis == from) continue;
    if (axis == target) permutation.push_back(from);
    permutation.push_back(axis);
  }
  return Reshape(Transpose(Reshape(x, split), permutation), merged);
}

int64_t Dilated(int64_t size, int64_t dilation) {
  return size == 0 ? 0 : 1 + dilation * (size - 1);
}

// The spatial sizes the padding formulas read, per window dimension.
struct SpatialSizes {
  int64_t in, kernel, out;
};

SpatialSizes SizesAt(const Shape& lhs, const Shape& rhs, const Shape& out,
                     const ConvolutionDimensionNumbers& d, size_t i) {
  return {lhs.dimensions(d.input_spatial[i]),
          rhs.dimensions(d.kernel_spatial[i]),
          out.dimensions(d.output_spatial[i])};
}

// JAX's _conv_general_vjp_rhs_padding.
std::pair<int64_t, int64_t> RhsPadding(const SpatialSizes& s,
                                       const WindowDimension& w) {
  const int64_t in = Dilated(s.in, w.base_dilation);
  const int64_t kernel = Dilated(s.kernel, w.window_dilation);
  const int64_t out = Dilated(s.out, w.stride);
  return {w.padding_low, out - in + kernel - w.padding_low - 1};
}

// What both cotangents are built from.
struct ConvFacts {
  ConvolutionDimensionNumbers dnums;
  Window window;
  int64_t feature_groups, batch_groups;
  Shape lhs, rhs, out;
};

XlaOp LhsCotangent(const ConvFacts& f, XlaOp g, XlaOp rhs) {
  const ConvolutionDimensionNumbers& d = f.dnums;
  int64_t groups = f.feature_groups;
  if (f.batch_groups > 1) groups = f.batch_groups;
  if (groups > 1) {
    rhs = MoveGroups(rhs, d.kernel_output_feature, groups,
                     d.kernel_input_feature);
  }
  std::vector<int64_t> strides, lhs_dilation, rhs_dilation;
  Padding padding;
  for (size_t i = 0; i < f.window.size(); ++i) {
    const WindowDimension& w = f.window[i];
    const SpatialSizes sizes = SizesAt(f.lhs, f.rhs, f.out, d, i);
    padding.push_back(TransposedWindowPadding(sizes.in, sizes.out, w));
    strides.push_back(w.base_dilation);
    lhs_dilation.push_back(w.stride);
    rhs_dilation.push_back(w.window_dilation);
  }
  XlaOp result = ConvGeneralDilated(
      g, Rev(rhs, d.kernel_spatial), strides, padding, lhs_dilation,
      rhs_dilation, FromSpecs(OutSpec(d), Swapped(RhsSpec(d)), LhsSpec(d)),
      groups, 1);
  if (f.batch_groups > 1) {
    result = MoveGroups(result, d.input_feature, f.batch_groups,
                        d.input_batch);
  }
  return ConvertTo(result, f.lhs.element_type());
}

XlaOp RhsCotangent(const ConvFacts& f, XlaOp g, XlaOp lhs) {
  const ConvolutionDimensionNumbers& d = f.dnums;
  std::vector<int64_t> strides, lhs_dilation, rhs_dilation;
  Padding padding;
  for (size_t i = 0; i < f.window.size(); ++i) {
    const WindowDimension& w = f.window[i];
    padding.push_back(RhsPadding(SizesAt(f.lhs, f.rhs, f.out, d, i), w));
    strides.push_back(w.window_dilation);
    lhs_dilation.push_back(w.base_dilation);
    rhs_dilation.push_back(w.stride);
  }
  // Feature groups become batch groups and the other way round.
  const XlaOp result = ConvGeneralDilated(
      lhs, g, strides, padding, lhs_dilation, rhs_dilation,
      FromSpecs(Swapped(LhsSpec(d)), Swapped(OutSpec(d)), Swapped(RhsSpec(d))),
      f.batch_groups, f.feature_groups);
  return ConvertTo(result, f.rhs.element_type());
}

}  // namespace

std::pair<int64_t, int64_t> TransposedWindowPadding(int64_t in, int64_t out,
                                                    const WindowDimension& w) {
  const int64_t dilated_in = Dilated(in, w.base_dilation);
  const int64_t window = Dilated(w.size, w.window_dilation);
  const int64_t dilated_out = Dilated(out, w.stride);
  const int64_t before = window - w.padding_low - 1;
  return {before, dilated_in + window - 1 - dilated_out - before};
}

Result GradientRules::Handle(OpTag<Op::kConvolution>,
                             const GradientContext& context) {
  const HloInstruction& conv = context.instruction;
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                   conv.convolution_dimension_numbers());
  ConvFacts facts{std::move(dnums), conv.window(), conv.feature_group_count(),
                  conv.batch_group_count(), ShapeOf(context.operands[0]),
                  ShapeOf(context.operands[1]), ShapeOf(context.result)};
  if (facts.window.empty()) facts.window.resize(facts.dnums.input_spatial.size());
  for (size_t i = 0; i < facts.window.size(); ++i) {
    if (facts.window[i].reversal) {
      return NoRuleError(context, absl::StrCat("with window reversal (in "
                                               "window dimension ", i, ")"));
    }
  }
  const XlaOp g = ConvertTo(context.cotangent, facts.lhs.element_type());
  return OperandCotangents{LhsCotangent(facts, g, context.operands[1]),
                           RhsCotangent(facts, g, context.operands[0])};
}

}  // namespace mxla::gradient_rules
