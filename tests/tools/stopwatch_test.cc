// How the tools print times (tools/stopwatch.h): three significant digits
// in the unit that puts the value in [1, 1000).
#include "tools/stopwatch.h"

#include "gtest/gtest.h"

namespace mxla::tools {
namespace {

TEST(FormatDurationTest, ThreeSignificantDigitsInTheFittingUnit) {
  EXPECT_EQ(FormatDuration(182e-9), "182 ns");
  EXPECT_EQ(FormatDuration(1.234e-6), "1.23 µs");
  EXPECT_EQ(FormatDuration(12.345e-6), "12.3 µs");
  EXPECT_EQ(FormatDuration(812.4e-6), "812 µs");
  EXPECT_EQ(FormatDuration(41.25e-3), "41.2 ms");
  EXPECT_EQ(FormatDuration(2.5), "2.50 s");
  EXPECT_EQ(FormatDuration(1e-9), "1.00 ns");
  EXPECT_EQ(FormatDuration(1e-6), "1.00 µs");
  // What printed "0.001 ms (min 0.000 ms)" before.
  EXPECT_EQ(FormatDuration(0.6e-6), "600 ns");
  EXPECT_EQ(FormatDuration(0.25e-9), "0.25 ns");
  EXPECT_EQ(FormatDuration(1234.0), "1234 s");
}

TEST(FormatDurationTest, RoundingUpMovesToTheNextUnit) {
  EXPECT_EQ(FormatDuration(999.4e-9), "999 ns");
  EXPECT_EQ(FormatDuration(999.6e-9), "1.00 µs");
  EXPECT_EQ(FormatDuration(9.996e-6), "10.0 µs");
  EXPECT_EQ(FormatDuration(99.96e-3), "100 ms");
  EXPECT_EQ(FormatDuration(999.7e-3), "1.00 s");
}

TEST(FormatDurationTest, NothingIsZero) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(-1e-3), "0 ns");
}

}  // namespace
}  // namespace mxla::tools
