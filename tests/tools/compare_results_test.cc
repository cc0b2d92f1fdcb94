// `mxla run --compare`'s arithmetic: equal values (infinities included) and
// NaN against NaN are no difference; a real difference, an infinity against
// a finite value and NaN against a number are reported and fail.
#include "tools/compare_results.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::tools {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(CompareResultsTest, EqualInfinitiesAndNaNsAreNoDifference) {
  Literal a = LiteralUtil::CreateR1<float>({kInf, -kInf, kNaN, 1.5f});
  Literal b = LiteralUtil::CreateR1<float>({kInf, -kInf, -kNaN, 1.5f});
  EXPECT_EQ(LargestDifference(a, b), 0);
  EXPECT_OK(CompareResults(a, b, 1e-5));
}

TEST(CompareResultsTest, RealDifferencesAreReportedAndFail) {
  Literal a = LiteralUtil::CreateR1<float>({1, 2, 3});
  Literal b = LiteralUtil::CreateR1<float>({1, 2.5f, 3});
  EXPECT_EQ(LargestDifference(a, b), 0.5);
  EXPECT_THAT(CompareResults(a, b, 1e-5),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("differ beyond tolerance 1e-05")));
  EXPECT_OK(CompareResults(a, b, 0.5));
}

TEST(CompareResultsTest, InfinityOrNaNAgainstANumberIsInfinite) {
  const float pairs[][2] = {{kInf, 1}, {1, -kInf}, {kInf, -kInf}, {kNaN, 0},
                            {2, kNaN}, {kNaN, kInf}};
  for (const auto& pair : pairs) {
    Literal a = LiteralUtil::CreateR1<float>({0, pair[0]});
    Literal b = LiteralUtil::CreateR1<float>({0, pair[1]});
    SCOPED_TRACE(a.ToString() + " vs " + b.ToString());
    EXPECT_TRUE(std::isinf(LargestDifference(a, b)));
    EXPECT_THAT(CompareResults(a, b, 1e30),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("differ beyond tolerance")));
  }
}

TEST(CompareResultsTest, TuplesCompareEveryElement) {
  std::vector<Literal> x, y;
  x.push_back(LiteralUtil::CreateR1<float>({kInf}));
  x.push_back(LiteralUtil::CreateR1<int32_t>({4, 5}));
  y.push_back(LiteralUtil::CreateR1<float>({kInf}));
  y.push_back(LiteralUtil::CreateR1<int32_t>({4, 7}));
  Literal a = LiteralUtil::MakeTuple(std::move(x));
  Literal b = LiteralUtil::MakeTuple(std::move(y));
  EXPECT_EQ(LargestDifference(a, b), 2);
  EXPECT_FALSE(CompareResults(a, b, 1e-5).ok());
}

}  // namespace
}  // namespace mxla::tools
