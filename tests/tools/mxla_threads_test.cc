// Thread counts reach the tools from MXLA_THREADS and `mxla bench --threads`:
// anything but an integer from 1 to 1024 is a clear error (exit 1, naming
// the source and the value), never silently one thread.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

using ::mxla::testing::RunMxla;
using ::mxla::testing::ToolResult;
using ::mxla::testing::WriteTempFile;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kIota[] = R"(HloModule iota
ENTRY main {
  ROOT i = s32[4] iota(), iota_dimension=0
}
)";

void ExpectUserError(const ToolResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_THAT(result.err, StartsWith("error: "));
  EXPECT_THAT(result.err, HasSubstr(message));
}

TEST(MxlaThreadsTest, RunRejectsAnInvalidMxlaThreads) {
  std::string hlo = WriteTempFile("iota.hlo", kIota);
  for (const char* value : {"abc", "0", "-3", "1025", "4x", ""}) {
    for (const char* backend : {"jit", "interpreter"}) {
      SCOPED_TRACE(absl::StrCat("MXLA_THREADS='", value, "', ", backend));
      ExpectUserError(
          RunMxla(absl::StrCat("run ", hlo, " --backend=", backend), "",
                  absl::StrCat("MXLA_THREADS='", value, "'")),
          absl::StrCat("MXLA_THREADS='", value,
                       "' is not a thread count: expected an integer from 1 "
                       "to 1024"));
    }
  }
}

TEST(MxlaThreadsTest, RunAcceptsAValidMxlaThreads) {
  std::string hlo = WriteTempFile("iota.hlo", kIota);
  for (const char* value : {"1", "3", "1024"}) {
    ToolResult result = RunMxla(absl::StrCat("run ", hlo), "",
                                absl::StrCat("MXLA_THREADS=", value));
    EXPECT_EQ(result.exit_code, 0) << value << ": " << result.err;
    EXPECT_EQ(result.out, "s32[4] {0, 1, 2, 3}\n") << value;
  }
}

// Checked before anything is measured, so these return at once.
TEST(MxlaThreadsTest, BenchRejectsAnInvalidThreadCount) {
  for (const char* value : {"0", "-3", "1025"}) {
    SCOPED_TRACE(value);
    ExpectUserError(RunMxla(absl::StrCat("bench --threads=", value)),
                    absl::StrCat("--threads is ", value,
                                 ": a thread count must be from 1 to 1024"));
  }
  ToolResult not_a_number = RunMxla("bench --threads=abc");
  EXPECT_NE(not_a_number.exit_code, 0);
  EXPECT_THAT(not_a_number.err, HasSubstr("--threads"));
  ExpectUserError(RunMxla("bench", "", "MXLA_THREADS=abc"),
                  "MXLA_THREADS='abc' is not a thread count");
}

}  // namespace
}  // namespace mxla
