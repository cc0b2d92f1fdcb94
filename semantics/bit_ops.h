// The ops that look at an element's bits rather than its value:
// is-finite, reduce-precision and bitcast-convert, per element and on whole
// arrays. The interpreter calls these; codegen emits the same operations.
//
//   is-finite         true unless the value is ±inf or NaN.
//   reduce-precision  XLA's rule: the value rounded to `mantissa_bits`
//                     (nearest, ties to even), then, if its exponent is
//                     beyond what `exponent_bits` holds, ±inf (overflow) or
//                     ±0 (underflow: the reduced type has no subnormals).
//                     A NaN stays the same NaN when mantissa_bits > 0; with
//                     no mantissa bits it becomes +inf, as in XLA. Each
//                     type is reduced on its own bits (f16 and bf16 too).
//   bitcast-convert   the element's bytes reinterpreted, row-major and
//                     little-endian: a type k times narrower splits each
//                     element into k pieces, least significant first, along
//                     a new last dimension; a wider one joins the last
//                     dimension's k pieces. A byte read as pred is true
//                     when nonzero.
#ifndef MXLA_SEMANTICS_BIT_OPS_H_
#define MXLA_SEMANTICS_BIT_OPS_H_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace mxla::semantics {

// XLA's reduce-precision on the bits of a float with `exponent` and
// `mantissa` bits of its own (f16: 5, 10; bf16: 8, 7; f32: 8, 23; f64:
// 11, 52), held in the unsigned integer type Bits of its width.
template <typename Bits>
Bits ReducePrecisionBits(Bits bits, int exponent, int mantissa,
                         int64_t exponent_bits, int64_t mantissa_bits) {
  const int width = exponent + mantissa + 1;
  const Bits exponent_mask = ((Bits{1} << exponent) - 1) << mantissa;
  const Bits mantissa_mask = (Bits{1} << mantissa) - 1;
  const bool nan =
      (bits & exponent_mask) == exponent_mask && (bits & mantissa_mask) != 0;
  if (nan) return mantissa_bits > 0 ? bits : exponent_mask;  // +inf
  if (mantissa_bits < mantissa) {
    // Round to nearest, ties to even: add half an ulp of the reduced type
    // minus one, plus the last kept bit, then truncate.
    const int dropped = mantissa - static_cast<int>(mantissa_bits);
    const Bits last_kept = Bits{1} << dropped;
    const Bits bias = static_cast<Bits>((last_kept >> 1) - 1 + ((bits >> dropped) & 1));
    bits = static_cast<Bits>((bits + bias) & ~(last_kept - 1));
  }
  if (exponent_bits < exponent) {
    const Bits sign = bits & static_cast<Bits>(Bits{1} << (width - 1));
    const Bits bias = (Bits{1} << (exponent - 1)) - 1;
    const Bits reduced_bias = (Bits{1} << (exponent_bits - 1)) - 1;
    const Bits biased = bits & exponent_mask;
    if (biased > static_cast<Bits>((bias + reduced_bias) << mantissa)) {
      bits = sign | exponent_mask;  // overflow: ±inf
    } else if (biased <= static_cast<Bits>((bias - reduced_bias) << mantissa)) {
      bits = sign;  // underflow: ±0
    }
  }
  return bits;
}

absl::StatusOr<Literal> ApplyIsFinite(const Literal& operand);
absl::StatusOr<Literal> ApplyReducePrecision(const Literal& operand,
                                             int64_t exponent_bits,
                                             int64_t mantissa_bits);
// `shape` is the result's (ShapeInference::InferBitcastConvertShape).
absl::StatusOr<Literal> ApplyBitcastConvert(const Literal& operand,
                                            const Shape& shape);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_BIT_OPS_H_
