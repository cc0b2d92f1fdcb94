// The element semantics of mxla: what each elementwise HLO op computes on one
// element of each type. This header is the contract that the evaluator (the
// oracle), constant folding and the JIT all follow; the evaluator calls
// exactly these functions. It follows XLA and IEEE 754 with no fast-math:
// no reassociation, no flush-to-zero, NaNs and signed zeros are honoured.
//
// Types: pred = bool, s8..s64 = two's complement, u8..u64 = unsigned
// binary, f32/f64 = IEEE binary32/64 with round-to-nearest-even. f16 and bf16
// have no functions here: the whole-array functions at the end widen them to
// f32, apply the f32 rule and round the result to nearest even (a compare
// just widens), which is XLA's float normalization. A NaN made by an invalid operation (0/0,
// sqrt(-1), inf - inf) has no specified sign or payload: the hardware's
// default NaN at run time, but LLVM may fold the same operation to a
// positive quiet NaN. Backends agree on NaN-ness (LiteralUtil::SameValues),
// not on those bits. Which types an op accepts is shape inference's
// rule; the templates below are constrained to exactly those types.
//
//   add, subtract, multiply, negate, abs
//       integers wrap (two's complement); abs(INT_MIN) = INT_MIN.
//       pred (add, multiply only): add = or, multiply = and.
//   divide      integers: x / 0 = -1 (all ones: the maximum for unsigned
//               types), INT_MIN / -1 = INT_MIN, otherwise truncating
//               division. Floats: IEEE.
//   remainder   integers: x % 0 = x, INT_MIN % -1 = 0, otherwise the sign
//               follows the dividend (C++ %). Floats: std::fmod.
//   power       integers: a (signed) exponent < 0 gives 1 for base 1 and 0
//               for every other base, -1 and 0 included (XLA's evaluator,
//               HandlePower: (-1)^-3 = 0); exponent >= 0 is repeated
//               squaring with wrapping (0^0 = 1). Floats: std::pow.
//   maximum, minimum
//               floats: NaN if either operand is NaN (the first NaN operand
//               is returned); max(-0, +0) = +0 and min(-0, +0) = -0 in either
//               order. Integers: the usual. pred: maximum = or, minimum = and.
//   and, or, xor, not
//               pred: logical; integers: bitwise.
//   compare     IEEE: a NaN operand makes EQ LT LE GT GE false and NE true;
//               -0 == +0. pred compares as 0/1.
//   sign        integers: -1, 0, 1 (unsigned: 0, 1). Floats: NaN stays NaN, ±0 stays ±0 (sign
//               kept), otherwise ±1.
//   exponential, log, tanh, logistic
//               f32: mxla's own functions (float32_math.h: exp and log
//               within 1 ulp, tanh 2, logistic 2.5; the JIT emits the same
//               operations, so its bits are these). f64: the <cmath>
//               function; logistic is 1 / (1 + exp(-x)) in f64.
//   sqrt, floor, ceil
//               the <cmath> function (correctly rounded / exact).
//   round-nearest-afz, round-nearest-even
//               std::round (halves away from zero), std::nearbyint (halves
//               to even); exact.
//   sine, cosine, tan, exponential-minus-one, log-plus-one, cbrt, erf,
//   atan2       the <cmath> function (glibc's; the JIT calls the same one).
//   shift-left, shift-right-logical, shift-right-arithmetic
//               integers only; the amount is read as unsigned, and one of
//               at least the bit width gives 0 (arithmetic: -1 for a
//               negative operand, else 0). Unsigned operands shift
//               arithmetically as their two's complement bits.
//   popcnt, count-leading-zeros
//               the count over the operand's bits; clz(0) = bit width.
//   copy        the operand.
//   rsqrt       1 / sqrt(x), in the element type.
//   convert     to pred: x != 0 (NaN gives true). From pred: 0 or 1.
//               int -> float: round to nearest even. float -> int: NaN gives
//               0, values beyond the target range saturate to its min/max,
//               others truncate toward zero (negative values saturate to 0
//               for unsigned targets). int -> int: the value modulo 2^bits
//               of the target (sign- or zero-extended by the source type).
//               float <-> float: plain IEEE conversion; into f16 or bf16
//               through f32 (from f64 and integers: two roundings).
#ifndef MXLA_SEMANTICS_SCALAR_SEMANTICS_H_
#define MXLA_SEMANTICS_SCALAR_SEMANTICS_H_

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/statusor.h"
#include "semantics/float32_math.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"

namespace mxla::semantics {

template <typename T>
concept Pred = std::same_as<T, bool>;
template <typename T>
concept Integer = std::integral<T> && !std::same_as<T, bool>;
template <typename T>
concept Float = std::same_as<T, float> || std::same_as<T, double>;
template <typename T>
concept Number = Integer<T> || Float<T>;
template <typename T>
concept Element = Pred<T> || Number<T>;
template <typename T>
concept Logical = Pred<T> || Integer<T>;

namespace internal {
// Integer arithmetic runs in an unsigned type of at least 32 bits, where
// overflow wraps instead of being undefined (narrower types would promote
// to int, which can overflow); the conversion back is modular in C++20.
template <Integer T>
using Unsigned = std::conditional_t<(sizeof(T) < sizeof(uint32_t)), uint32_t,
                                    std::make_unsigned_t<T>>;
template <Integer T>
constexpr T Wrap(Unsigned<T> value) {
  return static_cast<T>(value);
}
}  // namespace internal

// ---- Binary arithmetic ----------------------------------------------------

template <Element T>
constexpr T Add(T a, T b) {
  using internal::Unsigned;
  if constexpr (Pred<T>) return a || b;
  if constexpr (Integer<T>) {
    return internal::Wrap<T>(Unsigned<T>(a) + Unsigned<T>(b));
  }
  if constexpr (Float<T>) return a + b;
}

template <Number T>
constexpr T Sub(T a, T b) {
  using internal::Unsigned;
  if constexpr (Integer<T>) {
    return internal::Wrap<T>(Unsigned<T>(a) - Unsigned<T>(b));
  }
  if constexpr (Float<T>) return a - b;
}

template <Element T>
constexpr T Mul(T a, T b) {
  using internal::Unsigned;
  if constexpr (Pred<T>) return a && b;
  if constexpr (Integer<T>) {
    return internal::Wrap<T>(Unsigned<T>(a) * Unsigned<T>(b));
  }
  if constexpr (Float<T>) return a * b;
}

template <Number T>
constexpr T Div(T a, T b) {
  if constexpr (Integer<T>) {
    if (b == 0) return static_cast<T>(-1);
    if constexpr (std::is_signed_v<T>) {
      if (a == std::numeric_limits<T>::min() && b == -1) return a;
    }
  }
  return static_cast<T>(a / b);
}

template <Number T>
T Rem(T a, T b) {
  if constexpr (Integer<T>) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>) {
      if (a == std::numeric_limits<T>::min() && b == -1) return T{0};
    }
    return static_cast<T>(a % b);
  }
  if constexpr (Float<T>) return std::fmod(a, b);
}

template <Element T>
T Max(T a, T b) {
  if constexpr (Pred<T>) return a || b;
  if constexpr (Integer<T>) return a < b ? b : a;
  if constexpr (Float<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? b : a;  // ±0: prefer +0.
    return a < b ? b : a;
  }
}

template <Element T>
T Min(T a, T b) {
  if constexpr (Pred<T>) return a && b;
  if constexpr (Integer<T>) return b < a ? b : a;
  if constexpr (Float<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? a : b;  // ±0: prefer -0.
    return b < a ? b : a;
  }
}

template <Number T>
T Pow(T base, T exponent) {
  if constexpr (Float<T>) {
    return std::pow(base, exponent);
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exponent < 0) return base == 1 ? T{1} : T{0};
    }
    using U = internal::Unsigned<T>;
    U result = 1;
    U square = static_cast<U>(base);
    for (T e = exponent; e > 0; e >>= 1) {
      if ((e & 1) != 0) result *= square;
      square *= square;
    }
    return internal::Wrap<T>(result);
  }
}

template <Logical T>
constexpr T And(T a, T b) {
  if constexpr (Pred<T>) return a && b;
  if constexpr (Integer<T>) return static_cast<T>(a & b);
}

template <Logical T>
constexpr T Or(T a, T b) {
  if constexpr (Pred<T>) return a || b;
  if constexpr (Integer<T>) return static_cast<T>(a | b);
}

template <Logical T>
constexpr T Xor(T a, T b) {
  if constexpr (Pred<T>) return a != b;
  if constexpr (Integer<T>) return static_cast<T>(a ^ b);
}

// The shifts read the amount as unsigned: an amount of at least the bit
// width (a negative one included) shifts every bit out, leaving 0, or for
// an arithmetic right shift the sign bit in every bit (XLA's rule).
namespace internal {
template <Integer T>
constexpr bool ShiftOutOfRange(T amount) {
  return static_cast<std::make_unsigned_t<T>>(amount) >= sizeof(T) * 8;
}
}  // namespace internal

template <Integer T>
constexpr T ShiftLeft(T a, T b) {
  if (internal::ShiftOutOfRange(b)) return T{0};
  using U = internal::Unsigned<T>;
  return internal::Wrap<T>(static_cast<U>(static_cast<U>(a) << b));
}

template <Integer T>
constexpr T ShiftRightLogical(T a, T b) {
  if (internal::ShiftOutOfRange(b)) return T{0};
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) >> b);
}

template <Integer T>
constexpr T ShiftRightArithmetic(T a, T b) {
  using S = std::make_signed_t<T>;
  const S value = static_cast<S>(a);
  if (internal::ShiftOutOfRange(b)) return static_cast<T>(value < 0 ? -1 : 0);
  return static_cast<T>(static_cast<S>(value >> b));
}

// A float's position in the total order, as a signed integer: the bits of
// a negative value with the magnitude bits flipped, so that integers order
// as the floats do and -0 < +0, NaNs at either end by sign.
template <Float T>
constexpr auto TotalOrderKey(T a) {
  using Int = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  const Int bits = std::bit_cast<Int>(a);
  return bits < 0 ? static_cast<Int>(bits ^ std::numeric_limits<Int>::max())
                  : bits;
}

// C++'s built-in comparisons are IEEE's (and compare bool as 0/1).
template <Element T>
constexpr bool Compare(ComparisonDirection direction, T a, T b) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kLt:
      return a < b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kGe:
      return a >= b;
  }
  return false;
}

// ---- Unary ----------------------------------------------------------------

template <Number T>
constexpr T Neg(T a) {
  if constexpr (Integer<T>) {
    return internal::Wrap<T>(internal::Unsigned<T>{0} -
                             internal::Unsigned<T>(a));
  }
  if constexpr (Float<T>) return -a;
}

template <Number T>
T Abs(T a) {
  if constexpr (Integer<T> && std::is_unsigned_v<T>) return a;
  if constexpr (Integer<T> && std::is_signed_v<T>) return a < 0 ? Neg(a) : a;
  if constexpr (Float<T>) return std::fabs(a);
}

template <Number T>
T Sign(T a) {
  if constexpr (Integer<T> && std::is_unsigned_v<T>) {
    return static_cast<T>(a != 0);
  }
  if constexpr (Integer<T> && std::is_signed_v<T>) {
    return static_cast<T>((a > 0) - (a < 0));
  }
  if constexpr (Float<T>) {
    if (std::isnan(a) || a == 0) return a;
    return a > 0 ? T{1} : T{-1};
  }
}

template <Logical T>
constexpr T Not(T a) {
  if constexpr (Pred<T>) return !a;
  if constexpr (Integer<T>) return static_cast<T>(~a);
}

// Counted on the two's complement bits; count-leading-zeros(0) is the bit
// width.
template <Integer T>
constexpr T PopulationCount(T a) {
  return static_cast<T>(std::popcount(static_cast<std::make_unsigned_t<T>>(a)));
}

template <Integer T>
constexpr T Clz(T a) {
  return static_cast<T>(
      std::countl_zero(static_cast<std::make_unsigned_t<T>>(a)));
}

template <Float T>
T Exp(T a) {
  if constexpr (std::same_as<T, float>) return float32_math::Exp(a);
  return std::exp(a);
}
template <Float T>
T Log(T a) {
  if constexpr (std::same_as<T, float>) return float32_math::Log(a);
  return std::log(a);
}
template <Float T>
T Sqrt(T a) {
  return std::sqrt(a);
}
template <Float T>
T Rsqrt(T a) {
  return T{1} / std::sqrt(a);
}
template <Float T>
T Tanh(T a) {
  if constexpr (std::same_as<T, float>) return float32_math::Tanh(a);
  return std::tanh(a);
}
template <Float T>
T Logistic(T a) {
  if constexpr (std::same_as<T, float>) return float32_math::Logistic(a);
  return T{1} / (T{1} + std::exp(-a));
}
template <Float T>
T Floor(T a) {
  return std::floor(a);
}
template <Element T>
constexpr T Copy(T a) {
  return a;
}
// libm's, in both backends (the JIT calls the same functions), so the
// results are glibc's: within its documented error of the exact value.
template <Float T>
T Sin(T a) {
  return std::sin(a);
}
template <Float T>
T Cos(T a) {
  return std::cos(a);
}
template <Float T>
T Tan(T a) {
  return std::tan(a);
}
template <Float T>
T Expm1(T a) {
  return std::expm1(a);
}
template <Float T>
T Log1p(T a) {
  return std::log1p(a);
}
template <Float T>
T Cbrt(T a) {
  return std::cbrt(a);
}
template <Float T>
T Erf(T a) {
  return std::erf(a);
}
template <Float T>
T Asin(T a) {
  return std::asin(a);
}
template <Float T>
T Acos(T a) {
  return std::acos(a);
}
template <Float T>
T Sinh(T a) {
  return std::sinh(a);
}
template <Float T>
T Cosh(T a) {
  return std::cosh(a);
}
template <Float T>
T Asinh(T a) {
  return std::asinh(a);
}
template <Float T>
T Acosh(T a) {
  return std::acosh(a);
}
template <Float T>
T Atan(T a) {
  return std::atan(a);
}
template <Float T>
T Atan2(T y, T x) {
  return std::atan2(y, x);
}
// Halves round away from zero (round-nearest-afz) or to even
// (round-nearest-even; the default rounding mode, which mxla never changes).
template <Float T>
T Round(T a) {
  return std::round(a);
}
template <Float T>
T RoundNearestEven(T a) {
  return std::nearbyint(a);
}
template <Float T>
T Ceil(T a) {
  return std::ceil(a);
}

// ---- Convert --------------------------------------------------------------

template <typename T>
concept Storable = Element<T> || kIsNarrowFloat<T> || kIsSubByteInt<T>;

// x rounded to f32 to odd: the nearest f32 toward zero or away from it,
// whichever has an odd last bit, unless x is exact (or NaN). Rounding that
// once more to a format of at most 22 bits of precision gives what one
// rounding of x would (ml_dtypes' ConvertFrom uses the same trick).
inline float RoundToOddF32(double x) {
  const float narrow = static_cast<float>(x);
  const uint32_t bits = std::bit_cast<uint32_t>(narrow);
  if (static_cast<double>(narrow) == x || std::isnan(x) || (bits & 1u)) {
    return narrow;
  }
  const bool rounded_down =
      std::fabs(x) > std::fabs(static_cast<double>(narrow));
  return std::bit_cast<float>(rounded_down ? bits + 1u : bits - 1u);
}

template <Storable To, Storable From>
To Convert(From x) {
  if constexpr (kIsNarrowFloat<From>) {
    return Convert<To>(static_cast<float>(x));
  } else if constexpr (kIsSmallFloat<To> && std::is_same_v<From, double>) {
    // XLA's Literal::Convert static_casts, and ml_dtypes converts a double
    // to an f8/f4 type directly (ConvertImpl<double, To>): one rounding.
    // Through a round-to-nearest f32 it would round twice (and a tiny f64
    // would be 0, NaN in f8e8m0fnu, not 2^-127). f16 and bf16 do go through
    // f32, as Eigen's casts do.
    return To(RoundToOddF32(x));
  } else if constexpr (kIsNarrowFloat<To>) {
    return To(Convert<float>(x));
  } else if constexpr (kIsSubByteInt<From>) {
    return Convert<To>(x.value());
  } else if constexpr (kIsSubByteInt<To>) {
    if constexpr (Float<From>) {
      // Saturating at the narrow type's own bounds, NaN -> 0, as into any
      // integer type (not into 32 bits, then wrapped).
      if (std::isnan(x)) return To(0);
      if (x <= static_cast<From>(To::kMin)) return To(To::kMin);
      if (x >= static_cast<From>(To::kMax)) return To(To::kMax);
      return To(static_cast<int64_t>(x));
    } else {
      return To(static_cast<int64_t>(x));  // wraps, as between integers
    }
  } else if constexpr (Pred<To>) {
    return x != From{0};
  } else if constexpr (Pred<From>) {
    return x ? To{1} : To{0};
  } else if constexpr (Float<From> && Integer<To>) {
    // min() is 0 or -2^digits and 2^digits the first value past max(),
    // both exact in From. Comparisons are false for NaN: it is tested first.
    constexpr From kMin = static_cast<From>(std::numeric_limits<To>::min());
    constexpr From kPastMax =
        static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * 2;
    if (std::isnan(x)) return To{0};
    if (x <= kMin) return std::numeric_limits<To>::min();
    if (x >= kPastMax) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// ---- Dispatch by opcode ---------------------------------------------------
// Generated from the op table: each unary and binary op's function above is
// named after its builder function (ir/hlo_ops.def).

// Calls `fn(op)`, where `op` is a callable `T(T)` implementing the unary
// `opcode` for T, and returns true; returns false when `opcode` is not a
// unary op or is not defined for T. Call it once per array, not per element.
template <typename T, typename Fn>
bool WithUnaryOp(HloOpcode opcode, Fn&& fn) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost) \
  case HloOpcode::e:                                  \
    if constexpr (requires(T a) { Name(a); }) {       \
      fn([](T a) -> T { return Name(a); });           \
      return true;                                    \
    }                                                 \
    return false;
#include "ir/hlo_ops.def"
    default:
      return false;
  }
}

// Like WithUnaryOp for the binary ops other than compare: `op` is a
// callable `T(T, T)` taking (lhs, rhs).
template <typename T, typename Fn>
bool WithBinaryOp(HloOpcode opcode, Fn&& fn) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost)   \
  case HloOpcode::e:                                     \
    if constexpr (requires(T a) { Name(a, a); }) {       \
      fn([](T a, T b) -> T { return Name(a, b); });      \
      return true;                                       \
    }                                                    \
    return false;
#include "ir/hlo_ops.def"
    default:
      return false;
  }
}

// ---- Whole arrays ---------------------------------------------------------
//
// The rules above applied element by element to dense literals whose
// dimensions all equal the result's (callers materialize broadcasts first).
// Mismatched shapes are InvalidArgument; an op the element type does not
// support (which shape inference rejects) is Internal.

absl::StatusOr<Literal> ApplyUnaryOp(HloOpcode opcode, const Literal& operand);
// Binary ops except compare; lhs and rhs have the same shape.
absl::StatusOr<Literal> ApplyBinaryOp(HloOpcode opcode, const Literal& lhs,
                                      const Literal& rhs);
// `total_order` (floats only): compare as TOTALORDER does, by the sign and
// magnitude bits (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN).
absl::StatusOr<Literal> ApplyCompare(ComparisonDirection direction,
                                     const Literal& lhs, const Literal& rhs,
                                     bool total_order = false);
// pred has pred elements; all three have the same dimensions.
absl::StatusOr<Literal> ApplySelect(const Literal& pred, const Literal& on_true,
                                    const Literal& on_false);
absl::StatusOr<Literal> ApplyConvert(const Literal& operand,
                                     PrimitiveType new_type);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_SCALAR_SEMANTICS_H_
