// Split reductions give the same bits at every thread count: `mxla run`
// with MXLA_THREADS 1, 2 and 16 (the pool size is read once per process)
// on a column sum split into blocks of output columns and on sums to a
// scalar split into partial results over fixed chunks (float, reassociated;
// and integer).
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

using ::mxla::testing::ReadFile;
using ::mxla::testing::RunMxla;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::mxla::testing::WriteTempFile;

const std::string kSums = "HloModule sums" + fixtures::AddReducer("f32") +
                          fixtures::AddReducer("s32") + R"(
ENTRY main {
  x = f32[2048,2048] parameter(0)
  zero = f32[] constant(0)
  columns = f32[2048] reduce(x, zero), dimensions={0}, to_apply=add_f32
  total = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add_f32
  n = s32[2048,2048] convert(x)
  izero = s32[] constant(0)
  itotal = s32[] reduce(n, izero), dimensions={0,1}, to_apply=add_s32
  ROOT t = (f32[2048], f32[], s32[]) tuple(columns, total, itotal)
}
)";

TEST(ReductionThreadsTest, SplitReductionsDoNotDependOnTheThreadCount) {
  Literal x(ShapeUtil::MakeShape(F32, {2048, 2048}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] =
        std::sin(0.37f * i) * std::pow(10.0f, float(i % 7) - 2) * 1000;
  }
  absl::StatusOr<std::string> npy = SerializeNpy(x);
  ASSERT_OK(npy.status());
  const std::string input = WriteTempFile("sums_x.npy", *npy);
  const std::string module = WriteTempFile("sums.hlo", kSums);
  std::string first;
  for (const char* threads : {"1", "2", "16", "2"}) {
    ToolResult result =
        RunMxla(absl::StrCat("run ", module, " -i 0=", input),
                "", absl::StrCat("MXLA_THREADS=", threads));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ASSERT_FALSE(result.out.empty());
    if (first.empty()) {
      first = result.out;
    } else {
      EXPECT_EQ(result.out, first) << "MXLA_THREADS=" << threads;
    }
  }
}

}  // namespace
}  // namespace mxla
