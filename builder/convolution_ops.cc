// XLA's ConvGeneralDilated: the window is built from the per-dimension
// lists (checked against the spatial dimension count here, the rest by
// ShapeInference::InferConvolveShape).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/shape_inference.h"
#include "ir/status_macros.h"

namespace mxla {

using builder_internal::PickBuilder;
using builder_internal::RecordOp;

namespace {

// The window over `spatial` dimensions of the kernel `rhs`, or
// InvalidArgument naming the list whose length is wrong.
absl::StatusOr<Window> MakeWindow(
    const Shape& rhs, const ConvolutionDimensionNumbers& dnums,
    Dims window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, Dims lhs_dilation,
    Dims rhs_dilation) {
  const size_t spatial = dnums.kernel_spatial.size();
  auto check = [&](size_t size, absl::string_view what,
                   bool may_be_empty) -> absl::Status {
    if (size == spatial || (may_be_empty && size == 0)) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "convolution: ", what, " has ", size, " entries but dim_labels=",
        ConvolutionDimLabelsToString(dnums), " has ", spatial,
        " spatial dimensions"));
  };
  RETURN_IF_ERROR(check(window_strides.size(), "window_strides", false));
  RETURN_IF_ERROR(check(padding.size(), "padding", false));
  RETURN_IF_ERROR(check(lhs_dilation.size(), "lhs_dilation", true));
  RETURN_IF_ERROR(check(rhs_dilation.size(), "rhs_dilation", true));
  Window window(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t d = dnums.kernel_spatial[i];
    window[i].size = d >= 0 && d < rhs.rank() ? rhs.dimensions(d) : 0;
    window[i].stride = window_strides[i];
    window[i].padding_low = padding[i].first;
    window[i].padding_high = padding[i].second;
    if (!lhs_dilation.empty()) window[i].base_dilation = lhs_dilation[i];
    if (!rhs_dilation.empty()) window[i].window_dilation = rhs_dilation[i];
  }
  return window;
}

}  // namespace

XlaOp ConvGeneralDilated(
    XlaOp lhs, XlaOp rhs, Dims window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, Dims lhs_dilation,
    Dims rhs_dilation, const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count, int64_t batch_group_count,
    SourceLocation location) {
  XlaBuilder* builder = PickBuilder({lhs, rhs});
  return RecordOp(
      builder, "ConvGeneralDilated", {lhs, rhs},
      absl::StrCat("dim_labels=",
                   ConvolutionDimLabelsToString(dimension_numbers),
                   ", feature_group_count=", feature_group_count,
                   ", batch_group_count=", batch_group_count),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * a, builder->LookUp(lhs));
        ASSIGN_OR_RETURN(HloInstruction * b, builder->LookUp(rhs));
        ASSIGN_OR_RETURN(
            Window window,
            MakeWindow(b->shape(), dimension_numbers, window_strides, padding,
                       lhs_dilation, rhs_dilation));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferConvolveShape(
                             a->shape(), b->shape(), feature_group_count,
                             batch_group_count, window, dimension_numbers));
        auto conv = HloInstruction::CreateGeneric(HloOpcode::kConvolution,
                                                  shape, {a, b});
        if (!window.empty()) conv->set_window(window);
        conv->set_convolution_dimension_numbers(dimension_numbers);
        if (feature_group_count != 1) {
          conv->mutable_attributes().Set(AttrId::kFeatureGroupCount,
                                         feature_group_count);
        }
        if (batch_group_count != 1) {
          conv->mutable_attributes().Set(AttrId::kBatchGroupCount,
                                         batch_group_count);
        }
        return builder->AddInstruction(std::move(conv), "ConvGeneralDilated",
                                       location);
      });
}

}  // namespace mxla
