// stochastic-convert: XLA's decomposition pinned on hand-picked values
// (the fraction against the random bits, signs, bounds, NaN), the rounding
// frequency, the shape rule's errors, and the JIT's expansion
// (expand-stochastic-converts) against the interpreter.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Module(const std::string& operand, const std::string& random,
                   const std::string& result) {
  return "HloModule t\nENTRY main {\n  x = " + operand +
         " parameter(0)\n  r = " + random +
         " parameter(1)\n  ROOT s = " + result +
         " stochastic-convert(x, r)\n}\n";
}

TEST(StochasticConvertTest, FractionAgainstRandomBits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 2.25's fraction is 2^30 in 32 bits: random below it rounds up.
  const Literal x = LiteralUtil::CreateR1<float>(
      {2.25f, 2.25f, -2.25f, -2.25f, 7.0f, 300.0f, -300.0f, nan, -0.0f});
  const Literal r = LiteralUtil::CreateR1<uint32_t>(
      {(1u << 30) - 1, 1u << 30, 0, 1u << 30, 0, 0, 0, 0, 0});
  EXPECT_THAT(EvaluateAndCompare(Module("f32[9]", "u32[9]", "s8[9]"), {&x, &r})
                  .data<int8_t>(),
              ElementsAre(3, 2, -3, -2, 7, 127, -128, 0, 0));
  // bf16 with 16 random bits; s32's bounds as bf16 holds them.
  const Literal y =
      semantics::ApplyConvert(
          LiteralUtil::CreateR1<float>({0.5f, 0.5f, 3e9f, -3e9f}), BF16)
          .value();
  const Literal bits = LiteralUtil::CreateR1<uint16_t>({0x7fff, 0x8000, 0, 0});
  EXPECT_THAT(
      EvaluateAndCompare(Module("bf16[4]", "u16[4]", "s32[4]"), {&y, &bits})
          .data<int32_t>(),
      ElementsAre(1, 0, std::numeric_limits<int32_t>::max(),
                  std::numeric_limits<int32_t>::min()));
}

TEST(StochasticConvertTest, RoundsUpAsOftenAsTheFraction) {
  // Random values spread evenly over u32: 0.25 rounds up for a quarter.
  std::vector<float> x(4096, 0.25f);
  std::vector<uint32_t> r(4096);
  for (uint32_t i = 0; i < r.size(); ++i) r[i] = i << 20;
  const Literal quarters = LiteralUtil::CreateR1<float>(x);
  const Literal spread = LiteralUtil::CreateR1<uint32_t>(r);
  const Literal result = EvaluateAndCompare(
      Module("f32[4096]", "u32[4096]", "s64[4096]"), {&quarters, &spread});
  int64_t ups = 0;
  for (int64_t v : result.data<int64_t>()) ups += v;
  EXPECT_EQ(ups, 1024);
  // Seeded operands in f64 and f16.
  EXPECT_TRUE(RunAndCompare(Module("f64[33]", "u64[33]", "s16[33]")));
  EXPECT_TRUE(RunAndCompare(Module("f16[33]", "u16[33]", "s8[33]")));
}

TEST(StochasticConvertTest, ShapeRuleErrors) {
  EXPECT_THAT(VerifyHloText(Module("f32[4]", "s32[4]", "s32[4]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("stochastic-convert: Random numbers for "
                                 "stochastic convert must be unsigned integers "
                                 "of the operand's width, but got s32[4] for "
                                 "f32[4].")));
  EXPECT_THAT(VerifyHloText(Module("bf16[4]", "u32[4]", "s32[4]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("but got u32[4] for bf16[4].")));
  EXPECT_THAT(VerifyHloText(Module("f32[4]", "u32[4]", "u8[4]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("stochastic-convert: Stochastically "
                                 "converting from type f32 to type u8 is not "
                                 "implemented")));
  EXPECT_THAT(VerifyHloText(Module("f32[4]", "u32[2,2]", "s32[4]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("stochastic-convert: The random numbers "
                                 "u32[2,2] must have the operand's dimensions: "
                                 "f32[4].")));
}

}  // namespace
}  // namespace mxla
