#include "passes/depthwise_convolution.h"

#include <vector>

#include "ir/conv_product.h"
#include "ir/fusion_plan.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "passes/window_patches.h"

namespace mxla {
namespace {

using expansion::Concat;
using expansion::Iota;
using expansion::Reshaped;
using expansion::Transposed;

// The convolution's window over (batch, spatial..., features): the batch
// and the features take one tap each.
Window FullWindow(const Window& spatial) {
  Window full = {WindowDimension{}};
  full.insert(full.end(), spatial.begin(), spatial.end());
  full.push_back(WindowDimension{});
  for (WindowDimension& d : full) d.reversal = false;  // the kernel's
  return full;
}

}  // namespace

bool IsDepthwiseConvolution(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || !conv.shape().IsArray() ||
      conv.batch_group_count() != 1) {
    return false;
  }
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      conv.convolution_dimension_numbers();
  if (!dnums.ok()) return false;
  const Shape& input = conv.operand(0)->shape();
  const Shape& kernel = conv.operand(1)->shape();
  const int64_t features = input.dimensions(dnums->input_feature);
  const PrimitiveType type = conv.shape().element_type();
  return features > 1 && conv.feature_group_count() == features &&
         kernel.dimensions(dnums->kernel_input_feature) == 1 &&
         kernel.dimensions(dnums->kernel_output_feature) == features &&
         (type == F32 || type == F64) && input.element_type() == type &&
         kernel.element_type() == type &&
         ShapeUtil::ElementsIn(conv.shape()) > 0;
}

absl::Status ExpandDepthwiseConvolution(HloComputation& computation,
                                        HloInstruction* conv) {
  ASSIGN_OR_RETURN(const ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const Window window = conv->window();
  const int64_t n = window.size();
  const PrimitiveType type = conv->shape().element_type();
  const Shape& out = conv->shape();
  const int64_t features = out.dimensions(dnums.output_feature);
  // Input (batch, spatial..., features), padded.
  HloInstruction* input = Transposed(
      computation, conv->mutable_operand(0),
      Concat(std::vector<int64_t>{dnums.input_batch}, dnums.input_spatial,
             std::vector<int64_t>{dnums.input_feature}));
  HloInstruction* zero = expansion::Zero(computation, type);
  const Window full = FullWindow(window);
  ASSIGN_OR_RETURN(HloInstruction * padded,
                   expansion::PadForWindow(computation, input, full, zero));
  // Where a tap lands on an input element: the same slices of a padded
  // all-true array.
  HloInstruction* on_input = nullptr;
  if (padded != input) {
    HloInstruction* yes = computation.AddInstruction(
        HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true)));
    HloInstruction* all = computation.AddInstruction(
        HloInstruction::CreateBroadcast(
            ShapeUtil::ChangeElementType(input->shape(), PRED), yes, {}));
    ASSIGN_OR_RETURN(on_input,
                     expansion::PadForWindow(
                         computation, all, full,
                         expansion::Zero(computation, PRED)));
  }
  // Weights (taps..., features), reversed where the window says so.
  std::vector<int64_t> taps;
  for (const WindowDimension& d : window) taps.push_back(d.size);
  HloInstruction* weights = Reshaped(
      computation,
      Transposed(computation, conv->mutable_operand(1),
                 Concat(dnums.kernel_spatial,
                        std::vector<int64_t>{dnums.kernel_input_feature,
                                             dnums.kernel_output_feature})),
      Concat(taps, std::vector<int64_t>{features}));
  std::vector<int64_t> reversed;
  for (int64_t i = 0; i < n; ++i) {
    if (window[i].reversal) reversed.push_back(i);
  }
  if (!reversed.empty()) {
    auto reverse = HloInstruction::CreateGeneric(HloOpcode::kReverse,
                                                 weights->shape(), {weights});
    reverse->set_dimensions(reversed);
    weights = computation.AddInstruction(std::move(reverse));
  }
  std::vector<int64_t> out_dims = {out.dimensions(dnums.output_batch)};
  for (int64_t d : dnums.output_spatial) out_dims.push_back(out.dimensions(d));
  out_dims.push_back(features);
  const Shape sum_shape = ShapeUtil::MakeShape(type, out_dims);
  HloInstruction* zeros = nullptr;
  HloInstruction* sum = nullptr;
  for (const std::vector<int64_t>& tap : expansion::WindowTaps(window)) {
    std::vector<int64_t> starts = Concat(tap, std::vector<int64_t>{0});
    std::vector<int64_t> limits = starts;
    for (int64_t& limit : limits) ++limit;
    limits.back() = features;
    auto weight_slice = HloInstruction::CreateGeneric(
        HloOpcode::kSlice,
        ShapeUtil::MakeShape(type, Concat(std::vector<int64_t>(n, 1),
                                          std::vector<int64_t>{features})),
        {weights});
    weight_slice->set_slice(starts, limits, std::vector<int64_t>(n + 1, 1));
    HloInstruction* tap_weights =
        Reshaped(computation, computation.AddInstruction(std::move(weight_slice)),
                 {features});
    HloInstruction* spread =
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            sum_shape, tap_weights, {n + 1}));
    HloInstruction* product =
        computation.AddInstruction(HloInstruction::CreateBinary(
            sum_shape, HloOpcode::kMultiply,
            expansion::WindowTapSlice(computation, padded, full,
                                      Concat(std::vector<int64_t>{0}, tap,
                                             std::vector<int64_t>{0}),
                                      out_dims),
            spread));
    if (on_input != nullptr) {
      if (zeros == nullptr) {
        zeros = computation.AddInstruction(
            HloInstruction::CreateBroadcast(sum_shape, zero, {}));
      }
      product = computation.AddInstruction(HloInstruction::CreateSelect(
          sum_shape,
          expansion::WindowTapSlice(computation, on_input, full,
                                    Concat(std::vector<int64_t>{0}, tap,
                                           std::vector<int64_t>{0}),
                                    out_dims),
          product, zeros));
    }
    sum = sum == nullptr
              ? product
              : computation.AddInstruction(HloInstruction::CreateBinary(
                    sum_shape, HloOpcode::kAdd, sum, product));
  }
  // Back to the user's order: output dimension d is sum dimension i where
  // the sum's dimension i is d.
  const std::vector<int64_t> sum_order =
      Concat(std::vector<int64_t>{dnums.output_batch}, dnums.output_spatial,
             std::vector<int64_t>{dnums.output_feature});
  std::vector<int64_t> back(out.rank());
  for (int64_t i = 0; i < out.rank(); ++i) back[sum_order[i]] = i;
  HloInstruction* result = Transposed(computation, sum, back);
  result->set_metadata(conv->metadata());
  computation.ReplaceInstruction(conv, result);
  return computation.RemoveInstruction(conv);
}

bool FitsDepthwiseKernel(const HloInstruction& conv) {
  int64_t taps = 1;
  for (const WindowDimension& d : conv.window()) {
    if (d.base_dilation != 1) return false;
    taps *= d.size;
  }
  // Its weights live on the kernel's stack, within a dot plan's bound.
  const int64_t features = conv.shape().dimensions(
      conv.convolution_dimension_numbers()->output_feature);
  const int64_t bytes =
      primitive_util::ByteWidth(conv.shape().element_type());
  return taps >= 1 && taps <= kMaxDepthwiseProductTaps &&
         taps * (features + 144) * bytes <= kMaxDotPackedBytes;
}

absl::StatusOr<bool> MakeDepthwiseProduct(HloComputation& computation,
                                          HloInstruction* conv) {
  ASSIGN_OR_RETURN(const ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const int64_t n = dnums.input_spatial.size();
  const int64_t rank = n + 2;
  ConvolutionDimensionNumbers product;
  product.input_batch = 0;
  product.input_spatial = Iota(1, n);
  product.input_feature = rank - 1;
  product.kernel_spatial = Iota(0, n);
  product.kernel_input_feature = n;
  product.kernel_output_feature = n + 1;
  product.output_batch = 0;
  product.output_spatial = Iota(1, n);
  product.output_feature = rank - 1;
  if (product == dnums) return false;
  HloInstruction* input = Transposed(
      computation, conv->mutable_operand(0),
      Concat(std::vector<int64_t>{dnums.input_batch}, dnums.input_spatial,
             std::vector<int64_t>{dnums.input_feature}));
  HloInstruction* kernel = Transposed(
      computation, conv->mutable_operand(1),
      Concat(dnums.kernel_spatial,
             std::vector<int64_t>{dnums.kernel_input_feature,
                                  dnums.kernel_output_feature}));
  const Shape& out = conv->shape();
  const std::vector<int64_t> to_product =
      Concat(std::vector<int64_t>{dnums.output_batch}, dnums.output_spatial,
             std::vector<int64_t>{dnums.output_feature});
  std::vector<int64_t> product_dims;
  for (int64_t d : to_product) product_dims.push_back(out.dimensions(d));
  std::unique_ptr<HloInstruction> clone = conv->CloneWithNewOperands(
      ShapeUtil::MakeShape(out.element_type(), product_dims), {input, kernel});
  clone->set_convolution_dimension_numbers(product);
  HloInstruction* kept = computation.AddInstruction(std::move(clone));
  std::vector<int64_t> back(rank);
  for (int64_t i = 0; i < rank; ++i) back[to_product[i]] = i;
  HloInstruction* result = Transposed(computation, kept, back);
  result->set_metadata(conv->metadata());
  computation.ReplaceInstruction(conv, result);
  RETURN_IF_ERROR(computation.RemoveInstruction(conv));
  return true;
}

}  // namespace mxla
