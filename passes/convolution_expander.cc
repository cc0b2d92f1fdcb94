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

// One convolution's expansion, in the steps Expander::Expand runs in
// order (each adds its instructions, so the order is the HLO's): the
// input's patches, the kernel's rows, their products, the sum.
class ConvolutionExpansion {
 public:
  // `lhs` and `rhs` are the operands, already in `type`.
  ConvolutionExpansion(HloComputation& computation, const HloInstruction& conv,
                       const ConvolutionDimensionNumbers& dnums,
                       PrimitiveType type, const Shape& lhs, const Shape& rhs);

  // Input: [BG, Bg, G, Fg, spatial...] -> patches [BG, Bg, G, Fg, o...,
  // k...] -> [Bg, GG, o..., k..., Fg].
  absl::StatusOr<HloInstruction*> Patches(HloInstruction* lhs);
  // Kernel: [O, Fg, k...] (reversed where asked) -> [GG, Og, Fg, k...] ->
  // [GG, Og, k..., Fg].
  HloInstruction* Kernel(HloInstruction* rhs);
  // Products [Bg, GG, Og, o..., k..., Fg], masked where a tap is outside
  // the base.
  absl::StatusOr<HloInstruction*> Products(HloInstruction* patches,
                                           HloInstruction* kernel);
  // The products summed over k... and Fg in row-major order, then
  // [Bg, GG, Og, o...] -> [Bg, O, o...] -> the output's dimension order.
  HloInstruction* Sum(HloInstruction* products,
                      expansion::AddComputations& adders);

 private:
  int64_t n() const { return window_.size(); }
  // Patches (or their mask) in the products' order of dimensions.
  HloInstruction* Arranged(HloInstruction* patches);
  // Where the patches sit in the products' dimensions.
  std::vector<int64_t> PatchesInProduct() const {
    return Concat(std::vector<int64_t>{0, 1}, Iota(3, 2 * n() + 1));
  }

  HloComputation& computation_;
  const ConvolutionDimensionNumbers dnums_;
  const Window window_;
  const Shape& out_;
  const PrimitiveType type_;
  Sizes s_;
  std::vector<int64_t> spatial_sizes_, positions_, taps_;
  // The input's dimensions grouped: [BG, Bg, G, Fg, spatial...].
  std::vector<int64_t> grouped_;
  Shape product_;
};

ConvolutionExpansion::ConvolutionExpansion(
    HloComputation& computation, const HloInstruction& conv,
    const ConvolutionDimensionNumbers& dnums, PrimitiveType type,
    const Shape& lhs, const Shape& rhs)
    : computation_(computation),
      dnums_(dnums),
      window_(conv.window()),
      out_(conv.shape()),
      type_(type) {
  s_.bg = conv.batch_group_count();
  s_.g = conv.feature_group_count();
  s_.batch_per_group = lhs.dimensions(dnums.input_batch) / s_.bg;
  s_.fg = rhs.dimensions(dnums.kernel_input_feature);
  s_.gg = s_.g * s_.bg;
  s_.og = rhs.dimensions(dnums.kernel_output_feature) / s_.gg;
  for (int64_t i = 0; i < n(); ++i) {
    spatial_sizes_.push_back(lhs.dimensions(dnums.input_spatial[i]));
    positions_.push_back(out_.dimensions(dnums.output_spatial[i]));
    taps_.push_back(window_[i].size);
  }
  grouped_ =
      Concat(std::vector<int64_t>{s_.bg, s_.batch_per_group, s_.g, s_.fg},
             spatial_sizes_);
  product_ = ShapeUtil::MakeShape(
      type, Concat(std::vector<int64_t>{s_.batch_per_group, s_.gg, s_.og},
                   positions_, taps_, std::vector<int64_t>{s_.fg}));
}

HloInstruction* ConvolutionExpansion::Arranged(HloInstruction* patches) {
  const std::vector<int64_t> to_product_order = Concat(
      std::vector<int64_t>{1, 0, 2}, Iota(4, 2 * n()), std::vector<int64_t>{3});
  return Reshaped(computation_,
                  Transposed(computation_, patches, to_product_order),
                  Concat(std::vector<int64_t>{s_.batch_per_group, s_.gg},
                         positions_, taps_, std::vector<int64_t>{s_.fg}));
}

absl::StatusOr<HloInstruction*> ConvolutionExpansion::Patches(
    HloInstruction* lhs) {
  HloInstruction* input = Reshaped(
      computation_,
      Transposed(
          computation_, lhs,
          Concat(std::vector<int64_t>{dnums_.input_batch, dnums_.input_feature},
                 dnums_.input_spatial)),
      grouped_);
  ASSIGN_OR_RETURN(
      HloInstruction * patches,
      expansion::WindowPatches(computation_, input, 4, window_,
                               expansion::Zero(computation_, type_)));
  return Arranged(patches);
}

HloInstruction* ConvolutionExpansion::Kernel(HloInstruction* rhs) {
  HloInstruction* kernel =
      Transposed(computation_, rhs,
                 Concat(std::vector<int64_t>{dnums_.kernel_output_feature,
                                             dnums_.kernel_input_feature},
                        dnums_.kernel_spatial));
  std::vector<int64_t> reversed;
  for (int64_t i = 0; i < n(); ++i) {
    if (window_[i].reversal) reversed.push_back(2 + i);
  }
  if (!reversed.empty()) {
    auto reverse = HloInstruction::CreateGeneric(HloOpcode::kReverse,
                                                 kernel->shape(), {kernel});
    reverse->set_dimensions(reversed);
    kernel = computation_.AddInstruction(std::move(reverse));
  }
  return Transposed(
      computation_,
      Reshaped(computation_, kernel,
               Concat(std::vector<int64_t>{s_.gg, s_.og, s_.fg}, taps_)),
      Concat(std::vector<int64_t>{0, 1}, Iota(3, n()),
             std::vector<int64_t>{2}));
}

absl::StatusOr<HloInstruction*> ConvolutionExpansion::Products(
    HloInstruction* patches, HloInstruction* kernel) {
  HloInstruction* lhs_b = computation_.AddInstruction(
      HloInstruction::CreateBroadcast(product_, patches, PatchesInProduct()));
  HloInstruction* rhs_b =
      computation_.AddInstruction(HloInstruction::CreateBroadcast(
          product_, kernel,
          Concat(std::vector<int64_t>{1, 2}, Iota(3 + n(), n() + 1))));
  HloInstruction* products =
      computation_.AddInstruction(HloInstruction::CreateBinary(
          product_, HloOpcode::kMultiply, lhs_b, rhs_b));
  if (!expansion::WindowHasHoles(window_)) return products;
  ASSIGN_OR_RETURN(
      HloInstruction * mask,
      expansion::WindowTapMask(computation_, grouped_, 4, window_));
  HloInstruction* mask_b =
      computation_.AddInstruction(HloInstruction::CreateBroadcast(
          ShapeUtil::ChangeElementType(product_, PRED), Arranged(mask),
          PatchesInProduct()));
  HloInstruction* zeros =
      computation_.AddInstruction(HloInstruction::CreateBroadcast(
          product_, expansion::Zero(computation_, type_), {}));
  return computation_.AddInstruction(
      HloInstruction::CreateSelect(product_, mask_b, products, zeros));
}

HloInstruction* ConvolutionExpansion::Sum(HloInstruction* products,
                                          expansion::AddComputations& adders) {
  const std::vector<int64_t> grouped_result = Concat(
      std::vector<int64_t>{s_.batch_per_group, s_.gg, s_.og}, positions_);
  HloInstruction* result =
      computation_.AddInstruction(HloInstruction::CreateReduce(
          ShapeUtil::MakeShape(type_, grouped_result),
          {products, expansion::Zero(computation_, type_)},
          Iota(3 + n(), n() + 1), adders.Get(type_)));
  result =
      Reshaped(computation_, result,
               Concat(std::vector<int64_t>{s_.batch_per_group, s_.gg * s_.og},
                      positions_));
  std::vector<int64_t> permutation(out_.rank());
  permutation[dnums_.output_batch] = 0;
  permutation[dnums_.output_feature] = 1;
  for (int64_t i = 0; i < n(); ++i) {
    permutation[dnums_.output_spatial[i]] = 2 + i;
  }
  return Transposed(computation_, result, permutation);
}

// `x` converted to `type` where it is not.
HloInstruction* Widened(HloComputation& computation, HloInstruction* x,
                        PrimitiveType type) {
  if (x->shape().element_type() == type) return x;
  return computation.AddInstruction(HloInstruction::CreateConvert(
      ShapeUtil::ChangeElementType(x->shape(), type), x));
}

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
  const Shape& out = conv->shape();
  HloInstruction* result = nullptr;
  if (ShapeUtil::ElementsIn(out) == 0) {
    result = computation.AddInstruction(HloInstruction::CreateBroadcast(
        out, expansion::Zero(computation, out.element_type()), {}));
    computation.ReplaceInstruction(conv, result);
    return computation.RemoveInstruction(conv);
  }
  // Mixed types and f16/bf16 compute in the accumulation type, as dot.
  const PrimitiveType type = DotAccumulationType(
      conv->operand(0)->shape().element_type(),
      conv->operand(1)->shape().element_type(), out.element_type());
  HloInstruction* lhs = Widened(computation, conv->mutable_operand(0), type);
  HloInstruction* rhs = Widened(computation, conv->mutable_operand(1), type);
  ConvolutionExpansion expansion(computation, *conv, dnums, type, lhs->shape(),
                                 rhs->shape());
  ASSIGN_OR_RETURN(HloInstruction * patches, expansion.Patches(lhs));
  HloInstruction* kernel = expansion.Kernel(rhs);
  ASSIGN_OR_RETURN(HloInstruction * products,
                   expansion.Products(patches, kernel));
  result = expansion.Sum(products, adders_);
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

// A convolution of one group: on the dot kernel when it qualifies, else
// expanded. Returns whether it changed anything.
absl::StatusOr<bool> RewriteOneGroup(Expander& expander,
                                     HloComputation& computation,
                                     HloInstruction* conv) {
  if (conv->feature_group_count() == 1 && conv->batch_group_count() == 1 &&
      IsMatrixProductCandidate(*conv)) {
    return MakeProduct(computation, conv);
  }
  RETURN_IF_ERROR(expander.Expand(computation, conv));
  return true;
}

// A convolution of a program: kept for the depthwise or the dot kernel
// where it fits, else expanded. Returns whether it changed anything.
absl::StatusOr<bool> RewriteInProgram(Expander& expander,
                                      HloComputation& computation,
                                      HloInstruction* conv) {
  bool changed = false;
  if (expansion::IsWidenableToF32(*conv)) {
    // 16-bit operands are converted once, into the f32 product's input
    // (or the depthwise sum's, or each group's).
    ASSIGN_OR_RETURN(conv, expansion::WidenToF32(computation, conv));
    changed = true;
  }
  if (IsDepthwiseConvolution(*conv)) {
    // On the depthwise kernel where it fits, else the sum of taps.
    if (FitsDepthwiseKernel(*conv)) {
      ASSIGN_OR_RETURN(bool made, MakeDepthwiseProduct(computation, conv));
      return changed || made;
    }
    RETURN_IF_ERROR(ExpandDepthwiseConvolution(computation, conv));
    return true;
  }
  if (IsWorthSplitting(*conv) && IsMatrixProductCandidate(*conv)) {
    ASSIGN_OR_RETURN(std::vector<HloInstruction*> groups,
                     SplitGroupedConvolution(computation, conv));
    for (HloInstruction* group : groups) {
      RETURN_IF_ERROR(RewriteOneGroup(expander, computation, group).status());
    }
    return true;
  }
  ASSIGN_OR_RETURN(bool made, RewriteOneGroup(expander, computation, conv));
  return changed || made;
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
      ASSIGN_OR_RETURN(bool rewritten,
                       RewriteInProgram(expander, *computation, instruction));
      changed |= rewritten;
    }
  }
  return changed;
}

}  // namespace mxla
