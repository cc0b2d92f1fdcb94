// f16 and bf16 conversions: every 16-bit pattern round-trips through float,
// and rounding from float picks the nearest value (ties to even), checked
// against the neighbours of the result on fixed-seed random floats and on
// every tie and boundary that matters.
#include "ir/narrow_float.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace mxla {
namespace {

template <typename T>
bool IsNan(T value) {
  return std::isnan(static_cast<float>(value));
}

template <typename T>
void ExpectEveryPatternRoundTrips() {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    T value = T::FromBits(static_cast<uint16_t>(bits));
    T back(static_cast<float>(value));
    if (IsNan(value)) {
      // Quiet NaNs keep their bits; signalling ones are quieted.
      EXPECT_TRUE(IsNan(back)) << std::hex << bits;
      EXPECT_EQ(back.bits() & 0x8000, bits & 0x8000) << std::hex << bits;
    } else {
      EXPECT_EQ(back.bits(), bits) << std::hex << bits;
    }
  }
}

TEST(NarrowFloatTest, EveryHalfRoundTrips) {
  ExpectEveryPatternRoundTrips<Half>();
}
TEST(NarrowFloatTest, EveryBFloat16RoundTrips) {
  ExpectEveryPatternRoundTrips<BFloat16>();
}

// `rounded` is the nearest value of T to `value` (ties: even bits), or
// the infinity past the largest finite value when `value` rounds beyond it.
template <typename T>
::testing::AssertionResult IsNearest(float value, T rounded) {
  const double exact = value;
  const double got = static_cast<float>(rounded);
  const uint16_t bits = rounded.bits();
  for (int step : {-1, 1}) {
    const uint16_t neighbour_bits = static_cast<uint16_t>(bits + step);
    T neighbour = T::FromBits(neighbour_bits);
    // Stay within the same sign and skip NaN neighbours.
    if ((neighbour_bits & 0x8000) != (bits & 0x8000) || IsNan(neighbour)) {
      continue;
    }
    const double other = static_cast<float>(neighbour);
    if (std::isinf(got) && !std::isinf(other)) {
      // Overflow: only legitimate if the value is at least halfway from
      // the largest finite value to the next power-of-two step.
      const double ulp =
          other - static_cast<float>(
                      T::FromBits(static_cast<uint16_t>(neighbour_bits - 1)));
      if (std::fabs(exact) < std::fabs(other) + ulp / 2) {
        return ::testing::AssertionFailure()
               << value << " overflowed to inf from " << other;
      }
      continue;
    }
    if (std::isinf(other)) continue;
    const double d_got = std::fabs(got - exact);
    const double d_other = std::fabs(other - exact);
    if (d_other < d_got || (d_other == d_got && (bits & 1) != 0)) {
      return ::testing::AssertionFailure()
             << value << " rounded to " << got << " (bits 0x" << std::hex
             << bits << ") but " << other << " is nearer or the even tie";
    }
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
void ExpectRandomFloatsRoundToNearest(float scale_exponent_range) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_real_distribution<float> exponent(-scale_exponent_range,
                                                 scale_exponent_range);
  for (int i = 0; i < 200000; ++i) {
    const float value =
        std::ldexp(mantissa(rng), static_cast<int>(exponent(rng)));
    EXPECT_TRUE(IsNearest(value, T(value)));
  }
}

TEST(NarrowFloatTest, HalfRoundsToNearestEven) {
  ExpectRandomFloatsRoundToNearest<Half>(30);  // covers subnormals and overflow
  EXPECT_EQ(Half(65504.0f).bits(), 0x7bff);
  EXPECT_EQ(Half(65519.996f).bits(), 0x7bff);
  EXPECT_EQ(Half(65520.0f).bits(), 0x7c00);  // the tie goes to infinity
  EXPECT_EQ(Half(0x1p-24f).bits(), 0x0001);
  EXPECT_EQ(Half(0x1p-25f).bits(), 0x0000);      // tie to even (zero)
  EXPECT_EQ(Half(0x3p-25f).bits(), 0x0002);      // tie to even (two units)
  EXPECT_EQ(Half(0x1.ffcp-15f).bits(), 0x0400);  // carries into the normals
  EXPECT_EQ(Half(-0.0f).bits(), 0x8000);
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits(), 0x7c00);
  EXPECT_EQ(Half(-std::numeric_limits<float>::quiet_NaN()).bits(), 0xfe00);
  EXPECT_EQ(static_cast<float>(Half::FromBits(0x0001)), 0x1p-24f);
  EXPECT_EQ(static_cast<float>(Half::FromBits(0xfbff)), -65504.0f);
}

TEST(NarrowFloatTest, BFloat16RoundsToNearestEven) {
  ExpectRandomFloatsRoundToNearest<BFloat16>(126);
  // Every float in [0.5, 2) whose dropped bits are exactly a tie.
  for (uint32_t high = 0x3f000000; high < 0x40000000; high += 0x10000) {
    const float tie = std::bit_cast<float>(high | 0x8000u);
    EXPECT_TRUE(IsNearest(tie, BFloat16(tie)));
  }
  EXPECT_EQ(BFloat16(1.00390625f).bits(), 0x3f80);  // tie to even
  EXPECT_EQ(BFloat16(1.01171875f).bits(), 0x3f82);  // tie to even
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits(), 0x7f80);
  EXPECT_EQ(BFloat16(std::bit_cast<float>(0x7f800001u)).bits(), 0x7fc0);
  EXPECT_EQ(BFloat16(std::bit_cast<float>(0xffffffffu)).bits(), 0xffff);
  EXPECT_EQ(static_cast<float>(BFloat16::FromBits(0x4049)), 3.140625f);
}

}  // namespace
}  // namespace mxla
