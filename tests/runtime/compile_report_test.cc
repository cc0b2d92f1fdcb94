// The compile report's text: its stages with a total, then the kernels
// that took LLVM longest, slowest first, with their share of all kernels'
// time.
#include "runtime/compile_report.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

CompileReport ThreeKernels() {
  CompileReport report;
  report.stages = {{"optimize", 30}, {"link", 10}};
  report.kernels = {{"mxla.fusion", 1, 2, 2},
                    {"mxla.fusion.1", 4, 20, 10},
                    {"mxla.fusion.2", 1, 5, 1}};
  return report;
}

TEST(CompileReportTest, ListsTheSlowestKernelsFirstWithTheirShare) {
  const std::string text = ThreeKernels().ToString();
  EXPECT_THAT(text, HasSubstr("total                40.000 ms\n"));
  EXPECT_THAT(text, HasSubstr("3 distinct kernels, 40.000 ms of LLVM time"));
  // 30 of 40 ms, then 6, then 4.
  EXPECT_THAT(text, MatchesRegex("(.|\n)*mxla.fusion.1 +4 +20.000 +10.000 +"
                                 "75.0%\nmxla.fusion.2 +1 +5.000 +1.000 +"
                                 "15.0%\nmxla.fusion +1 +2.000 +2.000 +"
                                 "10.0%\n"));
}

TEST(CompileReportTest, ListsAsManyKernelsAsAsked) {
  const std::string text = ThreeKernels().ToString(/*slowest_kernels=*/1);
  EXPECT_THAT(text, HasSubstr("mxla.fusion.1 "));
  EXPECT_THAT(text, Not(HasSubstr("mxla.fusion.2")));
  EXPECT_THAT(ThreeKernels().ToString(0), Not(HasSubstr("distinct kernels")));
}

TEST(CompileReportTest, ACompileWithoutKernelsListsStagesOnly) {
  CompileReport report;
  report.stages = {{"verify", 1.5}};
  EXPECT_EQ(report.ToString(),
            "verify                1.500 ms\n"
            "total                 1.500 ms\n");
}

}  // namespace
}  // namespace mxla
