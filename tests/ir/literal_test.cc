// Literal: construction, access, text form, equality and Near.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/literal.h"
#include "ir/literal_text.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(LiteralTest, CreateAndAccess) {
  Literal matrix = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(matrix.shape(), ShapeUtil::MakeShape(F32, {2, 3}));
  EXPECT_EQ(matrix.Get<float>({1, 2}), 6);
  matrix.Set<float>({0, 1}, 20);
  EXPECT_EQ(matrix.data<float>()[1], 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(matrix.untyped_data()) % 64, 0u);
  Literal cube = LiteralUtil::CreateR3<int32_t>({{{1, 2}}, {{3, 4}}});
  EXPECT_EQ(cube.shape().ToString(), "s32[2,1,2]");
  EXPECT_EQ(cube.Get<int32_t>({1, 0, 1}), 4);
  Literal zeros(ShapeUtil::MakeShape(S64, {3}));
  EXPECT_EQ(zeros.data<int64_t>()[2], 0);
  EXPECT_EQ(LiteralUtil::One(F64).data<double>()[0], 1.0);
  EXPECT_EQ(LiteralUtil::Zero(PRED).data<bool>()[0], false);
}

TEST(LiteralTest, FromFlatChecksTheCount) {
  std::vector<float> values = {1, 2, 3};
  EXPECT_THAT(LiteralUtil::CreateFromFlatChecked<float>({2, 2}, values),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("f32[2,2]")));
  EXPECT_THAT(LiteralUtil::CreateFromFlatChecked<float>({-3}, values),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid dimension size")));
  ASSERT_OK_AND_ASSIGN(Literal literal,
                       LiteralUtil::CreateFromFlatChecked<float>({3, 1}, values));
  EXPECT_EQ(literal.Get<float>({2, 0}), 3);
}

TEST(LiteralTest, TextForms) {
  EXPECT_EQ(LiteralUtil::CreateR2<float>({{1, 2.5}, {-3, 4}}).ToString(),
            "f32[2,2] { {1, 2.5}, {-3, 4} }");
  EXPECT_EQ(LiteralUtil::CreateR1<int64_t>({7, -8}).ToString(), "s64[2] {7, -8}");
  EXPECT_EQ(LiteralUtil::CreateR0<bool>(true).ToString(), "pred[] true");
  EXPECT_EQ(LiteralUtil::CreateR1<bool>({true, false}).ToString(), "pred[2] {1, 0}");
  EXPECT_EQ(Literal(ShapeUtil::MakeShape(F32, {0})).ToString(), "f32[0] {}");
  EXPECT_EQ(Literal(ShapeUtil::MakeShape(F32, {2, 0})).ToString(), "f32[2,0] { {}, {} }");
  EXPECT_EQ(LiteralUtil::CreateR1<float>(
                {std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity(), NAN, 0.1f, 1e20f})
                .ToString(),
            "f32[5] {inf, -inf, nan, 0.1, 1e+20}");
  EXPECT_EQ(LiteralUtil::CreateR0<double>(0.1).ToString(), "f64[] 0.1");
  Literal tuple = LiteralUtil::MakeTuple(
      {LiteralUtil::CreateR0<float>(1), LiteralUtil::CreateR1<int32_t>({2, 3})});
  EXPECT_EQ(tuple.ToString(), "(f32[] 1, s32[2] {2, 3})");
  EXPECT_EQ(tuple.shape().ToString(), "(f32[], s32[2])");
}

// Counting values 0, 1, 2, ... of `dims`.
Literal Counting(std::vector<int64_t> dims) {
  Literal literal(ShapeUtil::MakeShape(S32, dims));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.data<int32_t>()[i] = static_cast<int32_t>(i);
  }
  return literal;
}

// Arrays of more than 1000 elements print as NumPy summarizes them: three
// entries at each end of every long dimension, one row per line.
TEST(LiteralTest, LargeArraysAreSummarized) {
  EXPECT_EQ(Counting({1000}).ToString().size(),
            Counting({1000}).ToFullString().size());  // at the threshold
  EXPECT_EQ(Counting({1001}).ToString(),
            "s32[1001] {0, 1, 2, ..., 998, 999, 1000}");
  EXPECT_EQ(Counting({100, 20}).ToString(),
            "s32[100,20] {\n"
            "  {0, 1, 2, ..., 17, 18, 19},\n"
            "  {20, 21, 22, ..., 37, 38, 39},\n"
            "  {40, 41, 42, ..., 57, 58, 59},\n"
            "  ...,\n"
            "  {1940, 1941, 1942, ..., 1957, 1958, 1959},\n"
            "  {1960, 1961, 1962, ..., 1977, 1978, 1979},\n"
            "  {1980, 1981, 1982, ..., 1997, 1998, 1999}\n"
            "}");
  EXPECT_EQ(Counting({2, 2, 300}).ToString(),
            "s32[2,2,300] {\n"
            "  {\n"
            "    {0, 1, 2, ..., 297, 298, 299},\n"
            "    {300, 301, 302, ..., 597, 598, 599}\n"
            "  },\n"
            "  {\n"
            "    {600, 601, 602, ..., 897, 898, 899},\n"
            "    {900, 901, 902, ..., 1197, 1198, 1199}\n"
            "  }\n"
            "}");
  // ToFullString prints everything, as the HLO text form does.
  const std::string full = Counting({1001}).ToFullString();
  EXPECT_EQ(full.substr(0, 20), "s32[1001] {0, 1, 2, ");
  EXPECT_NE(full.find(", 500, 501, "), std::string::npos);
  // Pred elements read True and False, as in NumPy.
  Literal mask(ShapeUtil::MakeShape(PRED, {1200}));
  for (int64_t i = 0; i < 1200; ++i) mask.data<bool>()[i] = i % 3 == 0;
  EXPECT_EQ(mask.ToString(),
            "pred[1200] {True, False, False, ..., True, False, False}");
  // Tuples summarize element by element.
  Literal tuple = LiteralUtil::MakeTuple({Counting({2000}), Counting({2})});
  EXPECT_EQ(tuple.ToString(),
            "(s32[2000] {0, 1, 2, ..., 1997, 1998, 1999}, s32[2] {0, 1})");
}

TEST(LiteralTest, EqualityIsBitwise) {
  Literal a = LiteralUtil::CreateR1<float>({1, NAN});
  Literal b = LiteralUtil::CreateR1<float>({1, NAN});
  EXPECT_EQ(a, b);  // Same NaN bits.
  EXPECT_NE(LiteralUtil::CreateR0<float>(0.0f), LiteralUtil::CreateR0<float>(-0.0f));
  EXPECT_NE(LiteralUtil::CreateR1<float>({1}), LiteralUtil::CreateR1<double>({1}));
  Literal copy = a;
  copy.data<float>()[0] = 2;
  EXPECT_NE(copy, a);
  EXPECT_EQ(a.data<float>()[0], 1);  // Copies are deep.
}

// A copy of a token has no buffer; comparing it must not pass null to
// memcmp (UBSan's nonnull check caught it in builder_fuzzer).
TEST(LiteralTest, TokensAndEmptyArraysCompareEqual) {
  Literal token(Shape(TOKEN, {}));
  Literal copy = token;
  EXPECT_EQ(copy, token);
  EXPECT_EQ(token, copy);
  EXPECT_EQ(LiteralUtil::MakeTuple({copy, token}),
            LiteralUtil::MakeTuple({token, Literal(copy)}));
  Literal empty(ShapeUtil::MakeShape(F32, {0}));
  EXPECT_EQ(empty, Literal(empty));
  EXPECT_NE(Literal(empty), copy);
}

// Exact except for NaN encodings: -0 and +0 differ, any two NaNs match.
TEST(LiteralTest, SameValuesIsBitwiseExceptForNaNEncodings) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Literal a = LiteralUtil::CreateR1<double>({nan, 1.5, 0.0});
  Literal b = LiteralUtil::CreateR1<double>({-nan, 1.5, 0.0});
  EXPECT_FALSE(a == b);
  EXPECT_OK(LiteralUtil::SameValues(a, b));
  Literal negative_zero = LiteralUtil::CreateR1<double>({nan, 1.5, -0.0});
  EXPECT_THAT(LiteralUtil::SameValues(a, negative_zero),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value mismatch at index {2}")));
  Literal not_nan = LiteralUtil::CreateR1<double>({1, 1.5, 0.0});
  EXPECT_THAT(LiteralUtil::SameValues(a, not_nan),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("index {0}")));
  EXPECT_THAT(LiteralUtil::SameValues(LiteralUtil::CreateR1<int32_t>({1, 2}),
                                      LiteralUtil::CreateR1<int32_t>({1, 3})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{1}")));
}

TEST(LiteralTest, NearToleratesAndReportsTheIndex) {
  Literal expected = LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}});
  Literal close = LiteralUtil::CreateR2<float>({{1, 2}, {3, 4.0001f}});
  EXPECT_OK(LiteralUtil::Near(expected, close, 1e-3, 0));
  EXPECT_THAT(LiteralUtil::Near(expected, close, 1e-6, 0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value mismatch at index {1,1}: expected 4")));
  EXPECT_THAT(LiteralUtil::Near(expected, LiteralUtil::CreateR1<float>({1}), 1, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("shape mismatch")));
  EXPECT_OK(LiteralUtil::Near(LiteralUtil::CreateR1<float>({NAN}),
                              LiteralUtil::CreateR1<float>({NAN}), 0, 0));
  // Integers compare exactly, even beyond double precision.
  EXPECT_FALSE(LiteralUtil::Near(LiteralUtil::CreateR1<int64_t>({(int64_t{1} << 60) + 1}),
                                 LiteralUtil::CreateR1<int64_t>({int64_t{1} << 60}), 1, 1)
                   .ok());
}

// Sizes from user input: an allocation that cannot succeed is
// ResourceExhausted, not a trap.
TEST(LiteralTest, CreateReportsExhaustedMemory) {
  Shape huge = ShapeUtil::MakeShape(F32, {int64_t{1} << 46});  // 256 TiB
  EXPECT_THAT(Literal::Create(huge),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("cannot allocate 281474976710656 bytes for a "
                                 "literal of shape f32[70368744177664]")));
  EXPECT_THAT(Literal::CreateForOverwrite(ShapeUtil::MakeTupleShape(
                  {ShapeUtil::MakeShape(F32, {2}), huge})),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("cannot allocate")));
  std::vector<float> none;
  EXPECT_OK(LiteralUtil::CreateFromFlatChecked<float>({0}, none).status());
  ASSERT_OK_AND_ASSIGN(Literal small, Literal::Create(ShapeUtil::MakeShape(S32, {3})));
  EXPECT_EQ(small, LiteralUtil::CreateR1<int32_t>({0, 0, 0}));
}

}  // namespace
}  // namespace mxla
