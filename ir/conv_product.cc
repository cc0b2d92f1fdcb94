#include "ir/conv_product.h"

#include "absl/algorithm/container.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"

namespace mxla {

std::optional<ConvProduct> AsConvProduct(const HloInstruction& convolution) {
  if (convolution.opcode() != HloOpcode::kConvolution ||
      !convolution.shape().IsArray() || convolution.operand_count() != 2 ||
      convolution.feature_group_count() != 1 ||
      convolution.batch_group_count() != 1) {
    return std::nullopt;
  }
  const PrimitiveType type = convolution.shape().element_type();
  if ((type != F32 && type != F64) ||
      convolution.operand(0)->shape().element_type() != type ||
      convolution.operand(1)->shape().element_type() != type) {
    return std::nullopt;
  }
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      convolution.convolution_dimension_numbers();
  if (!dnums.ok()) return std::nullopt;
  const Window window = convolution.window();
  const int64_t n = window.size();
  const Shape& input = convolution.operand(0)->shape();
  const Shape& kernel = convolution.operand(1)->shape();
  const Shape& out = convolution.shape();
  if (static_cast<int64_t>(dnums->input_spatial.size()) != n ||
      static_cast<int64_t>(dnums->kernel_spatial.size()) != n ||
      static_cast<int64_t>(dnums->output_spatial.size()) != n ||
      out.rank() != n + 2 || input.rank() != n + 2 || kernel.rank() != n + 2) {
    return std::nullopt;
  }
  // The result must be rows x columns row-major: (batch, spatial...,
  // feature).
  if (dnums->output_batch != 0 || dnums->output_feature != n + 1) {
    return std::nullopt;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (dnums->output_spatial[i] != i + 1) return std::nullopt;
  }
  ConvProduct product;
  product.dnums = *dnums;
  product.window = window;
  product.input_dims.assign(input.dimensions().begin(),
                            input.dimensions().end());
  product.batch = input.dimensions(dnums->input_batch);
  product.features = input.dimensions(dnums->input_feature);
  if (product.features < 1 || product.features > kMaxConvProductFeatures) {
    return std::nullopt;
  }
  FlatDot& flat = product.flat;
  flat.m = product.batch;
  for (int64_t i = 0; i < n; ++i) {
    product.positions.push_back(out.dimensions(1 + i));
    flat.m *= out.dimensions(1 + i);
    product.taps *= window[i].size;
  }
  flat.n = kernel.dimensions(dnums->kernel_output_feature);
  flat.k = product.taps * product.features;
  flat.dnums.rhs_contracting = dnums->kernel_spatial;
  flat.dnums.rhs_contracting.push_back(dnums->kernel_input_feature);
  flat.rhs_free = {dnums->kernel_output_feature};
  return product;
}

bool IsConvolutionProduct(const HloInstruction& instruction) {
  return AsConvProduct(instruction).has_value();
}

bool IsConvolutionInputPad(const HloInstruction& pad,
                           const HloInstruction& convolution) {
  if (pad.opcode() != HloOpcode::kPad || convolution.operand_count() != 2 ||
      convolution.operand(0) != &pad) {
    return false;
  }
  const std::optional<ConvProduct> conv = AsConvProduct(convolution);
  if (!conv) return false;
  // +0 exactly, every bit clear: the kernel reads its row of zeros.
  const HloInstruction& value = *pad.operand(1);
  if (value.opcode() != HloOpcode::kConstant || !value.has_literal() ||
      !value.shape().IsArray() || ShapeUtil::ElementsIn(value.shape()) != 1) {
    return false;
  }
  const auto* bytes =
      static_cast<const unsigned char*>(value.literal().untyped_data());
  const int64_t width = primitive_util::ByteWidth(value.shape().element_type());
  for (int64_t i = 0; i < width; ++i) {
    if (bytes[i] != 0) return false;
  }
  const PaddingConfig config = pad.padding_config();
  for (int64_t d = 0; d < static_cast<int64_t>(config.size()); ++d) {
    const PaddingDimension& p = config[d];
    if (p.interior != 0 || p.low < 0 || p.high < 0) return false;
    const bool spatial =
        absl::c_linear_search(conv->dnums.input_spatial, d);
    if (!spatial && (p.low != 0 || p.high != 0)) return false;
  }
  return true;
}

bool IsDepthwiseProduct(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kConvolution ||
      !instruction.shape().IsArray() || instruction.operand_count() != 2 ||
      instruction.batch_group_count() != 1) {
    return false;
  }
  const PrimitiveType type = instruction.shape().element_type();
  const Shape& input = instruction.operand(0)->shape();
  const Shape& kernel = instruction.operand(1)->shape();
  const Shape& out = instruction.shape();
  if ((type != F32 && type != F64) || input.element_type() != type ||
      kernel.element_type() != type) {
    return false;
  }
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      instruction.convolution_dimension_numbers();
  if (!dnums.ok()) return false;
  const Window window = instruction.window();
  const int64_t n = window.size();
  if (input.rank() != n + 2 || kernel.rank() != n + 2 || out.rank() != n + 2 ||
      static_cast<int64_t>(dnums->input_spatial.size()) != n ||
      static_cast<int64_t>(dnums->kernel_spatial.size()) != n ||
      static_cast<int64_t>(dnums->output_spatial.size()) != n) {
    return false;
  }
  if (dnums->input_batch != 0 || dnums->input_feature != n + 1 ||
      dnums->output_batch != 0 || dnums->output_feature != n + 1 ||
      dnums->kernel_input_feature != n ||
      dnums->kernel_output_feature != n + 1) {
    return false;
  }
  int64_t taps = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (dnums->input_spatial[i] != i + 1 || dnums->output_spatial[i] != i + 1 ||
        dnums->kernel_spatial[i] != i || window[i].base_dilation != 1) {
      return false;
    }
    taps *= window[i].size;
  }
  const int64_t features = input.dimensions(n + 1);
  return features > 1 && instruction.feature_group_count() == features &&
         kernel.dimensions(n) == 1 && kernel.dimensions(n + 1) == features &&
         taps >= 1 && taps <= kMaxDepthwiseProductTaps &&
         ShapeUtil::ElementsIn(out) > 0 && ShapeUtil::ElementsIn(input) > 0;
}

FlatDot FlattenProduct(const HloInstruction& product) {
  if (IsDepthwiseProduct(product)) {
    const Shape& out = product.shape();
    const int64_t n = out.rank() - 2;
    FlatDot flat;
    flat.m = 1;
    for (int64_t d = 0; d <= n; ++d) flat.m *= out.dimensions(d);
    flat.n = out.dimensions(n + 1);
    flat.k = 1;
    for (const WindowDimension& d : product.window()) flat.k *= d.size;
    flat.rhs_free = {n + 1};
    return flat;
  }
  if (product.opcode() == HloOpcode::kConvolution) {
    std::optional<ConvProduct> conv = AsConvProduct(product);
    return conv ? conv->flat : FlatDot{};
  }
  return FlattenDot(product.operand(0)->shape(), product.operand(1)->shape(),
                    product.dot_dimension_numbers());
}

}  // namespace mxla
