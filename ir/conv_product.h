// A convolution as an implicit matrix product, the form the JIT's dot
// kernel computes it in (codegen/gemm_emitter.h):
//
//   rows    m = batch x output positions (row-major in that order),
//   columns n = output features,
//   steps   k = window taps x input features (row-major in that order),
//
// so that result[row, column] = sum over k of patch[row, k] * kernel[k,
// column], where patch[row, (tap, feature)] is the input element under
// that tap of that row's window (0 in padding and base-dilation holes) and
// kernel[(tap, feature), column] the kernel's (reversed where the window
// says so). No patch buffer exists: the kernel reads the input through the
// window's geometry.
//
// Only convolutions in the product form qualify (IsConvolutionProduct):
// one feature group and one batch group, operands and result all f32 or
// all f64, 1 to kMaxConvProductFeatures input features, and the result
// laid out (batch, spatial..., feature), so that it is exactly rows x
// columns row-major. passes/convolution_expander.h
// brings the JIT's convolutions into it.
#ifndef MXLA_IR_CONV_PRODUCT_H_
#define MXLA_IR_CONV_PRODUCT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/convolution_dimension_numbers.h"
#include "ir/flat_dot.h"
#include "ir/hlo_instruction.h"
#include "ir/window.h"

namespace mxla {

// The most input features of a convolution product: a k slice holds
// whole taps, and one tap's features must fit the kernel's packed blocks
// (kMaxDotPackedBytes) with the narrowest n block. ResNet-50 has 2,048.
inline constexpr int64_t kMaxConvProductFeatures = 2048;

struct ConvProduct {
  ConvolutionDimensionNumbers dnums;
  Window window;
  std::vector<int64_t> input_dims;  // operand 0's dimensions
  std::vector<int64_t> positions;   // output positions per spatial dimension
  int64_t batch = 0;                // input batch (= output batch)
  int64_t features = 0;             // input features per step (C)
  int64_t taps = 1;                 // window taps (product of sizes)
  // m, n and k as above; batch is 1. The kernel maps like a dot's rhs:
  // contracting dimensions (spatial..., input feature), free dimension the
  // output feature. The lhs fields are unused.
  FlatDot flat;
};

// Whether `instruction` is a convolution in the product form.
bool IsConvolutionProduct(const HloInstruction& instruction);

// The product form of `convolution`; nullopt when it does not qualify.
std::optional<ConvProduct> AsConvProduct(const HloInstruction& convolution);

// Whether `pad` is an input pad the kernel reads through: operand 0 of the
// convolution product `convolution`, padding only its spatial dimensions,
// at the edges (low and high >= 0, no interior), with the constant +0. Its
// taps read zeros and are multiplied, as over the padded input would be;
// taps in the window's own padding are skipped instead.
bool IsConvolutionInputPad(const HloInstruction& pad,
                           const HloInstruction& convolution);

// The most window taps of a depthwise product: the kernel unrolls them.
inline constexpr int64_t kMaxDepthwiseProductTaps = 64;

// Whether `instruction` is a depthwise convolution in the form the JIT's
// depthwise kernel computes (codegen/depthwise_emitter.h): one feature
// group per input feature (more than one), one output feature per group,
// one batch group; input and result laid out (batch, spatial..., feature)
// and the kernel (spatial..., 1, feature), dimension numbers in that order;
// operands and result all f32 or all f64; no base dilation; 1 to
// kMaxDepthwiseProductTaps taps; nothing empty.
// passes/convolution_expander.h brings the JIT's depthwise convolutions
// into it.
bool IsDepthwiseProduct(const HloInstruction& instruction);

// A dot, a convolution product or a depthwise product as the batch x m x n
// x k product the dot kernel computes (FlattenDot for a dot). A depthwise
// product's m is batch x output positions, n its features and k its taps:
// each column sums over k with its own kernel column (2 m n k flops).
FlatDot FlattenProduct(const HloInstruction& product);

}  // namespace mxla

#endif  // MXLA_IR_CONV_PRODUCT_H_
