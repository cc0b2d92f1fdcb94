// ShapeInference::InferConvolveShape and InferWindowOutputShape: XLA's
// rules, checked in XLA's order, each message naming the op, the shapes and
// the dimension numbers (as dim_labels).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;
using shape_inference_internal::PreferredResultType;

absl::StatusOr<Shape> ShapeInference::InferWindowOutputShape(
    HloOpcode op, const Shape& base, const Window& window,
    PrimitiveType element_type) {
  if (static_cast<int64_t>(window.size()) != base.rank()) {
    return OpError(op, "Window has dimension ", window.size(),
                   " but base shape has dimension ", base.rank(), " (",
                   base.ToString(), ").");
  }
  const std::string shown = absl::StrCat("{", WindowToString(window), "}");
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < base.rank(); ++i) {
    const WindowDimension& d = window[i];
    if (d.size <= 0) {
      return OpError(op, "Window ", shown, " has a non-positive dimension.");
    }
    if (d.stride <= 0) {
      return OpError(op, "Window ", shown, " has a non-positive stride.");
    }
    if (d.base_dilation < 1) {
      return OpError(op, "Window ", shown,
                     " has a non-positive base area dilation factor.");
    }
    if (d.window_dilation < 1) {
      return OpError(op, "Window ", shown,
                     " has a non-positive window dilation factor.");
    }
    dims.push_back(WindowOutputSize(base.dimensions(i), d));
  }
  return ShapeUtil::MakeShape(element_type, dims);
}

namespace {

constexpr HloOpcode kConv = HloOpcode::kConvolution;

absl::Status CheckGroupCounts(int64_t feature_group_count,
                              int64_t batch_group_count) {
  if (feature_group_count <= 0) {
    return OpError(kConv,
                   "feature_group_count must be a positive number, got ",
                   feature_group_count);
  }
  if (batch_group_count <= 0) {
    return OpError(kConv, "batch_group_count must be a positive number, got ",
                   batch_group_count);
  }
  if (batch_group_count > 1 && feature_group_count > 1) {
    return OpError(kConv, "both batch_group_count ", batch_group_count,
                   " and feature_group_count ", feature_group_count,
                   " cannot be greater than 1");
  }
  return absl::OkStatus();
}

// As many spatial dimensions on every side and in the window; both
// operands of rank spatial + 2.
absl::Status CheckConvolutionRanks(const Shape& lhs, const Shape& rhs,
                                   const Window& window,
                                   const ConvolutionDimensionNumbers& dnums,
                                   const std::string& labels) {
  const int64_t spatial = dnums.input_spatial.size();
  if (dnums.kernel_spatial.size() != dnums.input_spatial.size() ||
      dnums.output_spatial.size() != dnums.input_spatial.size()) {
    return OpError(kConv,
                   "Both arguments and the output of convolution must have "
                   "the same number of spatial dimensions: dim_labels=",
                   labels);
  }
  if (static_cast<int64_t>(window.size()) != spatial) {
    return OpError(kConv,
                   "Window must have same number of dimensions as dimension "
                   "numbers: window {",
                   WindowToString(window), "} has ", window.size(),
                   ", dim_labels=", labels, " has ", spatial, ".");
  }
  const int64_t rank = spatial + 2;
  if (lhs.rank() != rank) {
    return OpError(kConv,
                   "The LHS argument to a convolution should have rank ",
                   rank, "; lhs: ", lhs.ToString(), " (dim_labels=", labels,
                   ").");
  }
  if (rhs.rank() != rank) {
    return OpError(kConv,
                   "The RHS argument to a convolution should have rank ",
                   rank, "; rhs: ", rhs.ToString(), " (dim_labels=", labels,
                   ").");
  }
  return absl::OkStatus();
}

// One side's dimension numbers name every dimension of `rank` once.
absl::Status CheckPermutation(int64_t first, int64_t second,
                              const std::vector<int64_t>& spatial_dims,
                              int64_t rank, absl::string_view side) {
  std::vector<int64_t> all = {first, second};
  all.insert(all.end(), spatial_dims.begin(), spatial_dims.end());
  std::vector<bool> seen(rank, false);
  for (int64_t d : all) {
    if (d < 0 || d >= rank) {
      return OpError(kConv, "A dimension number is out of range in "
                            "convolution: ", side, " dimension ", d,
                     " of rank ", rank, ".");
    }
    if (seen[d]) {
      return OpError(kConv, side, " dimensions of convolution must contain "
                                  "each dimension exactly once: dimension ",
                     d, " appears twice.");
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status CheckPermutations(const ConvolutionDimensionNumbers& dnums,
                               int64_t rank) {
  RETURN_IF_ERROR(CheckPermutation(dnums.input_batch, dnums.input_feature,
                                   dnums.input_spatial, rank, "Input"));
  RETURN_IF_ERROR(CheckPermutation(dnums.kernel_input_feature,
                                   dnums.kernel_output_feature,
                                   dnums.kernel_spatial, rank, "Window"));
  return CheckPermutation(dnums.output_batch, dnums.output_feature,
                          dnums.output_spatial, rank, "Output");
}

// The feature and batch sizes against the group counts.
absl::Status CheckGroupedSizes(const Shape& lhs, const Shape& rhs,
                               int64_t feature_group_count,
                               int64_t batch_group_count,
                               const ConvolutionDimensionNumbers& dnums,
                               const std::string& context) {
  const int64_t input_features = lhs.dimensions(dnums.input_feature);
  const int64_t input_batch = lhs.dimensions(dnums.input_batch);
  const int64_t kernel_input_features =
      rhs.dimensions(dnums.kernel_input_feature);
  const int64_t kernel_output_features =
      rhs.dimensions(dnums.kernel_output_feature);
  if (kernel_output_features % batch_group_count != 0) {
    return OpError(kConv, "Expected output feature dimension size (value ",
                   kernel_output_features,
                   ") to be a multiple of batch group count ",
                   batch_group_count, context);
  }
  if (input_features % feature_group_count != 0 ||
      input_features / feature_group_count != kernel_input_features) {
    return OpError(kConv, "Expected LHS feature dimension (value ",
                   input_features,
                   ") to be a multiple of feature_group_count (value ",
                   feature_group_count,
                   "), and LHS feature dimension / feature_group_count = RHS "
                   "feature dimension (value ",
                   kernel_input_features, ")", context);
  }
  if (kernel_output_features % feature_group_count != 0) {
    return OpError(kConv, "Expected output feature dimension (value ",
                   kernel_output_features,
                   ") to be divisible by feature_group_count (value ",
                   feature_group_count, ")", context);
  }
  if (input_batch % batch_group_count != 0) {
    return OpError(kConv, "Expected input batch dimension (value ",
                   input_batch,
                   ") to be divisible by batch_group_count (value ",
                   batch_group_count, ")", context);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferConvolveShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  RETURN_IF_ERROR(ExpectValidArray(kConv, lhs, "lhs"));
  RETURN_IF_ERROR(ExpectValidArray(kConv, rhs, "rhs"));
  const std::string labels = ConvolutionDimLabelsToString(dnums);
  const std::string context =
      absl::StrCat("; got <conv>(", lhs.ToString(), ", ", rhs.ToString(),
                   ") with dim_labels=", labels, ".");
  RETURN_IF_ERROR(CheckGroupCounts(feature_group_count, batch_group_count));
  RETURN_IF_ERROR(CheckConvolutionRanks(lhs, rhs, window, dnums, labels));
  const int64_t spatial = dnums.input_spatial.size();
  RETURN_IF_ERROR(CheckPermutations(dnums, spatial + 2));
  std::vector<int64_t> input_spatial_sizes, kernel_spatial_sizes;
  for (int64_t i = 0; i < spatial; ++i) {
    input_spatial_sizes.push_back(lhs.dimensions(dnums.input_spatial[i]));
    kernel_spatial_sizes.push_back(rhs.dimensions(dnums.kernel_spatial[i]));
  }
  RETURN_IF_ERROR(CheckGroupedSizes(lhs, rhs, feature_group_count,
                                    batch_group_count, dnums, context));
  std::vector<int64_t> window_sizes;
  for (const WindowDimension& d : window) window_sizes.push_back(d.size);
  if (kernel_spatial_sizes != window_sizes) {
    return OpError(kConv,
                   "Window dimensions do not match RHS shape: RHS shape ",
                   rhs.ToString(), ", window {", WindowToString(window),
                   "}, dim_labels=", labels, ".");
  }
  ASSIGN_OR_RETURN(
      Shape positions,
      InferWindowOutputShape(
          kConv, ShapeUtil::MakeShape(lhs.element_type(), input_spatial_sizes),
          window, lhs.element_type()));
  ASSIGN_OR_RETURN(
      const PrimitiveType type,
      PreferredResultType(
          kConv, HigherPrecisionType(lhs.element_type(), rhs.element_type()),
          preferred_element_type, [&] { return context; }));
  std::vector<int64_t> dims(spatial + 2);
  dims[dnums.output_batch] =
      lhs.dimensions(dnums.input_batch) / batch_group_count;
  dims[dnums.output_feature] = rhs.dimensions(dnums.kernel_output_feature);
  for (int64_t i = 0; i < spatial; ++i) {
    dims[dnums.output_spatial[i]] = positions.dimensions(i);
  }
  return ShapeUtil::MakeShape(type, dims);
}

}  // namespace mxla
