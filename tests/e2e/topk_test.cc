// topk: the k largest (or smallest) along the last dimension with their
// indices, ties by index, floats in their total order (NaN above +inf,
// -0 below +0); the shape rule's errors; the JIT's stable sort and slices
// (expand-topk) against the interpreter.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string Module(const std::string& operand, const std::string& result,
                   const std::string& attributes) {
  return "HloModule t\nENTRY main {\n  x = " + operand +
         " parameter(0)\n  ROOT t = " + result + " topk(x), " + attributes +
         "\n}\n";
}

TEST(TopKTest, LargestAndSmallestWithTiesByIndex) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Literal x = LiteralUtil::CreateR2<float>(
      {{1, 3, 3, -0.0f, 0, 2}, {nan, inf, -inf, 5, 5, -1}});
  Literal largest = EvaluateAndCompare(
      Module("f32[2,6]", "(f32[2,3], s32[2,3])", "k=3, largest=true"), {&x});
  EXPECT_EQ(largest.tuple_element(1),
            LiteralUtil::CreateR2<int32_t>({{1, 2, 5}, {0, 1, 3}}));
  Literal smallest = EvaluateAndCompare(
      Module("f32[2,6]", "(f32[2,4], s32[2,4])", "k=4, largest=false"), {&x});
  // -0 goes before +0 in the total order.
  EXPECT_EQ(smallest.tuple_element(1),
            LiteralUtil::CreateR2<int32_t>({{3, 4, 0, 5}, {2, 5, 3, 4}}));
  const Literal ints = LiteralUtil::CreateR1<int32_t>({4, -7, 4, 9, 0});
  Literal top =
      EvaluateAndCompare(Module("s32[5]", "(s32[2], s32[2])", "k=2"), {&ints});
  EXPECT_EQ(top.tuple_element(0), LiteralUtil::CreateR1<int32_t>({9, 4}));
  EXPECT_EQ(top.tuple_element(1), LiteralUtil::CreateR1<int32_t>({3, 0}));
}

// XLA:CPU's TopK custom call reads as topk with largest=true and k from
// the result; another target or form stays a custom call (refused).
TEST(TopKTest, TopKCustomCallIsTopK) {
  const std::string text = R"(HloModule t
ENTRY main {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,2], s32[2,2]) custom-call(x), custom_call_target="TopK"
})";
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  EXPECT_THAT(module->ToString(), HasSubstr("topk(x), k=2, largest=true"));
  const Literal x =
      LiteralUtil::CreateR2<float>({{1, 5, 3, 5, 2}, {0, -1, 7, 2, 7}});
  Literal top = EvaluateAndCompare(text, {&x});
  EXPECT_EQ(top.tuple_element(0),
            LiteralUtil::CreateR2<float>({{5, 5}, {7, 7}}));
  EXPECT_EQ(top.tuple_element(1),
            LiteralUtil::CreateR2<int32_t>({{1, 3}, {2, 4}}));
  std::unique_ptr<HloModule> other = ParseHloModule(R"(HloModule t
ENTRY main {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,2], s32[2,2]) custom-call(x), custom_call_target="TopKx"
})")
                                         .value();
  EXPECT_THAT(VerifyModule(*other, VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("custom_call_target \"TopKx\" is not "
                                 "supported by mxla")));
}

TEST(TopKTest, ShapeRuleErrors) {
  EXPECT_THAT(VerifyHloText(Module("f32[4]", "(f32[5], s32[5])", "k=5")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("topk: k=5 must be in [0, 4] (the last "
                                 "dimension of f32[4]).")));
  EXPECT_THAT(VerifyHloText(Module("f32[]", "(f32[], s32[])", "k=0")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("topk: The input must have at least one "
                                 "dimension; got f32[].")));
  EXPECT_THAT(VerifyHloText(Module("f32[4]", "(f32[2], s32[2])", "k=2, largest=yes")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("topk: largest must be true or false; got "
                                 "yes")));
}

}  // namespace
}  // namespace mxla
