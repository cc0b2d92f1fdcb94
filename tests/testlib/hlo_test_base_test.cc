// RunAndCompare and the shared fixtures: the helper passes where the jit
// agrees with the interpreter, fails with a message that locates the
// difference where it does not, and says what went wrong on bad input.
#include "tests/testlib/hlo_test_base.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

RunAndCompareOptions ExactReductions() {
  RunAndCompareOptions options;
  options.compile.codegen.reassociate_reductions = false;
  return options;
}

TEST(RunAndCompareTest, PassesOnFixturesBitExactAndWithinTolerance) {
  for (const std::string& text :
       {fixtures::Softmax(7, 13), fixtures::LayerNorm(5, 9),
        fixtures::LogSumExpOverTwoTrailingDimensions()}) {
    EXPECT_TRUE(RunAndCompare(text, ExactReductions()));
    RunAndCompareOptions reassociated;
    reassociated.error = ErrorSpec{1e-5, 1e-6};
    EXPECT_TRUE(RunAndCompare(text, reassociated));
  }
}

TEST(RunAndCompareTest, PassesOnEveryElementTypeAndTuples) {
  EXPECT_TRUE(RunAndCompare(R"(HloModule types
ENTRY main {
  a = f32[3,4] parameter(0)
  b = f64[4] parameter(1)
  c = s32[3,1] parameter(2)
  d = s64[] parameter(3)
  p = pred[3,4] parameter(4)
  t = (f32[2], s32[2]) parameter(5)
  bf = f32[4] convert(b)
  ab = f32[3,4] add(a, bf), broadcast_dimensions={1}
  cs = s64[3,1] convert(c)
  cd = s64[3,1] multiply(cs, d)
  cf = f32[3,1] convert(cd)
  sum = f32[3,4] add(ab, cf)
  neg = f32[3,4] negate(sum)
  sel = f32[3,4] select(p, sum, neg)
  t0 = f32[2] get-tuple-element(t), index=0
  ROOT r = (f32[3,4], s64[3,1], f32[2]) tuple(sel, cd, t0)
})"));
}

// x = {1e8, 1, 1, ...}: adding the ones in order leaves 1e8 (each is below
// half an ulp), while vector accumulators sum them apart first.
TEST(RunAndCompareTest, FailsWhereTheJitDiffersAndNamesTheElement) {
  const std::string text = fixtures::ModuleWithReducers("sum") + R"(
ENTRY main {
  x = f32[1,4096] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[1] reduce(x, zero), dimensions={1}, to_apply=add_f32
})";
  Literal x(ShapeUtil::MakeShape(F32, {1, 4096}));
  for (float& value : x.data<float>()) value = 1;
  x.data<float>()[0] = 1e8f;
  ::testing::AssertionResult exact = RunAndCompare(text, {&x});
  EXPECT_FALSE(exact);
  EXPECT_THAT(exact.message(),
              AllOf(HasSubstr("RunAndCompare of module 'sum': jit against "
                              "the interpreter: results differ (bit-exact) "
                              "in f32[1]: value mismatch at index {0}: "
                              "expected 1e+08 (bits 0x4cbebc20), actual "),
                    ::testing::Not(HasSubstr("actual 1e+08"))));
  RunAndCompareOptions loose;
  loose.error = ErrorSpec{0, 1e-4};
  EXPECT_TRUE(RunAndCompare(text, {&x}, loose));
  loose.error = ErrorSpec{1, 1e-6};
  ::testing::AssertionResult tight = RunAndCompare(text, {&x}, loose);
  EXPECT_FALSE(tight);
  EXPECT_THAT(tight.message(),
              HasSubstr("results differ (within abs 1 + rel 1e-06) in f32[1]: "
                        "value mismatch at index {0}: expected 1e+08, actual"));
  EXPECT_TRUE(RunAndCompare(text, {&x}, ExactReductions()));
}

// The same sum from a constant: folding would compute it with the
// evaluator for the jit too, and the comparison could not fail. Fed as a
// parameter, the jit's vector accumulators show again.
TEST(RunAndCompareTest, ComputesWhatFoldingWouldTakeFromTheEvaluator) {
  std::string values = "1e8";
  for (int i = 1; i < 1024; ++i) values += ", 1";
  const std::string text = fixtures::ModuleWithReducers("folded") +
                           "\nENTRY main {\n  x = f32[1,1024] constant({{" +
                           values + R"(}})
  zero = f32[] constant(0)
  ROOT s = f32[1] reduce(x, zero), dimensions={1}, to_apply=add_f32
})";
  ::testing::AssertionResult reassociated = RunAndCompare(text);
  EXPECT_FALSE(reassociated);
  EXPECT_THAT(reassociated.message(),
              HasSubstr("value mismatch at index {0}: expected 1e+08"));
  EXPECT_TRUE(RunAndCompare(text, ExactReductions()));
}

TEST(FeedConstantsAsParametersTest, FeedsOnlyWhatWouldFold) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseAndVerifyModule(R"(
HloModule feed
ENTRY main {
  p = f32[4] parameter(0)
  c1 = f32[4] constant({1, 2, 3, 4})
  c2 = f32[4] constant({0.5, -1, 8, 0})
  a = f32[4] add(c1, c2)
  n = f32[4] negate(a)
  k = f32[] constant(2)
  b = f32[4] broadcast(k), dimensions={}
  m = f32[4] multiply(n, p)
  c3 = f32[4] constant({7, 7, 7, 7})
  q = f32[4] add(p, c3)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(m, b, q)
})"));
  Literal p = LiteralUtil::CreateR1<float>({1, -2, 3, 0.25});
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*module, {&p}));
  ASSERT_OK_AND_ASSIGN(FedModule fed, WithConstantsFed(*module, {&p}));
  // c1 and c2 (read by add, and through it by negate) become parameters 1
  // and 2; k (read by a broadcast, which does not fold) and c3 (read with
  // a parameter) stay constants.
  EXPECT_EQ(fed.fed(), 2);
  const HloComputation& entry = *fed.module->entry_computation();
  ASSERT_EQ(entry.num_parameters(), 3);
  EXPECT_EQ(entry.parameter_instruction(1)->name(), "c1.1");
  EXPECT_EQ(entry.parameter_instruction(2)->name(), "c2.1");
  EXPECT_EQ(fed.constants[0], LiteralUtil::CreateR1<float>({1, 2, 3, 4}));
  EXPECT_EQ(fed.constants[1], LiteralUtil::CreateR1<float>({0.5, -1, 8, 0}));
  int64_t constants = 0;
  for (const HloInstruction* instruction : entry.instructions()) {
    constants += instruction->opcode() == HloOpcode::kConstant;
  }
  EXPECT_EQ(constants, 2);
  EXPECT_OK(VerifyModule(*fed.module, VerifierMode::kBuilder));
  ASSERT_EQ(fed.arguments.size(), 3u);
  EXPECT_EQ(fed.arguments[0], &p);
  ASSERT_OK_AND_ASSIGN(Literal actual,
                       EvaluateModule(*fed.module, fed.arguments));
  EXPECT_EQ(actual, expected);
  // The original is untouched.
  EXPECT_EQ(module->entry_computation()->num_parameters(), 1);
}

TEST(CompareLiteralsTest, NamesShapeIndexAndBothValues) {
  Literal expected = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal actual = expected;
  EXPECT_TRUE(CompareLiterals(expected, actual, std::nullopt));
  actual.Set<float>({1, 2}, 6.5f);
  EXPECT_EQ(CompareLiterals(expected, actual, std::nullopt).message(),
            std::string("results differ (bit-exact) in f32[2,3]: value "
                        "mismatch at index {1,2}: expected 6 (bits "
                        "0x40c00000), actual 6.5 (bits 0x40d00000)"));
  EXPECT_TRUE(CompareLiterals(expected, actual, ErrorSpec{0.5, 0}));
  EXPECT_THAT(CompareLiterals(expected, actual, ErrorSpec{0.25, 0}).message(),
              HasSubstr("value mismatch at index {1,2}: expected 6, actual "
                        "6.5"));
  Literal longer = LiteralUtil::CreateR1<float>({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(CompareLiterals(expected, longer, std::nullopt).message(),
            std::string("results differ (bit-exact) in f32[2,3]: shape "
                        "mismatch: expected f32[2,3], actual f32[6]"));
}

// Bit-exact tells zeros and NaNs apart; an error spec does not.
TEST(CompareLiteralsTest, BitExactSeesSignedZerosAndNanEncodings) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Literal expected = LiteralUtil::CreateR1<float>({0.0f, nan});
  Literal zero = LiteralUtil::CreateR1<float>({-0.0f, nan});
  Literal negative_nan = LiteralUtil::CreateR1<float>({0.0f, -nan});
  EXPECT_THAT(CompareLiterals(expected, zero, std::nullopt).message(),
              HasSubstr("index {0}: expected 0 (bits 0x00000000), actual -0 "
                        "(bits 0x80000000)"));
  EXPECT_THAT(CompareLiterals(expected, negative_nan, std::nullopt).message(),
              HasSubstr("index {1}: expected nan (bits 0x7fc00000), actual"));
  EXPECT_TRUE(CompareLiterals(expected, zero, ErrorSpec{}));
  EXPECT_TRUE(CompareLiterals(expected, negative_nan, ErrorSpec{}));
}

TEST(CompareLiteralsTest, TuplesNameTheElement) {
  Literal expected =
      LiteralUtil::MakeTuple({LiteralUtil::CreateR0<int32_t>(1),
                              LiteralUtil::CreateR1<int64_t>({2, 3})});
  Literal actual =
      LiteralUtil::MakeTuple({LiteralUtil::CreateR0<int32_t>(1),
                              LiteralUtil::CreateR1<int64_t>({2, 4})});
  EXPECT_THAT(CompareLiterals(expected, actual, std::nullopt).message(),
              HasSubstr("in (s32[], s64[2]): tuple element 1: value mismatch "
                        "at index {1}: expected 3"));
  EXPECT_FALSE(CompareLiterals(expected, actual, ErrorSpec{10, 10}));
}

TEST(RunAndCompareTest, BadInputGivesClearMessages) {
  ::testing::AssertionResult unparsable =
      RunAndCompare("HloModule m\nENTRY main {\n  x = f32[2] parameter(0\n}");
  EXPECT_FALSE(unparsable);
  EXPECT_THAT(unparsable.message(),
              HasSubstr("RunAndCompare: parsing the HLO text: 4:1: "));
  ::testing::AssertionResult invalid = RunAndCompare(
      "HloModule m\nENTRY main {\n  x = f32[2] parameter(0)\n"
      "  ROOT n = f32[3] negate(x)\n}");
  EXPECT_FALSE(invalid);
  EXPECT_THAT(invalid.message(),
              AllOf(HasSubstr("RunAndCompare: verifying the module: "),
                    HasSubstr("'n'")));
  Literal one = LiteralUtil::CreateR1<float>({1, 2});
  ::testing::AssertionResult count = RunAndCompare(
      "HloModule two\nENTRY main {\n  x = f32[2] parameter(0)\n"
      "  y = f32[2] parameter(1)\n  ROOT s = f32[2] add(x, y)\n}",
      {&one});
  EXPECT_FALSE(count);
  EXPECT_EQ(std::string(count.message()),
            "RunAndCompare: 1 arguments for module 'two', whose entry 'main' "
            "has 2 parameters");
  Literal wrong = LiteralUtil::CreateR1<float>({1, 2, 3});
  ::testing::AssertionResult shape = RunAndCompare(
      "HloModule one\nENTRY main {\n  x = f32[2] parameter(0)\n"
      "  ROOT n = f32[2] negate(x)\n}",
      {&wrong});
  EXPECT_FALSE(shape);
  EXPECT_THAT(shape.message(),
              HasSubstr("the interpreter failed: INVALID_ARGUMENT: argument 0 "
                        "(parameter 'x') has shape f32[3]"));
}

TEST(MakeSeededArgumentsTest, DeterministicPerSeedWithEveryParameterShape) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseAndVerifyModule(R"(HloModule m
ENTRY main {
  a = f32[4,5] parameter(0)
  b = s32[7] parameter(1)
  c = (pred[3], f64[2,2]) parameter(2)
  ROOT t = (f32[4,5], s32[7], (pred[3], f64[2,2])) tuple(a, b, c)
})"));
  std::vector<Literal> first = MakeSeededArguments(*module, 1);
  ASSERT_EQ(first.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first[i].shape(),
              module->entry_computation()->parameter_instruction(i)->shape());
  }
  for (float value : first[0].data<float>()) {
    EXPECT_TRUE(value >= -2 && value < 2 && value != 0) << value;
  }
  for (int32_t value : first[1].data<int32_t>()) {
    EXPECT_TRUE(value >= -8 && value < 8) << value;
  }
  EXPECT_EQ(MakeSeededArguments(*module, 1), first);
  EXPECT_NE(MakeSeededArguments(*module, 2)[0], first[0]);
}

TEST(HloFixturesTest, ReducersAreNamedByOpAndType) {
  EXPECT_EQ(fixtures::MaxReducer("s32"), R"(
max_s32 {
  max_s32.lhs = s32[] parameter(0)
  max_s32.rhs = s32[] parameter(1)
  ROOT max_s32.root = s32[] maximum(max_s32.lhs, max_s32.rhs)
}
)");
  EXPECT_EQ(fixtures::MaxAndAddReducers(),
            fixtures::MaxReducer() + fixtures::AddReducer("f32"));
}

TEST(HloFixturesTest, ModulesVerifyAndRoundTrip) {
  for (const std::string& text :
       {fixtures::Softmax(3, 5), fixtures::LayerNorm(4, 6),
        fixtures::LogSumExpOverTwoTrailingDimensions()}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseAndVerifyModule(text));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                         ParseAndVerifyModule(module->ToString()));
    EXPECT_EQ(again->ToString(), module->ToString());
  }
  EXPECT_THAT(fixtures::LayerNorm(4, 6), HasSubstr("constant(0.16666667)"));
}

// The builder's softmax (implicit broadcasts) computes the text one's bits.
TEST(HloFixturesTest, BuiltSoftmaxEqualsTheTextSoftmax) {
  ASSERT_OK_AND_ASSIGN(XlaComputation built, fixtures::BuildSoftmax(6, 11));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> text,
                       ParseAndVerifyModule(fixtures::Softmax(6, 11)));
  std::vector<Literal> arguments = MakeSeededArguments(*text, 3);
  ASSERT_OK_AND_ASSIGN(Literal from_builder,
                       EvaluateModule(built.module(), Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal from_text,
                       EvaluateModule(*text, Pointers(arguments)));
  EXPECT_EQ(from_builder, from_text);
}

}  // namespace
}  // namespace mxla::testing
