// `mxla bench --filter X` on a tiny buffer (timings are printed, never
// asserted): the in-process table with its four measurements, the bytes
// each moves and its JSON records; the comparison with gloo across 2
// processes when mxla is built with gloo, else the line saying it is not;
// and a buffer size it refuses.
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

using ::mxla::testing::RunMxla;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(BenchCollectivesTest, PrintsTheInProcessTableAgainstMemcpy) {
  const std::string json = TempPath("collectives.json");
  const ToolResult result = RunMxla(absl::StrCat(
      "bench --filter X --runs 2 --collective-bytes 4096 --json ", json));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("in-process all-reduce (sum) of f32[1024] (4096 "
                        "bytes) across 2 devices"));
  EXPECT_THAT(result.out, HasSubstr("median of 2 interleaved runs"));
  EXPECT_THAT(result.out, ContainsRegex("memcpy +1 +[0-9.]+ +[0-9.]+ +[0-9]+% "
                                        "+[0-9.]+  read 1, write 1 buffers"));
  EXPECT_THAT(result.out,
              ContainsRegex("memcpy, each thread one half +2 .* 100% .*read 1, "
                            "write 1 buffers"));
  EXPECT_THAT(result.out, ContainsRegex("all-reduce, communicator alone +2 "
                                        ".*read 2, write 2 buffers"));
  EXPECT_THAT(result.out,
              ContainsRegex("all-reduce, compiled module \\(RunReplicated\\) "
                            "+2 .*read 2, write 2 buffers"));
  // Nothing else runs: X is only run when named, and alone.
  EXPECT_THAT(result.out, Not(HasSubstr("triad")));
  std::ifstream in(json);
  const std::string records((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
  EXPECT_THAT(records, HasSubstr(R"({"kind":"collective","name":"all-reduce, )"
                                 R"(communicator alone","threads":2,)"
                                 R"("bytes":4096,)"));
#ifdef MXLA_HAVE_GLOO
  EXPECT_THAT(result.out, HasSubstr("all-reduce across 2 processes"));
  // Sizes from 4096 / 256 up to 4096, each 4x the last.
  EXPECT_THAT(result.out, ContainsRegex("\n +16 .*\n +64 .*\n +256 .*\n +1024 "
                                        ".*\n +4096 "));
  EXPECT_THAT(result.out, HasSubstr("results bit-equal to gloo's: yes"));
#else
  EXPECT_THAT(result.out, HasSubstr("all-reduce across processes: not "
                                    "measured, this mxla was built without "
                                    "gloo"));
#endif
}

TEST(BenchCollectivesTest, RefusesABufferOfOddHalves) {
  const ToolResult result =
      RunMxla("bench --filter X --runs 1 --collective-bytes 12");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("collectives: 12 bytes is not a positive "
                                    "multiple of 8 (two halves of f32)"));
}

}  // namespace
}  // namespace mxla
