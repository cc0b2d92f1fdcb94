#include "passes/convolution_expander.h"

#include <vector>

#include "ir/conv_product.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/depthwise_convolution.h"
#include "passes/expansion_util.h"
#include "passes/grouped_convolution.h"
#include "passes/window_patches.h"

namespace mxla {
namespace {

using expansion::Concat;
using expansion::Iota;
using expansion::Reshaped;
using expansion::Transposed;

// The convolution's sizes, named as in the expansion below: B input batch
// = BG * Bg, F input features = G * Fg, O output features = GG * Og where
// GG = G * BG (one of them is 1).
struct Sizes {
  int64_t bg, batch_per_group, g, fg, gg, og;
};

class Expander {
 public:
  explicit Expander(HloModule& module) : adders_(module, "convolution_add") {}

  absl::Status Expand(HloComputation& computation, HloInstruction* conv);

 private:
  expansion::AddComputations adders_;
};

absl::Status Expander::Expand(HloComputation& computation,
                              HloInstruction* conv) {
  ASSIGN_OR_RETURN(const ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const Window window = conv->window();
  const Shape& out = conv->shape();
  const int64_t n = window.size();
  HloInstruction* lhs = conv->mutable_operand(0);
  HloInstruction* rhs = conv->mutable_operand(1);
  HloInstruction* result = nullptr;
  if (ShapeUtil::ElementsIn(out) == 0) {
    result = computation.AddInstruction(HloInstruction::CreateBroadcast(
        out, expansion::Zero(computation, out.element_type()), {}));
    computation.ReplaceInstruction(conv, result);
    return computation.RemoveInstruction(conv);
  }
  // Mixed types and f16/bf16 compute in the accumulation type, as dot.
  const PrimitiveType type = DotAccumulationType(
      lhs->shape().element_type(), rhs->shape().element_type(),
      out.element_type());
  auto widen = [&](HloInstruction* x) {
    if (x->shape().element_type() == type) return x;
    return computation.AddInstruction(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(x->shape(), type), x));
  };
  lhs = widen(lhs);
  rhs = widen(rhs);
  const Shape& l = lhs->shape();
  const Shape& r = rhs->shape();
  Sizes s;
  s.bg = conv->batch_group_count();
  s.g = conv->feature_group_count();
  s.batch_per_group = l.dimensions(dnums.input_batch) / s.bg;
  s.fg = r.dimensions(dnums.kernel_input_feature);
  s.gg = s.g * s.bg;
  s.og = r.dimensions(dnums.kernel_output_feature) / s.gg;
  std::vector<int64_t> spatial_sizes, positions, taps;
  for (int64_t i = 0; i < n; ++i) {
    spatial_sizes.push_back(l.dimensions(dnums.input_spatial[i]));
    positions.push_back(out.dimensions(dnums.output_spatial[i]));
    taps.push_back(window[i].size);
  }
  // Input: [BG, Bg, G, Fg, spatial...] -> patches [BG, Bg, G, Fg, o..., k...]
  // -> [Bg, GG, o..., k..., Fg].
  const std::vector<int64_t> grouped =
      Concat(std::vector<int64_t>{s.bg, s.batch_per_group, s.g, s.fg},
             spatial_sizes);
  const std::vector<int64_t> to_product_order =
      Concat(std::vector<int64_t>{1, 0, 2}, Iota(4, 2 * n),
             std::vector<int64_t>{3});
  const std::vector<int64_t> lhs_product_dims =
      Concat(std::vector<int64_t>{s.batch_per_group, s.gg}, positions, taps,
             std::vector<int64_t>{s.fg});
  auto arrange = [&](HloInstruction* patches) {
    return Reshaped(computation,
                    Transposed(computation, patches, to_product_order),
                    lhs_product_dims);
  };
  HloInstruction* input = Reshaped(
      computation,
      Transposed(computation, lhs,
                 Concat(std::vector<int64_t>{dnums.input_batch,
                                             dnums.input_feature},
                        dnums.input_spatial)),
      grouped);
  ASSIGN_OR_RETURN(HloInstruction * patches,
                   expansion::WindowPatches(computation, input, 4, window,
                                            expansion::Zero(computation, type)));
  patches = arrange(patches);
  // Kernel: [O, Fg, k...] (reversed where asked) -> [GG, Og, Fg, k...] ->
  // [GG, Og, k..., Fg].
  HloInstruction* kernel = Transposed(
      computation, rhs,
      Concat(std::vector<int64_t>{dnums.kernel_output_feature,
                                  dnums.kernel_input_feature},
             dnums.kernel_spatial));
  std::vector<int64_t> reversed;
  for (int64_t i = 0; i < n; ++i) {
    if (window[i].reversal) reversed.push_back(2 + i);
  }
  if (!reversed.empty()) {
    auto reverse = HloInstruction::CreateGeneric(HloOpcode::kReverse,
                                                 kernel->shape(), {kernel});
    reverse->set_dimensions(reversed);
    kernel = computation.AddInstruction(std::move(reverse));
  }
  kernel = Transposed(
      computation,
      Reshaped(computation, kernel,
               Concat(std::vector<int64_t>{s.gg, s.og, s.fg}, taps)),
      Concat(std::vector<int64_t>{0, 1}, Iota(3, n), std::vector<int64_t>{2}));
  // Products [Bg, GG, Og, o..., k..., Fg], masked where a tap is outside
  // the base, summed over k... and Fg in row-major order.
  const Shape product = ShapeUtil::MakeShape(
      type, Concat(std::vector<int64_t>{s.batch_per_group, s.gg, s.og},
                   positions, taps, std::vector<int64_t>{s.fg}));
  const std::vector<int64_t> lhs_in_product =
      Concat(std::vector<int64_t>{0, 1}, Iota(3, 2 * n + 1));
  HloInstruction* lhs_b = computation.AddInstruction(
      HloInstruction::CreateBroadcast(product, patches, lhs_in_product));
  HloInstruction* rhs_b =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          product, kernel,
          Concat(std::vector<int64_t>{1, 2}, Iota(3 + n, n + 1))));
  result = computation.AddInstruction(HloInstruction::CreateBinary(
      product, HloOpcode::kMultiply, lhs_b, rhs_b));
  if (expansion::WindowHasHoles(window)) {
    ASSIGN_OR_RETURN(HloInstruction * mask,
                     expansion::WindowTapMask(computation, grouped, 4, window));
    HloInstruction* mask_b =
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            ShapeUtil::ChangeElementType(product, PRED), arrange(mask),
            lhs_in_product));
    HloInstruction* zeros =
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            product, expansion::Zero(computation, type), {}));
    result = computation.AddInstruction(
        HloInstruction::CreateSelect(product, mask_b, result, zeros));
  }
  const std::vector<int64_t> grouped_result =
      Concat(std::vector<int64_t>{s.batch_per_group, s.gg, s.og}, positions);
  result = computation.AddInstruction(HloInstruction::CreateReduce(
      ShapeUtil::MakeShape(type, grouped_result),
      {result, expansion::Zero(computation, type)}, Iota(3 + n, n + 1),
      adders_.Get(type)));
  // [Bg, GG, Og, o...] -> [Bg, O, o...] -> the output's dimension order.
  result = Reshaped(computation, result,
                    Concat(std::vector<int64_t>{s.batch_per_group,
                                                s.gg * s.og},
                           positions));
  std::vector<int64_t> permutation(out.rank());
  permutation[dnums.output_batch] = 0;
  permutation[dnums.output_feature] = 1;
  for (int64_t i = 0; i < n; ++i) permutation[dnums.output_spatial[i]] = 2 + i;
  result = Transposed(computation, result, permutation);
  if (type != out.element_type()) {
    result = computation.AddInstruction(
        HloInstruction::CreateConvert(out, result));
  }
  result->set_metadata(conv->metadata());
  computation.ReplaceInstruction(conv, result);
  return computation.RemoveInstruction(conv);
}

// Whether the dot kernel can compute `conv` (each of its groups, once
// split) once it is in the product form: all f32 or all f64, at most
// kMaxConvProductFeatures input features per group, and work to do (an
// empty product is left to the expansion's zeros).
bool IsMatrixProductCandidate(const HloInstruction& conv) {
  if ((conv.feature_group_count() != 1 && conv.batch_group_count() != 1) ||
      !conv.shape().IsArray()) {
    return false;
  }
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      conv.convolution_dimension_numbers();
  if (!dnums.ok() ||
      conv.operand(0)->shape().dimensions(dnums->input_feature) /
              conv.feature_group_count() >
          kMaxConvProductFeatures) {
    return false;
  }
  const PrimitiveType type = conv.shape().element_type();
  if ((type != F32 && type != F64) ||
      conv.operand(0)->shape().element_type() != type ||
      conv.operand(1)->shape().element_type() != type) {
    return false;
  }
  return ShapeUtil::ElementsIn(conv.shape()) > 0 &&
         ShapeUtil::ElementsIn(conv.operand(0)->shape()) > 0 &&
         ShapeUtil::ElementsIn(conv.operand(1)->shape()) > 0;
}

// Brings a candidate into the product form: a feature-minor input and a
// (batch, spatial..., feature) result, by transposes around it. Returns
// whether it changed anything.
absl::StatusOr<bool> MakeProduct(HloComputation& computation,
                                 HloInstruction* conv) {
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const int64_t n = dnums.input_spatial.size();
  const int64_t rank = n + 2;
  HloInstruction* input = conv->mutable_operand(0);
  ConvolutionDimensionNumbers product = dnums;
  if (dnums.input_feature != rank - 1) {
    input = Transposed(computation, input,
                       Concat(std::vector<int64_t>{dnums.input_batch},
                              dnums.input_spatial,
                              std::vector<int64_t>{dnums.input_feature}));
    product.input_batch = 0;
    product.input_spatial = Iota(1, n);
    product.input_feature = rank - 1;
  }
  product.output_batch = 0;
  product.output_spatial = Iota(1, n);
  product.output_feature = rank - 1;
  if (product == dnums) return false;
  // The product's result: the output's dimensions in the new order.
  const Shape& out = conv->shape();
  const std::vector<int64_t> to_product = Concat(
      std::vector<int64_t>{dnums.output_batch}, dnums.output_spatial,
      std::vector<int64_t>{dnums.output_feature});
  std::vector<int64_t> product_dims;
  for (int64_t d : to_product) product_dims.push_back(out.dimensions(d));
  std::unique_ptr<HloInstruction> clone = conv->CloneWithNewOperands(
      ShapeUtil::MakeShape(out.element_type(), product_dims),
      {input, conv->mutable_operand(1)});
  clone->set_convolution_dimension_numbers(product);
  HloInstruction* kept = computation.AddInstruction(std::move(clone));
  // Back to the user's order: output dimension d is product dimension
  // position of d in to_product.
  std::vector<int64_t> back(rank);
  for (int64_t i = 0; i < rank; ++i) back[to_product[i]] = i;
  HloInstruction* result = Transposed(computation, kept, back);
  computation.ReplaceInstruction(conv, result);
  RETURN_IF_ERROR(computation.RemoveInstruction(conv));
  return true;
}

}  // namespace

absl::StatusOr<bool> ConvolutionExpanderPass::Run(HloModule& module) {
  Expander expander(module);
  bool changed = false;
  // Loop bodies and branches are compiled as programs too: their products
  // reach the kernel like the entry's (a decode step's matrix-vector
  // products are in a while body).
  const absl::flat_hash_set<const HloComputation*> programs =
      expansion::ProgramComputations(module);
  // A convolution of one group: on the dot kernel when it qualifies, else
  // expanded.
  auto one_group = [&](HloComputation& computation,
                       HloInstruction* conv) -> absl::Status {
    if (conv->feature_group_count() == 1 && conv->batch_group_count() == 1 &&
        IsMatrixProductCandidate(*conv)) {
      ASSIGN_OR_RETURN(bool made, MakeProduct(computation, conv));
      changed |= made;
      return absl::OkStatus();
    }
    changed = true;
    return expander.Expand(computation, conv);
  };
  for (HloComputation* computation : module.computations()) {
    const bool keep =
        keep_matrix_products_ && programs.contains(computation);
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kConvolution) continue;
      if (!keep) {
        RETURN_IF_ERROR(expander.Expand(*computation, instruction));
        changed = true;
        continue;
      }
      if (expansion::IsWidenableToF32(*instruction)) {
        // 16-bit operands are converted once, into the f32 product's input
        // (or the depthwise sum's, or each group's).
        ASSIGN_OR_RETURN(instruction,
                         expansion::WidenToF32(*computation, instruction));
        changed = true;
      }
      if (IsDepthwiseConvolution(*instruction)) {
        // On the depthwise kernel where it fits, else the sum of taps.
        if (FitsDepthwiseKernel(*instruction)) {
          ASSIGN_OR_RETURN(bool made,
                           MakeDepthwiseProduct(*computation, instruction));
          changed |= made;
          continue;
        }
        RETURN_IF_ERROR(ExpandDepthwiseConvolution(*computation, instruction));
        changed = true;
        continue;
      }
      if (IsWorthSplitting(*instruction) &&
          IsMatrixProductCandidate(*instruction)) {
        ASSIGN_OR_RETURN(std::vector<HloInstruction*> groups,
                         SplitGroupedConvolution(*computation, instruction));
        changed = true;
        for (HloInstruction* group : groups) {
          RETURN_IF_ERROR(one_group(*computation, group));
        }
        continue;
      }
      RETURN_IF_ERROR(one_group(*computation, instruction));
    }
  }
  return changed;
}

}  // namespace mxla
