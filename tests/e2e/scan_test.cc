// scan: XLA's order of the computation's parameters and results (input
// slices then carries; outputs then carries), is_reverse, outputs whose
// shape differs from the carry's, the shape rule's errors, and the JIT's
// while loop (expand-scans) against the interpreter.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

// The output (a row sum, f32[2]) differs from the carry (f32[2,2]).
constexpr char kRowSums[] = R"(HloModule scan
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
step {
  x = f32[2] parameter(0)
  c = f32[2,2] parameter(1)
  bx = f32[2,2] broadcast(x), dimensions={1}
  sum = f32[2,2] add(bx, c)
  zero = f32[] constant(0)
  out = f32[2] reduce(sum, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[2], f32[2,2]) tuple(out, sum)
}
ENTRY main {
  input = f32[2,2] parameter(0)
  init = f32[2,2] parameter(1)
  ROOT scan = (f32[2,2], f32[2,2]) scan(input, init), dimensions={0}, num_carries=1, is_associative=false, to_apply=step
}
)";

constexpr char kReverseCumulativeSum[] = R"(HloModule scan
step {
  x = f32[2] parameter(0)
  c = f32[2] parameter(1)
  s = f32[2] add(x, c)
  ROOT t = (f32[2], f32[2]) tuple(s, s)
}
ENTRY main {
  input = f32[2,3] parameter(0)
  init = f32[2] parameter(1)
  ROOT scan = (f32[2,3], f32[2]) scan(input, init), dimensions={1}, num_carries=1, is_reverse=true, to_apply=step
}
)";

TEST(ScanTest, InputSlicesThenCarriesInOrder) {
  const Literal input = LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}});
  const Literal zeros = LiteralUtil::CreateR2<float>({{0, 0}, {0, 0}});
  Literal result = EvaluateAndCompare(kRowSums, {&input, &zeros});
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR2<float>({{2, 4}, {8, 12}}));
  EXPECT_EQ(result.tuple_element(1),
            LiteralUtil::CreateR2<float>({{4, 6}, {4, 6}}));
}

TEST(ScanTest, ReverseRunsLastToFirstAndStacksInPlace) {
  const Literal input = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  const Literal zeros = LiteralUtil::CreateR1<float>({0, 0});
  Literal result = EvaluateAndCompare(kReverseCumulativeSum, {&input, &zeros});
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR2<float>({{6, 5, 3}, {15, 11, 6}}));
  EXPECT_EQ(result.tuple_element(1), LiteralUtil::CreateR1<float>({6, 15}));
}

// A scan over an empty dimension runs no step: empty outputs, the carry
// as it started.
TEST(ScanTest, AnEmptyDimensionKeepsTheInitialCarry) {
  std::string text = kReverseCumulativeSum;
  text.replace(text.find("input = f32[2,3]"), 16, "input = f32[2,0]");
  text.replace(text.find("(f32[2,3], f32[2]) scan"), 23,
               "(f32[2,0], f32[2]) scan");
  const Literal input(ShapeUtil::MakeShape(F32, {2, 0}));
  const Literal init = LiteralUtil::CreateR1<float>({7, -1});
  Literal result = EvaluateAndCompare(text, {&input, &init});
  EXPECT_EQ(result.tuple_element(0).shape(), ShapeUtil::MakeShape(F32, {2, 0}));
  EXPECT_EQ(result.tuple_element(1), init);
}

TEST(ScanTest, ShapeRuleErrors) {
  auto replace = [](std::string text, const std::string& from,
                    const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  const std::string base = kReverseCumulativeSum;
  EXPECT_THAT(VerifyHloText(replace(base, "num_carries=1", "num_carries=3")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("scan: num_carries=3 must be in [0, 2]")));
  EXPECT_THAT(VerifyHloText(replace(base, "dimensions={1}", "dimensions={0}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the computation must take (input slices..., "
                                 "carries...) (f32[3], f32[2])")));
  EXPECT_THAT(VerifyHloText(replace(replace(base, "tuple(s, s)", "tuple(s, x, x)"),
                             "(f32[2], f32[2]) tuple",
                             "(f32[2], f32[2], f32[2]) tuple")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("declared shape")));
  EXPECT_THAT(VerifyHloText(replace(base, "dimensions={1}", "dimensions={2}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("scan: dimension 2 is out of range for input "
                                 "0 f32[2,3]")));
}

}  // namespace
}  // namespace mxla
