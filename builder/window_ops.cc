// The builder functions of the windowed ops, XLA's ConvGeneralDilated,
// ReduceWindowWithGeneralPadding (one operand or several) and
// SelectAndScatterWithGeneralPadding: the window is built from per-dimension
// lists (their lengths checked here, the rest by shape inference).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

using builder_internal::CheckCalledComputation;
using builder_internal::LookedUp;
using builder_internal::LookUpAll;
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

// Each list has `rank` entries (dilations and padding may be empty: 1
// and 0).
absl::StatusOr<Window> MakeReduceWindow(
    int64_t rank, Dims window_dimensions, Dims window_strides,
    Dims base_dilations, Dims window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding) {
  auto check = [&](size_t size, absl::string_view what,
                   bool may_be_empty) -> absl::Status {
    if (static_cast<int64_t>(size) == rank || (may_be_empty && size == 0)) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-window: ", what, " has ", size,
                     " entries but the operand has rank ", rank));
  };
  RETURN_IF_ERROR(check(window_dimensions.size(), "window_dimensions", false));
  RETURN_IF_ERROR(check(window_strides.size(), "window_strides", false));
  RETURN_IF_ERROR(check(base_dilations.size(), "base_dilations", true));
  RETURN_IF_ERROR(check(window_dilations.size(), "window_dilations", true));
  RETURN_IF_ERROR(check(padding.size(), "padding", true));
  Window window(rank);
  for (int64_t d = 0; d < rank; ++d) {
    window[d].size = window_dimensions[d];
    window[d].stride = window_strides[d];
    if (!base_dilations.empty()) window[d].base_dilation = base_dilations[d];
    if (!window_dilations.empty()) {
      window[d].window_dilation = window_dilations[d];
    }
    if (!padding.empty()) {
      window[d].padding_low = padding[d].first;
      window[d].padding_high = padding[d].second;
    }
  }
  return window;
}

}  // namespace

XlaOp ReduceWindowWithGeneralPadding(
    XlaOp operand, XlaOp init_value, const XlaComputation& computation,
    Dims window_dimensions, Dims window_strides, Dims base_dilations,
    Dims window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    SourceLocation location) {
  return ReduceWindowWithGeneralPadding(
      PickBuilder({operand, init_value}), {operand}, {init_value}, computation,
      window_dimensions, window_strides, base_dilations, window_dilations,
      padding, location);
}

XlaOp ReduceWindowWithGeneralPadding(
    XlaBuilder* builder, absl::Span<const XlaOp> operands,
    absl::Span<const XlaOp> init_values, const XlaComputation& computation,
    Dims window_dimensions, Dims window_strides, Dims base_dilations,
    Dims window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    SourceLocation location) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  return RecordOp(
      builder, "ReduceWindowWithGeneralPadding", all,
      absl::StrCat("to_apply=", computation.name()), location,
      [&]() -> absl::StatusOr<XlaOp> {
        if (operands.size() != init_values.size() || operands.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "reduce-window needs as many init values as operands (at least "
              "one), got ", operands.size(), " operands and ",
              init_values.size(), " init values"));
        }
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, all));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(computation, "reducer"));
        const int64_t rank = shapes[0]->IsArray() ? shapes[0]->rank() : 0;
        ASSIGN_OR_RETURN(
            Window window,
            MakeReduceWindow(rank, window_dimensions, window_strides,
                             base_dilations, window_dilations, padding));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferReduceWindowShape(
                                          shapes, window,
                                          computation.GetProgramShape()));
        auto reduce_window = HloInstruction::CreateGeneric(
            HloOpcode::kReduceWindow, shape, instructions);
        reduce_window->set_window(window);
        reduce_window->set_called_computations(
            {builder->AddCalledComputation(computation)});
        return builder->AddInstruction(std::move(reduce_window),
                                       "ReduceWindowWithGeneralPadding",
                                       location);
      });
}

XlaOp SelectAndScatterWithGeneralPadding(
    XlaOp operand, const XlaComputation& select, Dims window_dimensions,
    Dims window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
    XlaOp init_value, const XlaComputation& scatter,
    SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand, source, init_value});
  return RecordOp(
      builder, "SelectAndScatterWithGeneralPadding",
      {operand, source, init_value},
      absl::StrCat("select=", select.name(), ", scatter=", scatter.name()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up,
                         LookUpAll(builder, {operand, source, init_value}));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(select, "select"));
        RETURN_IF_ERROR(CheckCalledComputation(scatter, "scatter"));
        const int64_t rank = shapes[0]->IsArray() ? shapes[0]->rank() : 0;
        ASSIGN_OR_RETURN(Window window,
                         MakeReduceWindow(rank, window_dimensions,
                                          window_strides, {}, {}, padding));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferSelectAndScatterShape(
                             *shapes[0], select.GetProgramShape(), window,
                             *shapes[1], *shapes[2],
                             scatter.GetProgramShape()));
        auto instruction = HloInstruction::CreateGeneric(
            HloOpcode::kSelectAndScatter, shape, instructions);
        instruction->set_window(window);
        instruction->set_called_computations(
            {builder->AddCalledComputation(select),
             builder->AddCalledComputation(scatter)});
        return builder->AddInstruction(std::move(instruction),
                                       "SelectAndScatterWithGeneralPadding",
                                       location);
      });
}

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
