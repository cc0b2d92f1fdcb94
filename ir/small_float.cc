#include "ir/small_float.h"

#include <bit>
#include <cmath>

namespace mxla::small_float_internal {
namespace {

// f8e8m0fnu (see the header): the f32 exponent field, rounded by the first
// mantissa bit.
uint8_t ExponentOnlyFromFloat(const SmallFloatFormat& format, float value) {
  const uint32_t f32 = std::bit_cast<uint32_t>(value);
  const uint32_t nan = format.positive_nan();
  if (!(value > 0.0f) || std::isinf(value)) return static_cast<uint8_t>(nan);
  const uint32_t exponent = f32 >> 23;
  const uint32_t mantissa = f32 & 0x7fffffu;
  if (exponent == 0) return mantissa > 0x400000u ? 1 : 0;  // 2^-127 = 0x00
  const uint32_t bits = exponent + (mantissa >= 0x400000u ? 1 : 0);
  return static_cast<uint8_t>(bits > format.max_finite() ? nan : bits);
}

}  // namespace

uint8_t FloatToBits(const SmallFloatFormat& format, float value) {
  if (!format.has_sign()) return ExponentOnlyFromFloat(format, value);
  const uint32_t f32 = std::bit_cast<uint32_t>(value);
  const bool negative = (f32 >> 31) != 0;
  const uint32_t magnitude = f32 & 0x7fffffffu;
  uint32_t bits;
  if (magnitude > 0x7f800000u) {
    bits = format.positive_nan();
  } else if (magnitude == 0x7f800000u) {
    bits = format.positive_infinity();
  } else {
    const int m = format.mantissa_bits;
    // The f32 encoding of the smallest normal value of the format.
    const uint32_t min_normal = static_cast<uint32_t>(127 - format.bias + 1) << 23;
    if (magnitude < min_normal) {
      // A multiple of the subnormal step 2^(1 - bias - m): scaling by its
      // inverse is exact, and nearbyint rounds to even. A carry into the
      // exponent field gives the smallest normal, as it should.
      const float units = std::nearbyint(
          std::ldexp(std::bit_cast<float>(magnitude), format.bias - 1 + m));
      bits = static_cast<uint32_t>(units);
    } else {
      // Round the 23 - m dropped mantissa bits to nearest even, then rebias
      // the exponent; a carry correctly bumps it.
      const int drop = 23 - m;
      const uint32_t odd = (magnitude >> drop) & 1u;
      const uint32_t rounded = magnitude + ((1u << (drop - 1)) - 1) + odd;
      bits = (rounded >> drop) -
             (static_cast<uint32_t>(127 - format.bias) << m);
    }
    if (bits > format.max_finite()) bits = format.positive_infinity();
  }
  return static_cast<uint8_t>(negative ? format.Negated(bits) : bits);
}

float BitsToFloat(const SmallFloatFormat& format, uint8_t bits) {
  if (!format.has_sign()) {
    return bits == format.positive_nan()
               ? NAN
               : std::ldexp(1.0f, static_cast<int>(bits) - format.bias);
  }
  const uint32_t sign_mask = format.sign_mask();
  const int m = format.mantissa_bits;
  const bool negative = (bits & sign_mask) != 0;
  const uint32_t magnitude = bits & (sign_mask - 1);
  const uint32_t exponent = magnitude >> m;
  const uint32_t mantissa = magnitude & ((1u << m) - 1);
  const uint32_t top_exponent = (1u << format.exponent_bits) - 1;
  float result;
  switch (format.kind) {
    case SmallFloatKind::kIeee:
      if (exponent == top_exponent) {
        result = mantissa == 0 ? INFINITY : NAN;
        return negative ? -result : result;
      }
      break;
    case SmallFloatKind::kFiniteNanAllOnes:
      if (magnitude == sign_mask - 1) return negative ? -NAN : NAN;
      break;
    case SmallFloatKind::kFiniteNanNegativeZero:
      if (bits == sign_mask) return -NAN;
      break;
    case SmallFloatKind::kFiniteOnly:
    case SmallFloatKind::kExponentOnly:  // handled above
      break;
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^(1 - bias - m)
    result = std::ldexp(static_cast<float>(mantissa), 1 - format.bias - m);
  } else {
    result = std::ldexp(static_cast<float>(mantissa | (1u << m)),
                        static_cast<int>(exponent) - format.bias - m);
  }
  return negative ? -result : result;
}

}  // namespace mxla::small_float_internal
