#include "passes/stochastic_convert_expander.h"

#include <cmath>
#include <cstdint>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "semantics/scalar_semantics.h"

namespace mxla {
namespace {

// `value` (an int64 or a double) as a `type` array, converted as the
// interpreter converts.
template <typename V>
HloInstruction* Splat(expansion::ElementwiseBuilder& b, V value,
                      PrimitiveType type) {
  return b.SplatAs(LiteralUtil::CreateR0<V>(value), type);
}

absl::StatusOr<HloInstruction*> Expand(HloComputation& computation,
                                       HloInstruction* convert) {
  HloInstruction* operand = convert->mutable_operand(0);
  HloInstruction* random = convert->mutable_operand(1);
  const PrimitiveType type = operand->shape().element_type();
  const PrimitiveType result_type = convert->shape().element_type();
  const PrimitiveType compute = type == F64 ? F64 : F32;
  const int bits = primitive_util::BitWidth(random->shape().element_type());
  const int result_bits = primitive_util::BitWidth(result_type);
  const int64_t min = result_bits == 64 ? INT64_MIN
                                        : -(int64_t{1} << (result_bits - 1));
  const int64_t max = result_bits == 64 ? INT64_MAX
                                        : (int64_t{1} << (result_bits - 1)) - 1;
  expansion::ElementwiseBuilder b(computation, operand->shape().dimensions());
  HloInstruction* x = b.Convert(operand, compute);
  HloInstruction* negative =
      b.Compare(x, Splat(b, 0.0, compute), ComparisonDirection::kLt);
  HloInstruction* magnitude = b.Unary(HloOpcode::kAbs, x);
  HloInstruction* whole = b.Unary(HloOpcode::kFloor, magnitude);
  HloInstruction* fixed =
      b.Binary(HloOpcode::kMultiply,
               b.Binary(HloOpcode::kSubtract, magnitude, whole),
               Splat(b, std::ldexp(1.0, bits), compute));
  HloInstruction* round_up =
      b.Compare(random, b.Convert(fixed, random->shape().element_type()),
                ComparisonDirection::kLt);
  HloInstruction* truncated = b.Convert(whole, result_type);
  HloInstruction* result = b.Select(
      round_up,
      b.Binary(HloOpcode::kAdd, truncated, Splat(b, int64_t{1}, result_type)),
      truncated);
  result = b.Select(negative, b.Unary(HloOpcode::kNegate, result), result);
  // The bounds as the operand type holds them, compared in `compute`.
  auto bound = [&](int64_t value) {
    return b.SplatAs(
        semantics::ApplyConvert(LiteralUtil::CreateR0<int64_t>(value), type)
            .value(),
        compute);
  };
  result = b.Select(b.Compare(x, bound(min), ComparisonDirection::kLe),
                    Splat(b, min, result_type), result);
  result = b.Select(b.Compare(x, bound(max), ComparisonDirection::kGe),
                    Splat(b, max, result_type), result);
  return result;
}

}  // namespace

absl::StatusOr<bool> StochasticConvertExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(module, {HloOpcode::kStochasticConvert},
                               Expand);
}

}  // namespace mxla
