// XLA's 8-bit and smaller float element types (f8e5m2, f8e4m3fn, f4e2m1fn,
// f8e8m0fnu, ...), one byte an element. Like f16 and bf16 they are storage types: an
// op computes in f32 and rounds its result back (ir/narrow_float.h).
//
// Each but f8e8m0fnu is a sign bit, E exponent bits with a bias and M
// mantissa bits, with subnormals, and one of five ways to spend the
// top encodings:
// * kIeee (f8e5m2, f8e4m3, f8e3m4): the all-ones exponent holds ±inf and
//   NaNs, as in IEEE 754.
// * kFiniteNanAllOnes ("fn": f8e4m3fn): no infinities; only S.1111.111 is
//   NaN, so the all-ones exponent also holds finite values.
// * kFiniteNanNegativeZero ("fnuz": f8e4m3fnuz, f8e5m2fnuz, f8e4m3b11fnuz):
//   no infinities and no -0; the encoding of -0 (0x80) is the one NaN.
// * kFiniteOnly (the MX type f4e2m1fn): no infinities
//   and no NaN.
// * kExponentOnly (the MX scale type f8e8m0fnu): no sign bit and no
//   mantissa: the byte b is 2^(b - 127), 0xff is the one NaN; no zero, no
//   infinities, no negative values.
//
// Rounding from f32 is to nearest, ties to even, as ml_dtypes (XLA's
// evaluator) does. A value past the largest finite one (after rounding)
// and an infinity become inf (kIeee), NaN (fn, fnuz), or the largest
// finite value (kFiniteOnly, whose NaN is undefined: a NaN becomes -0, or
// +0 for a negative NaN, as ml_dtypes negates its stand-in). f8e8m0fnu
// follows ml_dtypes' generic conversion: 0, negative values, infinities and
// NaN become its NaN; a normal f32 rounds up to the next power of two when
// its mantissa is at least 1.5 (ties away from zero, since the kept
// "mantissa" is the implicit 1); an f32 subnormal becomes 2^-126 when it is
// above 2^-127 and 2^-127 otherwise. Integers convert through f32, like
// every narrow float; an f64 rounds once, as ml_dtypes' cast from double
// does (through f32 rounded to odd: semantics::RoundToOddF32).
#ifndef MXLA_IR_SMALL_FLOAT_H_
#define MXLA_IR_SMALL_FLOAT_H_

#include <cstdint>
#include <type_traits>

namespace mxla {

enum class SmallFloatKind : uint8_t {
  kIeee,
  kFiniteNanAllOnes,
  kFiniteNanNegativeZero,
  kFiniteOnly,
  kExponentOnly,
};

struct SmallFloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SmallFloatKind kind;

  constexpr bool has_sign() const { return kind != SmallFloatKind::kExponentOnly; }
  constexpr int bits() const {
    return (has_sign() ? 1 : 0) + exponent_bits + mantissa_bits;
  }
  // The sign bit; for a type without one, the bit above its encodings (so
  // `bits & sign_mask()` is 0 and `sign_mask() - 1` masks every bit).
  constexpr uint32_t sign_mask() const {
    return has_sign() ? 1u << (bits() - 1) : 1u << bits();
  }
  // The encoding of the largest finite value.
  constexpr uint32_t max_finite() const {
    const uint32_t all_ones = sign_mask() - 1;
    switch (kind) {
      case SmallFloatKind::kIeee:
        return all_ones - (1u << mantissa_bits);  // exponent all ones - 1
      case SmallFloatKind::kFiniteNanAllOnes:
      case SmallFloatKind::kExponentOnly:
        return all_ones - 1;
      default:
        return all_ones;
    }
  }
  // The encoding an infinity of sign 0 becomes.
  constexpr uint32_t positive_infinity() const {
    switch (kind) {
      case SmallFloatKind::kIeee:
        return (sign_mask() - 1) & ~((1u << mantissa_bits) - 1);
      case SmallFloatKind::kFiniteNanAllOnes:
        return sign_mask() - 1;  // NaN
      case SmallFloatKind::kFiniteNanNegativeZero:
        return sign_mask();  // NaN
      case SmallFloatKind::kFiniteOnly:
        return max_finite();
      case SmallFloatKind::kExponentOnly:
        return positive_nan();
    }
    return 0;
  }
  // The encoding a NaN of sign 0 becomes.
  constexpr uint32_t positive_nan() const {
    switch (kind) {
      case SmallFloatKind::kIeee:  // quiet: the top mantissa bit set
        return positive_infinity() | (1u << (mantissa_bits - 1));
      case SmallFloatKind::kFiniteNanAllOnes:
        return sign_mask() - 1;
      case SmallFloatKind::kFiniteNanNegativeZero:
        return sign_mask();
      case SmallFloatKind::kFiniteOnly:
        return sign_mask();  // -0, ml_dtypes' stand-in
      case SmallFloatKind::kExponentOnly:
        return sign_mask() - 1;  // all ones
    }
    return 0;
  }
  // The encoding of -x, given that of x: the sign bit flipped, except that
  // an fnuz type has no -0 and its NaN has no sign, and an unsigned type's
  // negative values are NaN.
  constexpr uint32_t Negated(uint32_t bits) const {
    if (!has_sign()) return positive_nan();
    if (kind == SmallFloatKind::kFiniteNanNegativeZero) {
      return (bits & (sign_mask() - 1)) == 0 ? bits : bits ^ sign_mask();
    }
    return bits ^ sign_mask();
  }
};

namespace small_float_internal {
uint8_t FloatToBits(const SmallFloatFormat& format, float value);
float BitsToFloat(const SmallFloatFormat& format, uint8_t bits);
}  // namespace small_float_internal

// Only conversions and bit access, like Half: generic code cannot compute
// in it by accident.
template <SmallFloatFormat kFormat>
class SmallFloat {
 public:
  static constexpr SmallFloatFormat kFormatOf = kFormat;

  constexpr SmallFloat() = default;
  explicit SmallFloat(float value)
      : bits_(small_float_internal::FloatToBits(kFormat, value)) {}
  static constexpr SmallFloat FromBits(uint8_t bits) {
    SmallFloat f;
    f.bits_ = bits;
    return f;
  }
  explicit operator float() const {
    return small_float_internal::BitsToFloat(kFormat, bits_);
  }
  constexpr uint8_t bits() const { return bits_; }

 private:
  uint8_t bits_ = 0;
};

inline constexpr SmallFloatFormat kF8E5M2{5, 2, 15, SmallFloatKind::kIeee};
inline constexpr SmallFloatFormat kF8E4M3{4, 3, 7, SmallFloatKind::kIeee};
inline constexpr SmallFloatFormat kF8E3M4{3, 4, 3, SmallFloatKind::kIeee};
inline constexpr SmallFloatFormat kF8E4M3FN{4, 3, 7,
                                            SmallFloatKind::kFiniteNanAllOnes};
inline constexpr SmallFloatFormat kF8E4M3FNUZ{
    4, 3, 8, SmallFloatKind::kFiniteNanNegativeZero};
inline constexpr SmallFloatFormat kF8E5M2FNUZ{
    5, 2, 16, SmallFloatKind::kFiniteNanNegativeZero};
inline constexpr SmallFloatFormat kF8E4M3B11FNUZ{
    4, 3, 11, SmallFloatKind::kFiniteNanNegativeZero};
inline constexpr SmallFloatFormat kF4E2M1FN{2, 1, 1, SmallFloatKind::kFiniteOnly};
inline constexpr SmallFloatFormat kF8E8M0FNU{8, 0, 127,
                                             SmallFloatKind::kExponentOnly};

using Float8E5M2 = SmallFloat<kF8E5M2>;
using Float8E4M3 = SmallFloat<kF8E4M3>;
using Float8E3M4 = SmallFloat<kF8E3M4>;
using Float8E4M3FN = SmallFloat<kF8E4M3FN>;
using Float8E4M3FNUZ = SmallFloat<kF8E4M3FNUZ>;
using Float8E5M2FNUZ = SmallFloat<kF8E5M2FNUZ>;
using Float8E4M3B11FNUZ = SmallFloat<kF8E4M3B11FNUZ>;
using Float4E2M1FN = SmallFloat<kF4E2M1FN>;
using Float8E8M0FNU = SmallFloat<kF8E8M0FNU>;

template <typename T>
inline constexpr bool kIsSmallFloat = false;
template <SmallFloatFormat kFormat>
inline constexpr bool kIsSmallFloat<SmallFloat<kFormat>> = true;

}  // namespace mxla

#endif  // MXLA_IR_SMALL_FLOAT_H_
