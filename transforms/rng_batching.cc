// The batching rule of rng with batched parameters. mxla's numbers are a
// function of the rng's name and the element's index
// (semantics/random_numbers.h), so each example of a vmapped function
// draws the same numbers, only scaled by its own parameters. The rule
// builds those numbers from ops, as expand-rngs does, over the example's
// indices (broadcast along the batch), from the key of the instruction's
// name, and applies each example's parameters: slice b is exactly what
// the function draws for example b.
#include <cstdint>
#include <vector>

#include "builder/operators.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "semantics/random_numbers.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

namespace random = semantics::random;

XlaOp Word(XlaBuilder* b, uint64_t value) {
  return ConstantR0<uint64_t>(b, value);
}

XlaOp XorShift(XlaOp x, int shift) {
  return Xor(x, ShiftRightLogical(x, Word(x.builder(), shift)));
}

// random::Bits(key, index, stream) for every element of `index`.
XlaOp Bits(uint64_t key, XlaOp index, uint64_t stream) {
  XlaBuilder* b = index.builder();
  XlaOp counter = index * Word(b, 2) + Word(b, stream + 1);
  XlaOp x = Word(b, key) + counter * Word(b, random::kGolden);
  x = XorShift(x, random::kShift0) * Word(b, random::kMix0);
  x = XorShift(x, random::kShift1) * Word(b, random::kMix1);
  return XorShift(x, random::kShift2);
}

// random::Unit(bits), f64.
XlaOp Unit(XlaOp bits) {
  return ConvertElementType(
             ShiftRightLogical(bits, Word(bits.builder(), random::kUnitShift)),
             F64) *
         ConstantR0<double>(bits.builder(), random::kUnitScale);
}

XlaOp UniformFloat(XlaOp low, XlaOp high, XlaOp bits, PrimitiveType type) {
  XlaOp low64 = ConvertElementType(low, F64);
  XlaOp span = ConvertElementType(high, F64) - low64;
  XlaOp value = ConvertElementType(low64 + span * Unit(bits), type);
  return Select(Ge(value, high), low, value);
}

// In 64 bits of the type's signedness, as random::UniformInteger.
XlaOp UniformInteger(XlaOp low, XlaOp high, XlaOp bits, PrimitiveType type) {
  const PrimitiveType wide =
      primitive_util::IsUnsignedIntegralType(type) ? U64 : S64;
  XlaOp low_wide = ConvertElementType(low, wide);
  XlaOp high_wide = ConvertElementType(high, wide);
  XlaOp low64 = ConvertElementType(low_wide, U64);
  XlaOp span = ConvertElementType(high_wide, U64) - low64;
  XlaOp one = span * Word(bits.builder(), 0) + Word(bits.builder(), 1);
  XlaOp range = Select(Lt(low_wide, high_wide), span, one);
  return ConvertElementType(low64 + Rem(bits, range), type);
}

XlaOp Normal(XlaOp mu, XlaOp sigma, XlaOp bits0, XlaOp bits1,
             PrimitiveType type) {
  XlaBuilder* b = mu.builder();
  XlaOp radius = Sqrt(ConstantR0<double>(b, -2.0) *
                      Log(ConstantR0<double>(b, 1.0) - Unit(bits0)));
  XlaOp cosine = Cos(ConstantR0<double>(b, random::kTwoPi) * Unit(bits1));
  XlaOp value = ConvertElementType(mu, F64) +
                ConvertElementType(sigma, F64) * (radius * cosine);
  return ConvertElementType(value, type);
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kRng>, const BatchContext& context) {
  const HloInstruction& rng = context.instruction;
  ASSIGN_OR_RETURN(RandomDistribution distribution, rng.rng_distribution());
  const Shape& shape = rng.shape();
  const Shape batched = WithBatch(shape, context.batch_size);
  const std::vector<int64_t> all(batched.dimensions().begin(),
                                 batched.dimensions().end());
  std::vector<int64_t> example_dims(all.size() - 1);
  for (size_t d = 0; d < example_dims.size(); ++d) example_dims[d] = d + 1;
  XlaBuilder* b = &context.builder;
  // Each example's row-major element index, the same for every example.
  const XlaOp index = BroadcastInDim(
      Reshape(
          Iota(b, ShapeUtil::MakeShape(U64, {ShapeUtil::ElementsIn(shape)}), 0),
          shape.dimensions()),
      all, example_dims);
  // Each example's parameters over its elements.
  const XlaOp p = BroadcastInDim(BatchedOperand(context, 0), all, {0});
  const XlaOp q = BroadcastInDim(BatchedOperand(context, 1), all, {0});
  const uint64_t key = random::NameKey(rng.name());
  const PrimitiveType type = shape.element_type();
  if (distribution == RandomDistribution::kNormal) {
    return Normal(p, q, Bits(key, index, 0), Bits(key, index, 1), type);
  }
  if (primitive_util::IsFloatingPointType(type)) {
    return UniformFloat(p, q, Bits(key, index, 0), type);
  }
  return UniformInteger(p, q, Bits(key, index, 0), type);
}

}  // namespace mxla::batching_rules
