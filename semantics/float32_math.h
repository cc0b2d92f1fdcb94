// mxla's f32 exp, log, tanh and logistic, written once over an arithmetic
// backend so that the evaluator (backend: C++ floats, below) and the JIT
// (backend: LLVM IR values, codegen/llvm_float_ops.h) perform the very same
// IEEE operations in the same order and so agree bit for bit. They use only
// +, -, *, /, fma, comparisons, selects and integer bit operations:
// no table lookups and no branches, so a loop of them vectorizes.
//
// Accuracy against the correctly rounded result (measured over every 61st
// f32 and the special values by tests/semantics/float32_math_test.cc):
//   exp ≤ 1 ulp, log ≤ 1 ulp, tanh ≤ 2 ulp, logistic ≤ 2.5 ulp;
// subnormal results of exp are correctly scaled (one rounding). Special
// values: a NaN operand is returned unchanged; exp(-inf) = 0,
// exp(+inf) = +inf; log(±0) = -inf, log(x < 0) = quiet NaN, log(+inf) = +inf;
// tanh(±inf) = ±1, tanh(±0) = ±0; logistic(x) = 1 / (1 + e) for x ≥ 0
// and e / (1 + e) for x < 0, with e = exp(-|x|).
//
// Methods (standard ones, constants derived here):
//   exp:  x = k ln2 + r, |r| ≤ ln2/2 (k rounded by adding 1.5·2^23; two-
//         constant reduction with fma); e^r = 1 + r·g(r), g a degree-5 Chebyshev fit; 2^k
//         applied as two exact power-of-two factors so that results down to
//         the subnormals round once.
//   log:  x = 2^e m, m in [√2/2, √2); with f = m - 1 and s = f / (2 + f),
//         log(m) = f - (f²/2 - s (f²/2 + R(s²))), R the atanh series tail.
//   tanh: |x| < 0.55: odd Taylor polynomial to x^17; beyond: 1 - 2/(e^{2|x|}+1)
//         with the sign of x.
#ifndef MXLA_SEMANTICS_FLOAT32_MATH_H_
#define MXLA_SEMANTICS_FLOAT32_MATH_H_

#include <bit>
#include <cmath>
#include <cstdint>

namespace mxla::float32_math {

// The backend a function is written against. F is a float value, I an i32
// value, B a boolean. Comparisons are IEEE ordered (false with a NaN).
template <typename Ops>
concept Backend = requires(Ops& o, typename Ops::F f, typename Ops::I i,
                           typename Ops::B b) {
  { o.Float(1.0f) } -> std::same_as<typename Ops::F>;
  { o.Int(1) } -> std::same_as<typename Ops::I>;
  { o.Add(f, f) } -> std::same_as<typename Ops::F>;
  { o.Sub(f, f) } -> std::same_as<typename Ops::F>;
  { o.Mul(f, f) } -> std::same_as<typename Ops::F>;
  { o.Div(f, f) } -> std::same_as<typename Ops::F>;
  { o.Fma(f, f, f) } -> std::same_as<typename Ops::F>;
  { o.Neg(f) } -> std::same_as<typename Ops::F>;
  { o.Abs(f) } -> std::same_as<typename Ops::F>;
  { o.Less(f, f) } -> std::same_as<typename Ops::B>;
  { o.Equal(f, f) } -> std::same_as<typename Ops::B>;
  { o.IsNan(f) } -> std::same_as<typename Ops::B>;
  { o.Select(b, f, f) } -> std::same_as<typename Ops::F>;
  { o.SelectInt(b, i, i) } -> std::same_as<typename Ops::I>;
  { o.Bits(f) } -> std::same_as<typename Ops::I>;
  { o.FromBits(i) } -> std::same_as<typename Ops::F>;
  { o.IntAdd(i, i) } -> std::same_as<typename Ops::I>;
  { o.IntSub(i, i) } -> std::same_as<typename Ops::I>;
  { o.IntAnd(i, i) } -> std::same_as<typename Ops::I>;
  { o.ShiftLeft(i, 1) } -> std::same_as<typename Ops::I>;
  { o.ShiftRightArithmetic(i, 1) } -> std::same_as<typename Ops::I>;
  { o.IntToFloat(i) } -> std::same_as<typename Ops::F>;
};

// Horner's rule with fma, highest coefficient first.
template <Backend Ops, int N>
typename Ops::F Polynomial(Ops& o, typename Ops::F x,
                           const float (&coefficients)[N]) {
  typename Ops::F p = o.Float(coefficients[0]);
  // Unrolled, so that a C++ loop calling these functions has no inner loop
  // and GCC can vectorize it (the bench's softmax baseline relies on this).
#pragma GCC unroll 16
  for (int i = 1; i < N; ++i) p = o.Fma(p, x, o.Float(coefficients[i]));
  return p;
}

template <Backend Ops>
typename Ops::F Exp(Ops& o, typename Ops::F x) {
  using F = typename Ops::F;
  using I = typename Ops::I;
  // Beyond these every result is inf or 0; clamping keeps k in [-150, 128].
  F clamped = o.Select(o.Less(x, o.Float(-104.0f)), o.Float(-104.0f), x);
  clamped = o.Select(o.Less(o.Float(89.0f), clamped), o.Float(89.0f), clamped);
  // k = round(x / ln2) by the shifter trick: adding 1.5 * 2^23 rounds to an
  // integer and leaves k in the low bits of `shifted` (bits 0x4b400000 + k).
  const F shifter = o.Float(0x1.8p23f);
  F shifted = o.Fma(clamped, o.Float(1.44269502162933349609375f), shifter);
  F k = o.Sub(shifted, shifter);
  // ln2 = 0x1.62e43p-1 + 0x1.05c61p-29 (to 48 bits).
  F r = o.Fma(o.Neg(k), o.Float(0x1.62e43p-1f), clamped);
  r = o.Fma(o.Neg(k), o.Float(-0x1.05c61p-29f), r);
  // e^r = 1 + r g(r) on |r| <= ln2/2, g a degree-5 Chebyshev fit of
  // (e^r - 1) / r (relative error 1.1e-8); the exact 1 added last keeps
  // the rounding of the coefficients away from the result's leading bits.
  static constexpr float kExpm1OverR[] = {0x1.6d4316p-10f, 0x1.123d82p-7f,
                                          0x1.5554eap-5f,  0x1.55547cp-3f,
                                          0x1.0p-1f,       0x1.0p+0f};
  F p = o.Fma(Polynomial(o, r, kExpm1OverR), r, o.Float(1.0f));
  // 2^k = 2^k1 * 2^k2 with k1 = k >> 1 and both halves normal, so the
  // product is exact until the last multiply, which rounds once (also into
  // subnormals). From the bits of `shifted`: (bits >> 1) = 0x25a00000 + k1
  // and bits - (bits >> 1) = 0x25a00000 + k2.
  I bits = o.Bits(shifted);
  I half = o.ShiftRightArithmetic(bits, 1);
  I exponent_bias = o.Int(127 - 0x25a00000);
  F scale1 = o.FromBits(o.ShiftLeft(o.IntAdd(half, exponent_bias), 23));
  F scale2 = o.FromBits(
      o.ShiftLeft(o.IntAdd(o.IntSub(bits, half), exponent_bias), 23));
  F result = o.Mul(o.Mul(p, scale1), scale2);
  return o.Select(o.IsNan(x), x, result);
}

template <Backend Ops>
typename Ops::F Log(Ops& o, typename Ops::F x) {
  using F = typename Ops::F;
  using I = typename Ops::I;
  // Subnormals are scaled into the normal range first.
  auto subnormal = o.Less(x, o.Float(0x1p-126f));
  F scaled = o.Select(subnormal, o.Mul(x, o.Float(0x1p23f)), x);
  I exponent_bias = o.SelectInt(subnormal, o.Int(-23), o.Int(0));
  // Split around √2/2 (0x3f3504f3) so that m lands in [√2/2, √2).
  I shifted = o.IntSub(o.Bits(scaled), o.Int(0x3f3504f3));
  I e = o.IntAdd(o.ShiftRightArithmetic(shifted, 23), exponent_bias);
  F m = o.FromBits(
      o.IntAdd(o.IntAnd(shifted, o.Int(0x007fffff)), o.Int(0x3f3504f3)));
  F f = o.Sub(m, o.Float(1.0f));  // exact (Sterbenz)
  F s = o.Div(f, o.Add(o.Float(2.0f), f));
  F z = o.Mul(s, s);
  // 2 atanh(s) = 2s + s R(z), R(z) = 2z/3 + 2z²/5 + ... + 2z⁵/11.
  static constexpr float kAtanhTail[] = {2.0f / 11, 2.0f / 9, 2.0f / 7,
                                         2.0f / 5, 2.0f / 3, 0.0f};
  F tail = Polynomial(o, z, kAtanhTail);
  F half_f2 = o.Mul(o.Mul(o.Float(0.5f), f), f);
  F ef = o.IntToFloat(e);
  // ln2 = 0x1.62e3p-1 + 0x1.2fefa4p-17; fma keeps e times each exact.
  F low = o.Fma(ef, o.Float(0x1.2fefa4p-17f), o.Mul(s, o.Add(half_f2, tail)));
  F result = o.Fma(ef, o.Float(0x1.62e3p-1f), o.Sub(f, o.Sub(half_f2, low)));
  const F infinity = o.Float(INFINITY);
  result = o.Select(o.Equal(x, infinity), infinity, result);
  result = o.Select(o.Equal(x, o.Float(0.0f)), o.Neg(infinity), result);
  result = o.Select(o.Less(x, o.Float(0.0f)), o.Float(NAN), result);
  return o.Select(o.IsNan(x), x, result);
}

template <Backend Ops>
typename Ops::F Tanh(Ops& o, typename Ops::F x) {
  using F = typename Ops::F;
  F a = o.Abs(x);
  // Taylor coefficients of tanh(x)/x - 1 in x², from x² to x^16.
  static constexpr float kOddTaylor[] = {
      6404582.0f / 10854718875.0f, -929569.0f / 638512875.0f,
      21844.0f / 6081075.0f,       -1382.0f / 155925.0f,
      62.0f / 2835.0f,             -17.0f / 315.0f,
      2.0f / 15.0f,                -1.0f / 3.0f};
  F x2 = o.Mul(x, x);
  F small = o.Fma(o.Mul(x, x2), Polynomial(o, x2, kOddTaylor), x);
  F e = Exp(o, o.Add(a, a));
  F large = o.Sub(o.Float(1.0f), o.Div(o.Float(2.0f), o.Add(e, o.Float(1.0f))));
  large = o.Select(o.Less(x, o.Float(0.0f)), o.Neg(large), large);
  F result = o.Select(o.Less(a, o.Float(0.55f)), small, large);
  // ±0 (the polynomial would turn -0 into +0) and NaN pass through.
  return o.Select(o.Equal(x, o.Float(0.0f)), x,
                  o.Select(o.IsNan(x), x, result));
}

template <Backend Ops>
typename Ops::F Logistic(Ops& o, typename Ops::F x) {
  using F = typename Ops::F;
  // e = exp(-|x|) never overflows: 1/(1+e) for x >= 0, e/(1+e) below.
  F one = o.Float(1.0f);
  F e = Exp(o, o.Neg(o.Abs(x)));
  F denominator = o.Add(one, e);
  F result = o.Div(o.Select(o.Less(x, o.Float(0.0f)), e, one), denominator);
  return o.Select(o.IsNan(x), x, result);
}

// The C++ backend: what the evaluator runs.
struct ScalarOps {
  using F = float;
  using I = int32_t;
  using B = bool;
  F Float(float v) { return v; }
  I Int(int32_t v) { return v; }
  F Add(F a, F b) { return a + b; }
  F Sub(F a, F b) { return a - b; }
  F Mul(F a, F b) { return a * b; }
  F Div(F a, F b) { return a / b; }
  F Fma(F a, F b, F c) { return std::fma(a, b, c); }
  F Neg(F a) { return -a; }
  F Abs(F a) { return std::fabs(a); }
  B Less(F a, F b) { return a < b; }
  B Equal(F a, F b) { return a == b; }
  B IsNan(F a) { return a != a; }
  F Select(B c, F a, F b) { return c ? a : b; }
  I SelectInt(B c, I a, I b) { return c ? a : b; }
  I Bits(F a) { return std::bit_cast<int32_t>(a); }
  F FromBits(I a) { return std::bit_cast<float>(a); }
  // Wrapping, like the IR's add/sub.
  I IntAdd(I a, I b) { return int32_t(uint32_t(a) + uint32_t(b)); }
  I IntSub(I a, I b) { return int32_t(uint32_t(a) - uint32_t(b)); }
  I IntAnd(I a, I b) { return a & b; }
  I ShiftLeft(I a, int n) { return int32_t(uint32_t(a) << n); }
  I ShiftRightArithmetic(I a, int n) { return a >> n; }
  F IntToFloat(I a) { return static_cast<float>(a); }
};

inline float Exp(float x) {
  ScalarOps o;
  return Exp(o, x);
}
inline float Log(float x) {
  ScalarOps o;
  return Log(o, x);
}
inline float Tanh(float x) {
  ScalarOps o;
  return Tanh(o, x);
}
inline float Logistic(float x) {
  ScalarOps o;
  return Logistic(o, x);
}

}  // namespace mxla::float32_math

#endif  // MXLA_SEMANTICS_FLOAT32_MATH_H_
