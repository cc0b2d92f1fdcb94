#include "passes/convolution_expander.h"

#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
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

}  // namespace

absl::StatusOr<bool> ConvolutionExpanderPass::Run(HloModule& module) {
  Expander expander(module);
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kConvolution) continue;
      RETURN_IF_ERROR(expander.Expand(*computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
