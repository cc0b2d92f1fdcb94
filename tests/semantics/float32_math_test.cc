// semantics/float32_math.h: the error bounds its header states, measured
// against the f64 <cmath> functions over a fixed sample of every f32 bit pattern,
// and the special values.
#include "semantics/float32_math.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace mxla::float32_math {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// |got - want| in units of the f32 ulp at `want` (subnormal ulp below the
// normal range). Infinities must match the rounded reference exactly.
double UlpError(float got, double want) {
  const float rounded = static_cast<float>(want);
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(rounded) || std::isinf(got)) {
    return got == rounded ? 0 : INFINITY;
  }
  int exponent = 0;
  std::frexp(rounded == 0 ? std::numeric_limits<float>::min() : rounded,
             &exponent);
  const double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Worst {
  double ulps = 0;
  float at = 0;
};

// Every `stride`-th bit pattern (NaNs excluded), with an odd stride so that
// all exponents and sign bits are visited.
template <typename Got, typename Want>
Worst MaxError(Got got, Want want, uint64_t stride = 4099) {
  Worst worst;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += stride) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(x)) continue;
    const double error = UlpError(got(x), want(static_cast<double>(x)));
    if (error > worst.ulps) worst = {error, x};
  }
  return worst;
}

TEST(Float32MathTest, ExpIsWithinOneUlp) {
  Worst worst = MaxError([](float x) { return Exp(x); },
                         [](double x) { return std::exp(x); });
  EXPECT_LE(worst.ulps, 1.0) << "at " << worst.at;
}

TEST(Float32MathTest, LogIsWithinOneUlp) {
  Worst worst = MaxError([](float x) { return Log(x); },
                         [](double x) { return std::log(x); });
  EXPECT_LE(worst.ulps, 1.0) << "at " << worst.at;
}

TEST(Float32MathTest, TanhIsWithinTwoUlps) {
  Worst worst = MaxError([](float x) { return Tanh(x); },
                         [](double x) { return std::tanh(x); });
  EXPECT_LE(worst.ulps, 2.0) << "at " << worst.at;
}

TEST(Float32MathTest, LogisticIsWithinTwoAndAHalfUlps) {
  Worst worst = MaxError([](float x) { return Logistic(x); },
                         [](double x) { return 1 / (1 + std::exp(-x)); });
  EXPECT_LE(worst.ulps, 2.5) << "at " << worst.at;
}

TEST(Float32MathTest, DenseNearTheInterestingRanges) {
  // Every pattern in [0.25, 4) and around the exp overflow/underflow edges.
  auto dense = [](float from, float to, auto check) {
    for (uint32_t b = std::bit_cast<uint32_t>(from);
         b < std::bit_cast<uint32_t>(to); b += 7) {
      check(std::bit_cast<float>(b));
    }
  };
  double worst = 0;
  dense(0.25f, 4.0f, [&](float x) {
    worst = std::max({worst, UlpError(Exp(x), std::exp(double(x))),
                      UlpError(Log(x), std::log(double(x))),
                      UlpError(Tanh(x), std::tanh(double(x)))});
  });
  dense(85.0f, 89.0f, [&](float x) {
    worst = std::max(worst, UlpError(Exp(x), std::exp(double(x))));
  });
  dense(87.0f, 104.0f, [&](float x) {  // negated: subnormal results
    worst = std::max(worst, UlpError(Exp(-x), std::exp(-double(x))));
  });
  EXPECT_LE(worst, 2.0);
}

TEST(Float32MathTest, SpecialValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float payload = std::bit_cast<float>(0x7fc12345u);
  EXPECT_EQ(Exp(0.0f), 1.0f);
  EXPECT_EQ(Exp(-0.0f), 1.0f);
  EXPECT_EQ(Exp(kInf), kInf);
  EXPECT_EQ(Exp(-kInf), 0.0f);
  EXPECT_EQ(Exp(89.0f), kInf);
  EXPECT_EQ(Exp(-104.0f), 0.0f);
  EXPECT_EQ(Exp(-103.0f), std::bit_cast<float>(1u));  // 2^-149
  EXPECT_EQ(Log(1.0f), 0.0f);
  EXPECT_EQ(Log(0.0f), -kInf);
  EXPECT_EQ(Log(-0.0f), -kInf);
  EXPECT_EQ(Log(kInf), kInf);
  EXPECT_EQ(std::bit_cast<uint32_t>(Log(-1.0f)), 0x7fc00000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(Log(-kInf)), 0x7fc00000u);
  EXPECT_EQ(Log(std::numeric_limits<float>::denorm_min()),
            static_cast<float>(std::log(double(
                std::numeric_limits<float>::denorm_min()))));
  EXPECT_EQ(Tanh(kInf), 1.0f);
  EXPECT_EQ(Tanh(-kInf), -1.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(Tanh(-0.0f)), 0x80000000u);
  EXPECT_EQ(Tanh(20.0f), 1.0f);
  EXPECT_EQ(Logistic(kInf), 1.0f);
  EXPECT_EQ(Logistic(-kInf), 0.0f);
  EXPECT_EQ(Logistic(0.0f), 0.5f);
  EXPECT_GT(Logistic(-100.0f), 0.0f);  // e / (1 + e): no overflow to 0
  using Function = float (*)(float);
  for (Function f : {Function(&Exp), Function(&Log), Function(&Tanh),
                     Function(&Logistic)}) {
    EXPECT_TRUE(std::isnan(f(nan)));
    EXPECT_EQ(std::bit_cast<uint32_t>(f(payload)), 0x7fc12345u);
  }
}

}  // namespace
}  // namespace mxla::float32_math
