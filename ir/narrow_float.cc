#include "ir/narrow_float.h"

#include <cmath>

namespace mxla::narrow_float_internal {

uint16_t FloatToHalfBits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  bits &= 0x7fffffffu;
  if (bits >= 0x7f800000u) {  // inf, or NaN kept quiet with its top payload.
    if (bits == 0x7f800000u) return sign | 0x7c00u;
    return sign | 0x7e00u | ((bits >> 13) & 0x3ffu);
  }
  // 65520 is halfway between the largest half (65504) and 2^16; the tie
  // goes to the even neighbour, which is infinity.
  if (bits >= 0x477ff000u) return sign | 0x7c00u;
  if (bits < 0x38800000u) {
    // Below the smallest normal half (2^-14): a multiple of 2^-24. Scaling
    // by 2^24 is exact, and nearbyint rounds to even in the default mode.
    float units = std::nearbyint(std::bit_cast<float>(bits) * 16777216.0f);
    return sign | static_cast<uint16_t>(units);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped
  // mantissa bits to nearest even; a carry correctly bumps the exponent.
  const uint32_t odd = (bits >> 13) & 1u;
  bits += 0xc8000fffu + odd;
  return sign | static_cast<uint16_t>(bits >> 13);
}

float HalfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  if (exponent == 0x1f) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) |
                              (mantissa << 13));
}

}  // namespace mxla::narrow_float_internal
