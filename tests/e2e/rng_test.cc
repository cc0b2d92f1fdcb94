// rng: mxla's numbers (semantics/random_numbers.h) pinned by value, their
// ranges and moments per distribution and type, the shape rule's errors,
// and the JIT's expansion (expand-rngs) against the interpreter, also where
// inlining renames the rng (a call) and in a loop.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "passes/cse.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::ErrorSpec;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ROOT r = <shape> rng(a, b) with constant parameters `a` and `b`.
std::string Module(const std::string& type, const std::string& dims,
                   const std::string& a, const std::string& b,
                   const std::string& distribution) {
  return "HloModule t\nENTRY main {\n  a = " + type + "[] constant(" + a +
         ")\n  b = " + type + "[] constant(" + b + ")\n  ROOT r = " + type +
         "[" + dims + "] rng(a, b), distribution=" + distribution + "\n}\n";
}

// Compare the backends within `error` instead of bit for bit.
RunAndCompareOptions Within(ErrorSpec error) {
  RunAndCompareOptions options;
  options.error = error;
  return options;
}

template <typename T>
std::vector<double> Values(const Literal& literal) {
  std::vector<double> values;
  for (T x : literal.data<T>()) values.push_back(static_cast<double>(x));
  return values;
}

double Mean(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum / x.size();
}

double StandardDeviation(const std::vector<double>& x) {
  const double mean = Mean(x);
  double sum = 0;
  for (double v : x) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / x.size());
}

// The definition's first values, computed apart from mxla (a few lines of
// Python on the formulas of semantics/random_numbers.h).
TEST(RngTest, NumbersArePinnedByTheDefinition) {
  EXPECT_THAT(EvaluateAndCompare(Module("s32", "6", "0", "1000", "rng_uniform"))
                  .data<int32_t>(),
              ElementsAre(575, 836, 329, 425, 73, 280));
  EXPECT_THAT(EvaluateAndCompare(Module("f32", "4", "-1", "3", "rng_uniform"))
                  .data<float>(),
              ElementsAre(0.4307123124599457f, 0.7726647257804871f,
                          0.8682422041893005f, 2.736487627029419f));
}

TEST(RngTest, UniformFloatsFillTheHalfOpenRange) {
  const Literal f32 =
      EvaluateAndCompare(Module("f32", "200,500", "-1", "3", "rng_uniform"));
  const std::vector<double> x = Values<float>(f32);
  EXPECT_GE(*std::min_element(x.begin(), x.end()), -1.0);
  EXPECT_LT(*std::max_element(x.begin(), x.end()), 3.0);
  EXPECT_LT(*std::min_element(x.begin(), x.end()), -0.999);
  EXPECT_GT(*std::max_element(x.begin(), x.end()), 2.999);
  EXPECT_NEAR(Mean(x), 1.0, 0.02);
  EXPECT_NEAR(StandardDeviation(x), 4 / std::sqrt(12.0), 0.02);
  // Narrow types round in f64, then b itself is replaced by a.
  for (const char* type : {"f16", "bf16", "f64", "f8e4m3fn", "f8e5m2"}) {
    SCOPED_TRACE(type);
    const Literal narrow =
        EvaluateAndCompare(Module(type, "4000", "0", "1", "rng_uniform"));
    const Literal wide = semantics::ApplyConvert(narrow, F64).value();
    const std::vector<double> y = Values<double>(wide);
    EXPECT_GE(*std::min_element(y.begin(), y.end()), 0.0);
    EXPECT_LT(*std::max_element(y.begin(), y.end()), 1.0);
    // With 2 or 3 mantissa bits, the top of [0, 1) rounds to 1 and becomes
    // 0: a visible bias, as the definition says.
    if (std::string(type).rfind("f8", 0) != 0) {
      EXPECT_NEAR(Mean(y), 0.5, 0.02);
    }
  }
  // An empty range gives a.
  const Literal empty =
      EvaluateAndCompare(Module("f32", "8", "2", "2", "rng_uniform"));
  EXPECT_THAT(empty.data<float>(), ::testing::Each(2.0f));
}

TEST(RngTest, UniformIntegersHitEveryValueOfTheRange) {
  const Literal s32 =
      EvaluateAndCompare(Module("s32", "10000", "-5", "7", "rng_uniform"));
  const std::set<int32_t> seen(s32.data<int32_t>().begin(),
                               s32.data<int32_t>().end());
  EXPECT_EQ(seen, (std::set<int32_t>{-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6}));
  const Literal u8 =
      EvaluateAndCompare(Module("u8", "1000", "250", "255", "rng_uniform"));
  const std::set<uint8_t> bytes(u8.data<uint8_t>().begin(),
                                u8.data<uint8_t>().end());
  EXPECT_EQ(bytes, (std::set<uint8_t>{250, 251, 252, 253, 254}));
  // The whole of s64 but its top value, and sub-byte types.
  const Literal s64 =
      EvaluateAndCompare(Module("s64", "1000", "-9223372036854775808",
                                "9223372036854775807", "rng_uniform"));
  EXPECT_LT(Mean(Values<int64_t>(s64)), 1e18);
  EXPECT_GT(Mean(Values<int64_t>(s64)), -1e18);
  const Literal s4 =
      EvaluateAndCompare(Module("s4", "1000", "-8", "7", "rng_uniform"));
  const std::vector<double> nibbles =
      Values<int32_t>(semantics::ApplyConvert(s4, S32).value());
  EXPECT_EQ(*std::min_element(nibbles.begin(), nibbles.end()), -8);
  EXPECT_EQ(*std::max_element(nibbles.begin(), nibbles.end()), 6);
  // b <= a gives a; pred's [false, true) is all false.
  const Literal backwards =
      EvaluateAndCompare(Module("s32", "5", "3", "-3", "rng_uniform"));
  EXPECT_THAT(backwards.data<int32_t>(), ::testing::Each(3));
  const Literal pred =
      EvaluateAndCompare(Module("pred", "5", "false", "true", "rng_uniform"));
  EXPECT_THAT(pred.data<bool>(), ::testing::Each(false));
}

TEST(RngTest, NormalHasItsMeanAndStandardDeviation) {
  // log and cos of f64 may differ in their last bit between libm and the
  // JIT; rounded to f32 that is at most an ulp.
  const Literal x =
      EvaluateAndCompare(Module("f32", "100000", "2", "3", "rng_normal"), {},
                         Within(ErrorSpec{0, 1e-6}));
  const std::vector<double> values = Values<float>(x);
  EXPECT_NEAR(Mean(values), 2.0, 0.05);
  EXPECT_NEAR(StandardDeviation(values), 3.0, 0.05);
  const double beyond_two_sigma =
      std::count_if(values.begin(), values.end(),
                    [](double v) { return std::abs(v - 2) > 6; }) /
      static_cast<double>(values.size());
  EXPECT_NEAR(beyond_two_sigma, 0.0455, 0.005);
  EvaluateAndCompare(Module("f64", "3,7", "0", "1", "rng_normal"), {},
                     Within(ErrorSpec{0, 1e-12}));
  EvaluateAndCompare(Module("bf16", "64", "0", "1", "rng_normal"), {},
                     Within(ErrorSpec{0, 1e-2}));
}

TEST(RngTest, EachRngHasItsOwnNumbersEvenAfterCse) {
  const std::string text = R"(HloModule t
ENTRY main {
  a = f32[] constant(0)
  b = f32[] constant(1)
  first = f32[64] rng(a, b), distribution=rng_uniform
  second = f32[64] rng(a, b), distribution=rng_uniform
  ROOT pair = (f32[64], f32[64]) tuple(first, second)
})";
  const Literal pair = EvaluateAndCompare(text);
  EXPECT_NE(pair.tuple_element(0), pair.tuple_element(1));
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  CsePass cse;
  EXPECT_FALSE(cse.Run(*module).value());
  // The same module gives the same numbers again.
  EXPECT_EQ(EvaluateModule(*module, {}).value(), pair);
}

TEST(RngTest, JitMatchesWhereInliningRenamesAndInLoops) {
  // The call's body is inlined by the JIT's passes and its instructions
  // renamed; the numbers come from the name the module was read with.
  EXPECT_TRUE(RunAndCompare(R"(HloModule t
draw {
  lo = f32[] parameter(0)
  hi = f32[] parameter(1)
  ROOT r = f32[3,5] rng(lo, hi), distribution=rng_uniform
}
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  one = f32[3,5] call(x, y), to_apply=draw
  two = f32[3,5] call(y, x), to_apply=draw
  ROOT sum = f32[3,5] add(one, two)
})"));
  EXPECT_TRUE(RunAndCompare(R"(HloModule t
body {
  state = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  acc = f32[8] get-tuple-element(state), index=1
  zero = f32[] constant(0)
  one = f32[] constant(1)
  noise = f32[8] rng(zero, one), distribution=rng_normal
  next = f32[8] add(acc, noise)
  step = s32[] constant(1)
  j = s32[] add(i, step)
  ROOT out = (s32[], f32[8]) tuple(j, next)
}
cond {
  state = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(4)
  ROOT more = pred[] compare(i, n), direction=LT
}
ENTRY main {
  start = s32[] constant(0)
  x = f32[8] parameter(0)
  init = (s32[], f32[8]) tuple(start, x)
  ROOT loop = (s32[], f32[8]) while(init), condition=cond, body=body
})",
                            [] {
                              RunAndCompareOptions options;
                              options.error = ErrorSpec{1e-6, 1e-6};
                              return options;
                            }()));
}

TEST(RngTest, ShapeRuleErrors) {
  EXPECT_THAT(VerifyHloText(Module("s32", "4", "0", "9", "rng_normal")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng: Element type not supported. Expected "
                                 "element to be of floating point type for "
                                 "rng_normal; got s32[4].")));
  EXPECT_THAT(VerifyHloText(Module("f32", "4", "0", "1", "rng_poisson")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng: unknown distribution 'rng_poisson' "
                                 "(expected rng_uniform or rng_normal)")));
  EXPECT_THAT(VerifyHloText(R"(HloModule t
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[] constant(1)
  ROOT r = f32[4] rng(a, b), distribution=rng_uniform
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng: Expected scalar types for the two "
                                 "operands; got f32[2] and f32[].")));
  EXPECT_THAT(VerifyHloText(R"(HloModule t
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] constant(1)
  ROOT r = f16[4] rng(a, b), distribution=rng_uniform
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng: Expected the same element type for the "
                                 "result and the two operands; got f32[] and "
                                 "f32[] for f16[4].")));
  EXPECT_THAT(
      VerifyHloText(R"(HloModule t
ENTRY main {
  a = f32[] parameter(0)
  ROOT r = f32[4] rng(a, a)
})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("distribution")));
}

TEST(RngTest, BuilderFunctions) {
  XlaBuilder builder("rng");
  XlaOp zero = ConstantR0<float>(&builder, 0);
  XlaOp one = ConstantR0<float>(&builder, 1);
  XlaOp uniform = RngUniform(zero, one, ShapeUtil::MakeShape(F32, {16}));
  XlaOp normal = RngNormal(zero, one, ShapeUtil::MakeShape(F32, {16}));
  Add(uniform, normal);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_OK(computation.status());
  EXPECT_THAT(computation->module().ToString(),
              HasSubstr("distribution=rng_normal"));

  XlaBuilder bad("rng");
  XlaOp i = ConstantR0<int32_t>(&bad, 0);
  RngNormal(i, i, ShapeUtil::MakeShape(S32, {3}));
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("RngNormal(s32[], s32[], shape=s32[3])")));
}

}  // namespace
}  // namespace mxla
