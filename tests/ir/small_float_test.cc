// The 8-bit and smaller floats: every encoding decodes to the value its
// format defines and encodes back to itself; rounding from f32 is to the
// nearest value (ties to even, checked against brute force over all
// encodings on fixed-seed random floats); overflow, infinities, NaN and -0
// follow each format's kind (ir/small_float.h).
#include "ir/small_float.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace mxla {
namespace {

using small_float_internal::BitsToFloat;
using small_float_internal::FloatToBits;

const SmallFloatFormat kFormats[] = {kF8E5M2,     kF8E4M3,     kF8E3M4,
                                     kF8E4M3FN,   kF8E4M3FNUZ, kF8E5M2FNUZ,
                                     kF8E4M3B11FNUZ, kF4E2M1FN};

uint32_t Encodings(const SmallFloatFormat& f) { return 1u << f.bits(); }

TEST(SmallFloatTest, EveryEncodingRoundTrips) {
  std::vector<SmallFloatFormat> formats(std::begin(kFormats), std::end(kFormats));
  formats.push_back(kF8E8M0FNU);
  for (const SmallFloatFormat& f : formats) {
    int nans = 0;
    for (uint32_t bits = 0; bits < Encodings(f); ++bits) {
      const float value = BitsToFloat(f, static_cast<uint8_t>(bits));
      if (std::isnan(value)) {
        ++nans;
        continue;
      }
      EXPECT_EQ(FloatToBits(f, value), bits) << f.bits() << " " << bits;
    }
    const int expected_nans =
        f.kind == SmallFloatKind::kIeee ? 2 * ((1 << f.mantissa_bits) - 1)
        : f.kind == SmallFloatKind::kFiniteNanAllOnes      ? 2
        : f.kind == SmallFloatKind::kFiniteNanNegativeZero ? 1
        : f.kind == SmallFloatKind::kExponentOnly          ? 1
                                                           : 0;
    EXPECT_EQ(nans, expected_nans) << f.exponent_bits << "e" << f.mantissa_bits;
  }
}

TEST(SmallFloatTest, LargestValuesAndSpecialEncodings) {
  auto value = [](const SmallFloatFormat& f, uint32_t bits) {
    return BitsToFloat(f, static_cast<uint8_t>(bits));
  };
  EXPECT_EQ(value(kF8E4M3FN, kF8E4M3FN.max_finite()), 448.0f);
  EXPECT_EQ(value(kF8E5M2, kF8E5M2.max_finite()), 57344.0f);
  EXPECT_EQ(value(kF8E4M3, kF8E4M3.max_finite()), 240.0f);
  EXPECT_EQ(value(kF8E3M4, kF8E3M4.max_finite()), 15.5f);
  EXPECT_EQ(value(kF8E4M3FNUZ, kF8E4M3FNUZ.max_finite()), 240.0f);
  EXPECT_EQ(value(kF8E5M2FNUZ, kF8E5M2FNUZ.max_finite()), 57344.0f);
  EXPECT_EQ(value(kF8E4M3B11FNUZ, kF8E4M3B11FNUZ.max_finite()), 30.0f);
  EXPECT_EQ(value(kF4E2M1FN, kF4E2M1FN.max_finite()), 6.0f);
  EXPECT_EQ(value(kF8E4M3FN, 0x01), std::ldexp(1.0f, -9));  // subnormal
  EXPECT_EQ(value(kF4E2M1FN, 0x1), 0.5f);
  EXPECT_EQ(value(kF8E5M2, 0x7c), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(value(kF8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(value(kF8E4M3FNUZ, 0x80)));
  EXPECT_EQ(value(kF8E4M3FN, 0x80), 0.0f);
  EXPECT_TRUE(std::signbit(value(kF8E4M3FN, 0x80)));  // -0
}

TEST(SmallFloatTest, OverflowInfinityNanAndNegativeZeroFollowTheKind) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // kIeee: past the largest value (after rounding) is inf; NaN is quiet.
  EXPECT_EQ(FloatToBits(kF8E5M2, 61440.0f), 0x7c);  // tie to even: inf
  EXPECT_EQ(FloatToBits(kF8E5M2, 59000.0f), 0x7b);
  EXPECT_EQ(FloatToBits(kF8E5M2, -1e30f), 0xfc);
  EXPECT_EQ(FloatToBits(kF8E5M2, nan), 0x7e);
  EXPECT_EQ(FloatToBits(kF8E5M2, -0.0f), 0x80);
  // fn: no infinity; overflow and inf are NaN (S.1111.111).
  EXPECT_EQ(FloatToBits(kF8E4M3FN, 464.0f), 0x7e);  // tie to even: 448
  EXPECT_EQ(FloatToBits(kF8E4M3FN, 470.0f), 0x7f);
  EXPECT_EQ(FloatToBits(kF8E4M3FN, -inf), 0xff);
  EXPECT_EQ(FloatToBits(kF8E4M3FN, -nan), 0xff);
  // fnuz: one NaN (0x80) and no -0.
  EXPECT_EQ(FloatToBits(kF8E4M3FNUZ, -0.0f), 0x00);
  EXPECT_EQ(FloatToBits(kF8E4M3FNUZ, -1e-10f), 0x00);
  EXPECT_EQ(FloatToBits(kF8E4M3FNUZ, inf), 0x80);
  EXPECT_EQ(FloatToBits(kF8E4M3FNUZ, -nan), 0x80);
  EXPECT_EQ(FloatToBits(kF8E4M3FNUZ, -1.0f), 0x80 | 0x40);
  // Finite only: saturates; a NaN is -0 (+0 for a negative NaN).
  EXPECT_EQ(FloatToBits(kF4E2M1FN, 7.0f), 0x7);
  EXPECT_EQ(FloatToBits(kF4E2M1FN, -inf), 0xf);
  EXPECT_EQ(FloatToBits(kF4E2M1FN, 5.0f), 0x6);   // tie between 4 and 6: 4
  EXPECT_EQ(FloatToBits(kF4E2M1FN, 0.25f), 0x0);  // tie between 0 and 0.5
  EXPECT_EQ(FloatToBits(kF4E2M1FN, 0.75f), 0x2);  // tie between 0.5 and 1
  EXPECT_EQ(FloatToBits(kF4E2M1FN, nan), 0x8);
  EXPECT_EQ(FloatToBits(kF4E2M1FN, -nan), 0x0);
}

// f8e8m0fnu: powers of two from 2^-127 (0x00) to 2^127 (0xfe), 0xff NaN;
// ml_dtypes' rounding (ties away from zero; an f32 subnormal above 2^-127
// is 2^-126) and NaN for what it cannot hold.
TEST(SmallFloatTest, ExponentOnlyFloatFollowsMlDtypes) {
  const SmallFloatFormat& f = kF8E8M0FNU;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(f.bits(), 8);
  EXPECT_EQ(BitsToFloat(f, 0x00), std::ldexp(1.0f, -127));
  EXPECT_EQ(BitsToFloat(f, 0x7f), 1.0f);
  EXPECT_EQ(BitsToFloat(f, 0xfe), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(BitsToFloat(f, 0xff)));
  EXPECT_EQ(FloatToBits(f, 1.0f), 0x7f);
  EXPECT_EQ(FloatToBits(f, 1.4999f), 0x7f);
  EXPECT_EQ(FloatToBits(f, 1.5f), 0x80);  // the tie goes up
  EXPECT_EQ(FloatToBits(f, 3.0f), 0x81);
  EXPECT_EQ(FloatToBits(f, 0.75f), 0x7f);
  EXPECT_EQ(FloatToBits(f, 0.7f), 0x7e);
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.0f, 127)), 0xfe);
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.5f, 127)), 0xff);  // past 2^127
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.0f, -126)), 0x01);
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.0f, -127)), 0x00);
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.25f, -127)), 0x01);
  EXPECT_EQ(FloatToBits(f, std::ldexp(1.0f, -140)), 0x00);
  for (float unheld : {0.0f, -0.0f, -1.0f, -1e-40f, inf, -inf, nan, -nan}) {
    EXPECT_EQ(FloatToBits(f, unheld), 0xff) << unheld;
  }
  EXPECT_EQ(f.Negated(0x7f), 0xffu);
  EXPECT_EQ(f.max_finite(), 0xfeu);
}

// The nearest encoding by brute force: the finite value closest to x, ties
// to the even encoding; beyond the largest value by more than half a step,
// the format's overflow encoding.
uint32_t Nearest(const SmallFloatFormat& f, float x) {
  uint32_t best = 0;
  double best_error = std::numeric_limits<double>::infinity();
  const double magnitude = std::fabs(static_cast<double>(x));
  for (uint32_t bits = 0; bits < f.sign_mask(); ++bits) {  // the positive ones
    const float v = BitsToFloat(f, static_cast<uint8_t>(bits));
    if (!std::isfinite(v)) continue;
    const double error = std::fabs(v - magnitude);
    const bool tie_to_even = error == best_error && (bits & 1) == 0;
    if (error < best_error || tie_to_even) {
      best = bits;
      best_error = error;
    }
  }
  const double largest = BitsToFloat(f, static_cast<uint8_t>(f.max_finite()));
  const double step = largest - BitsToFloat(f, static_cast<uint8_t>(f.max_finite() - 1));
  const bool overflows = magnitude > largest + step / 2 ||
                         (magnitude == largest + step / 2 && (f.max_finite() & 1));
  if (overflows) best = f.positive_infinity();
  return std::signbit(x) ? f.Negated(best) : best;
}

TEST(SmallFloatTest, RoundsToNearestEvenOnRandomFloats) {
  std::mt19937 rng(20261125);
  for (const SmallFloatFormat& f : kFormats) {
    const float largest = BitsToFloat(f, static_cast<uint8_t>(f.max_finite()));
    std::uniform_real_distribution<float> uniform(-1.2f * largest, 1.2f * largest);
    std::uniform_int_distribution<int> tiny_exponent(-30, 0);
    for (int i = 0; i < 4000; ++i) {
      float x = uniform(rng);
      if (i % 3 == 0) x = std::ldexp(x / largest, tiny_exponent(rng));
      ASSERT_EQ(FloatToBits(f, x), Nearest(f, x))
          << f.exponent_bits << "e" << f.mantissa_bits << " x=" << x;
    }
    // Every midpoint between neighbours is a tie.
    for (uint32_t bits = 0; bits + 1 < (f.sign_mask()); ++bits) {
      const float a = BitsToFloat(f, static_cast<uint8_t>(bits));
      const float b = BitsToFloat(f, static_cast<uint8_t>(bits + 1));
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      const float mid = (a + b) / 2;  // exact: a few bits wide
      EXPECT_EQ(FloatToBits(f, mid), Nearest(f, mid)) << mid;
      EXPECT_EQ(FloatToBits(f, -mid), Nearest(f, -mid)) << -mid;
    }
  }
}

}  // namespace
}  // namespace mxla
