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

namespace {

// What each tap's product reads: the padded input, where that is the
// input and not padding (null when nothing is padded), the window over
// all its dimensions, and the sum's shape.
struct TapOperands {
  HloInstruction* padded = nullptr;
  HloInstruction* on_input = nullptr;
  Window full;
  std::vector<int64_t> out_dims;
  Shape sum_shape;
};

// Where a tap lands on an input element: the same slices of a padded
// all-true array.
absl::StatusOr<HloInstruction*> TapsOnInput(HloComputation& computation,
                                            const Shape& input,
                                            const Window& full) {
  HloInstruction* yes = computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true)));
  HloInstruction* all =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          ShapeUtil::ChangeElementType(input, PRED), yes, {}));
  return expansion::PadForWindow(computation, all, full,
                                 expansion::Zero(computation, PRED));
}

// Weights (taps..., features), reversed where the window says so.
HloInstruction* DepthwiseWeights(HloComputation& computation,
                                 HloInstruction* conv,
                                 const ConvolutionDimensionNumbers& dnums,
                                 const Window& window, int64_t features) {
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
  for (int64_t i = 0; i < static_cast<int64_t>(window.size()); ++i) {
    if (window[i].reversal) reversed.push_back(i);
  }
  if (reversed.empty()) return weights;
  auto reverse = HloInstruction::CreateGeneric(HloOpcode::kReverse,
                                               weights->shape(), {weights});
  reverse->set_dimensions(reversed);
  return computation.AddInstruction(std::move(reverse));
}

// The weights of the tap at `tap` (one index per spatial dimension):
// [features].
HloInstruction* TapWeights(HloComputation& computation, HloInstruction* weights,
                           const std::vector<int64_t>& tap, int64_t features) {
  const int64_t n = tap.size();
  std::vector<int64_t> starts = Concat(tap, std::vector<int64_t>{0});
  std::vector<int64_t> limits = starts;
  for (int64_t& limit : limits) ++limit;
  limits.back() = features;
  auto weight_slice = HloInstruction::CreateGeneric(
      HloOpcode::kSlice,
      ShapeUtil::MakeShape(
          weights->shape().element_type(),
          Concat(std::vector<int64_t>(n, 1), std::vector<int64_t>{features})),
      {weights});
  weight_slice->set_slice(starts, limits, std::vector<int64_t>(n + 1, 1));
  return Reshaped(computation,
                  computation.AddInstruction(std::move(weight_slice)),
                  {features});
}

// The sum over the window's taps of the input slice at the tap times the
// tap's weights, a tap in padding masked to +0 (`zero` spread).
HloInstruction* SumOfTaps(HloComputation& computation,
                          const TapOperands& operands, const Window& window,
                          HloInstruction* weights, HloInstruction* zero) {
  const int64_t n = window.size();
  const Shape& sum_shape = operands.sum_shape;
  const int64_t features = sum_shape.dimensions(n + 1);
  HloInstruction* zeros = nullptr;
  HloInstruction* sum = nullptr;
  for (const std::vector<int64_t>& tap : expansion::WindowTaps(window)) {
    HloInstruction* spread =
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            sum_shape, TapWeights(computation, weights, tap, features),
            {n + 1}));
    const std::vector<int64_t> start =
        Concat(std::vector<int64_t>{0}, tap, std::vector<int64_t>{0});
    HloInstruction* product =
        computation.AddInstruction(HloInstruction::CreateBinary(
            sum_shape, HloOpcode::kMultiply,
            expansion::WindowTapSlice(computation, operands.padded,
                                      operands.full, start, operands.out_dims),
            spread));
    if (operands.on_input != nullptr) {
      if (zeros == nullptr) {
        zeros = computation.AddInstruction(
            HloInstruction::CreateBroadcast(sum_shape, zero, {}));
      }
      product = computation.AddInstruction(HloInstruction::CreateSelect(
          sum_shape,
          expansion::WindowTapSlice(computation, operands.on_input,
                                    operands.full, start, operands.out_dims),
          product, zeros));
    }
    sum = sum == nullptr
              ? product
              : computation.AddInstruction(HloInstruction::CreateBinary(
                    sum_shape, HloOpcode::kAdd, sum, product));
  }
  return sum;
}

}  // namespace

absl::Status ExpandDepthwiseConvolution(HloComputation& computation,
                                        HloInstruction* conv) {
  ASSIGN_OR_RETURN(const ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const Window window = conv->window();
  const PrimitiveType type = conv->shape().element_type();
  const Shape& out = conv->shape();
  const int64_t features = out.dimensions(dnums.output_feature);
  // Input (batch, spatial..., features), padded.
  HloInstruction* input = Transposed(
      computation, conv->mutable_operand(0),
      Concat(std::vector<int64_t>{dnums.input_batch}, dnums.input_spatial,
             std::vector<int64_t>{dnums.input_feature}));
  HloInstruction* zero = expansion::Zero(computation, type);
  TapOperands operands;
  operands.full = FullWindow(window);
  ASSIGN_OR_RETURN(
      operands.padded,
      expansion::PadForWindow(computation, input, operands.full, zero));
  if (operands.padded != input) {
    ASSIGN_OR_RETURN(operands.on_input,
                     TapsOnInput(computation, input->shape(), operands.full));
  }
  HloInstruction* weights =
      DepthwiseWeights(computation, conv, dnums, window, features);
  operands.out_dims = {out.dimensions(dnums.output_batch)};
  for (int64_t d : dnums.output_spatial) {
    operands.out_dims.push_back(out.dimensions(d));
  }
  operands.out_dims.push_back(features);
  operands.sum_shape = ShapeUtil::MakeShape(type, operands.out_dims);
  HloInstruction* sum = SumOfTaps(computation, operands, window, weights, zero);
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
