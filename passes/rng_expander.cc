#include "passes/rng_expander.h"

#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "semantics/random_numbers.h"

namespace mxla {
namespace {

namespace random = semantics::random;

// The elementwise ops of semantics/random_numbers.h over the rng's
// dimensions.
class Builder : public expansion::ElementwiseBuilder {
 public:
  using ElementwiseBuilder::ElementwiseBuilder;

  // Each element's row-major index, u64.
  HloInstruction* ElementIndex() {
    const int64_t count = ShapeUtil::ElementsIn(ArrayOf(U64));
    HloInstruction* iota = Add(HloInstruction::CreateIota(
        ShapeUtil::MakeShape(U64, {count}), 0));
    return expansion::Reshaped(computation_, iota, dims_);
  }

  // random::Bits(key, index, stream) for every element.
  HloInstruction* Bits(uint64_t key, HloInstruction* index, uint64_t stream) {
    HloInstruction* counter =
        Binary(HloOpcode::kAdd, Binary(HloOpcode::kMultiply, index,
                                       Splat<uint64_t>(2)),
               Splat<uint64_t>(stream + 1));
    HloInstruction* x =
        Binary(HloOpcode::kAdd, Splat<uint64_t>(key),
               Binary(HloOpcode::kMultiply, counter,
                      Splat<uint64_t>(random::kGolden)));
    x = Binary(HloOpcode::kMultiply, XorShift(x, random::kShift0),
               Splat<uint64_t>(random::kMix0));
    x = Binary(HloOpcode::kMultiply, XorShift(x, random::kShift1),
               Splat<uint64_t>(random::kMix1));
    return XorShift(x, random::kShift2);
  }

  // random::Unit(bits), f64.
  HloInstruction* Unit(HloInstruction* bits) {
    HloInstruction* top =
        Binary(HloOpcode::kShiftRightLogical, bits,
               Splat<uint64_t>(random::kUnitShift));
    return Binary(HloOpcode::kMultiply, Convert(top, F64),
                  Splat<double>(random::kUnitScale));
  }

 private:
  HloInstruction* XorShift(HloInstruction* x, int shift) {
    return Binary(HloOpcode::kXor, x,
                  Binary(HloOpcode::kShiftRightLogical, x,
                         Splat<uint64_t>(shift)));
  }
};

HloInstruction* UniformFloat(Builder& b, HloInstruction* low,
                             HloInstruction* high, HloInstruction* bits) {
  const PrimitiveType type = low->shape().element_type();
  HloInstruction* low64 = b.Convert(low, F64);
  HloInstruction* span =
      b.Binary(HloOpcode::kSubtract, b.Convert(high, F64), low64);
  HloInstruction* value = b.Convert(
      b.Binary(HloOpcode::kAdd, b.Splat(low64),
               b.Binary(HloOpcode::kMultiply, b.Splat(span), b.Unit(bits))),
      type);
  HloInstruction* reached_high =
      b.Compare(value, b.Splat(high), ComparisonDirection::kGe);
  return b.Select(reached_high, b.Splat(low), value);
}

HloInstruction* UniformInteger(Builder& b, HloInstruction* low,
                               HloInstruction* high, HloInstruction* bits) {
  const PrimitiveType type = low->shape().element_type();
  const PrimitiveType wide =
      primitive_util::IsUnsignedIntegralType(type) ? U64 : S64;
  HloInstruction* low_wide = b.Convert(low, wide);
  HloInstruction* high_wide = b.Convert(high, wide);
  HloInstruction* low64 = b.Convert(low_wide, U64);
  HloInstruction* range = b.Select(
      b.Compare(low_wide, high_wide, ComparisonDirection::kLt),
      b.Binary(HloOpcode::kSubtract, b.Convert(high_wide, U64), low64),
      b.Constant<uint64_t>(1));
  HloInstruction* offset =
      b.Binary(HloOpcode::kRemainder, bits, b.Splat(range));
  return b.Convert(b.Binary(HloOpcode::kAdd, b.Splat(low64), offset), type);
}

HloInstruction* Normal(Builder& b, HloInstruction* mu, HloInstruction* sigma,
                       HloInstruction* bits0, HloInstruction* bits1) {
  const PrimitiveType type = mu->shape().element_type();
  HloInstruction* radius = b.Unary(
      HloOpcode::kSqrt,
      b.Binary(HloOpcode::kMultiply, b.Splat<double>(-2.0),
               b.Unary(HloOpcode::kLog,
                       b.Binary(HloOpcode::kSubtract, b.Splat<double>(1.0),
                                b.Unit(bits0)))));
  HloInstruction* cosine = b.Unary(
      HloOpcode::kCos, b.Binary(HloOpcode::kMultiply,
                                b.Splat<double>(random::kTwoPi), b.Unit(bits1)));
  HloInstruction* z = b.Binary(HloOpcode::kMultiply, radius, cosine);
  HloInstruction* value = b.Binary(
      HloOpcode::kAdd, b.Splat(b.Convert(mu, F64)),
      b.Binary(HloOpcode::kMultiply, b.Splat(b.Convert(sigma, F64)), z));
  return b.Convert(value, type);
}

absl::StatusOr<HloInstruction*> Expand(HloComputation& computation,
                                       HloInstruction* rng) {
  ASSIGN_OR_RETURN(RandomDistribution distribution, rng->rng_distribution());
  Builder b(computation, rng->shape().dimensions());
  const uint64_t key = random::NameKey(rng->name());
  HloInstruction* index = b.ElementIndex();
  HloInstruction* a = rng->mutable_operand(0);
  HloInstruction* c = rng->mutable_operand(1);
  if (distribution == RandomDistribution::kNormal) {
    return Normal(b, a, c, b.Bits(key, index, 0), b.Bits(key, index, 1));
  }
  if (primitive_util::IsFloatingPointType(rng->shape().element_type())) {
    return UniformFloat(b, a, c, b.Bits(key, index, 0));
  }
  return UniformInteger(b, a, c, b.Bits(key, index, 0));
}

}  // namespace

absl::StatusOr<bool> RngExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(module, {HloOpcode::kRng}, Expand);
}

}  // namespace mxla
