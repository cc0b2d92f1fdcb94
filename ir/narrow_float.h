// The 16-bit float element types: f16 (IEEE binary16) and bf16 (bfloat16,
// the top half of a binary32). Each is two bytes of storage with exact
// conversions to and from float; mxla never does arithmetic in them. An
// op on f16 or bf16 computes in f32 and rounds its result back, as XLA:CPU
// does (float normalization) and as XLA's evaluator does (its elementwise
// type for both is float).
//
// Rounding from float is to nearest, ties to even. Overflow gives ±inf; a
// NaN stays a quiet NaN with its sign and top payload bits. Conversions from
// f64 or integers go through f32 (two roundings, as in XLA's evaluator).
#ifndef MXLA_IR_NARROW_FLOAT_H_
#define MXLA_IR_NARROW_FLOAT_H_

#include <bit>
#include <cstdint>
#include <type_traits>

#include "ir/small_float.h"

namespace mxla {

namespace narrow_float_internal {
uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);
}  // namespace narrow_float_internal

// Two's-complement-free value types: only conversions and bit access, so
// that generic code cannot compute in them by accident.
class Half {
 public:
  constexpr Half() = default;
  explicit Half(float value)
      : bits_(narrow_float_internal::FloatToHalfBits(value)) {}
  static constexpr Half FromBits(uint16_t bits) {
    Half h;
    h.bits_ = bits;
    return h;
  }
  explicit operator float() const {
    return narrow_float_internal::HalfBitsToFloat(bits_);
  }
  constexpr uint16_t bits() const { return bits_; }

 private:
  uint16_t bits_ = 0;
};

class BFloat16 {
 public:
  constexpr BFloat16() = default;
  explicit BFloat16(float value) : bits_(RoundBits(value)) {}
  static constexpr BFloat16 FromBits(uint16_t bits) {
    BFloat16 b;
    b.bits_ = bits;
    return b;
  }
  explicit operator float() const {
    return std::bit_cast<float>(static_cast<uint32_t>(bits_) << 16);
  }
  constexpr uint16_t bits() const { return bits_; }

 private:
  static uint16_t RoundBits(float value) {
    uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it quiet.
      return static_cast<uint16_t>((bits >> 16) | 0x0040u);
    }
    // Adding 0x7fff rounds half down; the low kept bit makes ties even.
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>(bits >> 16);
  }

  uint16_t bits_ = 0;
};

// f16, bf16 and the 8-bit and smaller floats (ir/small_float.h).
template <typename T>
inline constexpr bool kIsNarrowFloat =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || kIsSmallFloat<T>;

}  // namespace mxla

#endif  // MXLA_IR_NARROW_FLOAT_H_
