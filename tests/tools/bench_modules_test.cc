// `mxla bench --filter M` (tools/bench_modules.h): modules chosen by their
// origin in SOURCES.md, not by name, on a fake real-HLO directory; each
// module's line (compile ms, run ms, rate) or why it has none; a module over
// its budget stopped, not waited for. The real ../shared/real-hlo is used
// only when present.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tool_runner.h"
#include "tools/bench_modules.h"

namespace mxla::tools {
namespace {

using ::mxla::testing::RunMxla;
using ::mxla::testing::StatusIs;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSources[] = R"(# Sources of the real HLO modules

| module | repository | path | commit |
|---|---|---|---|
| autotuner_test__1.hlo | openxla/xla | xla/backends/autotuner/autotuner_test.cc | abc |
| add_bench__1.hlo | openxla/xla | xla/backends/cpu/benchmarks/hlo/add_bench.hlo | abc |
| gemv_test__3.hlo | openxla/xla | xla/backends/cpu/tests/gemv_test.cc | abc |
| broken_bench__1.hlo | openxla/xla | xla/backends/cpu/benchmarks/hlo/broken_bench.hlo | abc |
| spin_bench__1.hlo | openxla/xla | xla/backends/cpu/benchmarks/hlo/spin_bench.hlo | abc |
| dot_benchmark_test__2.hlo | openxla/xla | xla/backends/cpu/benchmarks/dot_benchmark_test.cc | abc |
| missing_bench__1.hlo | openxla/xla | xla/backends/cpu/benchmarks/hlo/missing_bench.hlo | abc |
)";

constexpr char kAdd[] = R"(HloModule add_bench
ENTRY main {
  x = f32[1024] parameter(0)
  y = f32[1024] parameter(1)
  ROOT s = f32[1024] add(x, y)
})";

constexpr char kDot[] = R"(HloModule dot_bench
ENTRY main {
  x = f32[64,64] parameter(0)
  y = f32[64,64] parameter(1)
  ROOT d = f32[64,64] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

// A loop that never ends: only the budget stops it.
constexpr char kSpin[] = R"(HloModule spin_bench
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}
cond {
  p = s32[] parameter(0)
  ROOT yes = pred[] constant(true)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
})";

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A real-HLO directory with 7 modules listed, 5 of them from the
// benchmarks folder (one broken, one endless, one missing).
std::string FakeRealHlo() {
  const std::filesystem::path root = TempPath("fake-real-hlo");
  std::filesystem::remove_all(root);
  WriteFile(root / "SOURCES.md", kSources);
  WriteFile(root / "modules" / "autotuner_test__1.hlo", kAdd);
  WriteFile(root / "modules" / "add_bench__1.hlo", kAdd);
  WriteFile(root / "modules" / "gemv_test__3.hlo", kAdd);
  WriteFile(root / "modules" / "broken_bench__1.hlo", "HloModule broken\n");
  WriteFile(root / "modules" / "spin_bench__1.hlo", kSpin);
  WriteFile(root / "modules" / "dot_benchmark_test__2.hlo", kDot);
  return root.string();
}

std::vector<std::string> Names(const std::vector<BenchmarkModule>& modules) {
  std::vector<std::string> names;
  for (const BenchmarkModule& module : modules) names.push_back(module.name);
  return names;
}

TEST(BenchModulesTest, SelectsByOriginInSourcesOrder) {
  const std::string root = FakeRealHlo();
  ASSERT_OK_AND_ASSIGN(std::vector<BenchmarkModule> all,
                       FindBenchmarkModules(root, {}));
  EXPECT_THAT(Names(all), ElementsAre("add_bench__1", "broken_bench__1",
                                      "spin_bench__1", "dot_benchmark_test__2",
                                      "missing_bench__1"));
  EXPECT_EQ(all[0].path, root + "/modules/add_bench__1.hlo");
  EXPECT_EQ(all[0].origin, "xla/backends/cpu/benchmarks/hlo/add_bench.hlo");
  ASSERT_OK_AND_ASSIGN(std::vector<BenchmarkModule> some,
                       FindBenchmarkModules(root, {"dot", "add"}));
  EXPECT_THAT(Names(some), ElementsAre("add_bench__1", "dot_benchmark_test__2"));
  // A module outside the benchmarks folder is never chosen, even by name.
  EXPECT_THAT(FindBenchmarkModules(root, {"gemv"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lists no module from "
                                 "xla/backends/cpu/benchmarks/ whose name "
                                 "contains 'gemv'")));
  EXPECT_THAT(FindBenchmarkModules(root + "/nowhere", {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot read " + root +
                                 "/nowhere/SOURCES.md")));
  ASSERT_OK_AND_ASSIGN(std::string found, FindRealHloDirectory(root));
  EXPECT_EQ(found, root);
}

// Each module gets a line: timed, or why not; the endless one is stopped at
// its budget, and nothing else runs (no STREAM, no W workloads).
TEST(BenchModulesTest, CommandReportsEveryModule) {
  const std::string root = FakeRealHlo();
  ToolResult result = RunMxla(absl::StrCat(
      "bench --filter M --modules-dir ", root, " --runs 3 --module-budget 2"),
      "", "MXLA_MACHINE_LIMITS=100,10");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("5 modules"));
  EXPECT_THAT(result.out,
              HasSubstr("limits 100.0 GFLOP/s, 10.0 GB/s (MXLA_MACHINE_LIMITS)"));
  EXPECT_THAT(result.out, Not(HasSubstr("bandwidth")));
  EXPECT_THAT(result.out, Not(HasSubstr("autotuner_test")));
  EXPECT_THAT(result.out, Not(HasSubstr("gemv_test")));
  std::vector<std::string> lines = absl::StrSplit(result.out, '\n');
  auto line_of = [&](const std::string& name) {
    for (const std::string& line : lines) {
      if (line.find(name) != std::string::npos) return line;
    }
    ADD_FAILURE() << "no line for " << name << " in\n" << result.out;
    return std::string();
  };
  // compile ms, run ms, runs, GFLOP/s (none for an add), GB/s, % of limit.
  EXPECT_THAT(line_of("add_bench__1"),
              ContainsRegex("add_bench__1 +[0-9.]+ +[0-9.]+ +3 +- +[0-9.]+ "
                            "+[0-9.]+%$"));
  EXPECT_THAT(line_of("dot_benchmark_test__2"),
              ContainsRegex("dot_benchmark_test__2 +[0-9.]+ +[0-9.]+ +3 "
                            "+[0-9.]+ +[0-9.]+ +[0-9.]+%$"));
  EXPECT_THAT(line_of("broken_bench__1"), HasSubstr("error: "));
  EXPECT_THAT(line_of("spin_bench__1"),
              HasSubstr("stopped: over its 2 s budget before its first run "
                        "ended"));
  EXPECT_THAT(line_of("missing_bench__1"),
              HasSubstr("error: " + root +
                        "/modules/missing_bench__1.hlo is missing"));
}

// --opt-level reaches the child that compiles each module: its JSON record
// says the level it compiled at (the children once compiled at 3 whatever
// was asked).
TEST(BenchModulesTest, OptLevelReachesEachModule) {
  const std::string root = FakeRealHlo();
  const std::string json = TempPath("bench-modules-level.json");
  for (int level : {1, 3}) {
    ToolResult result = RunMxla(
        absl::StrCat("bench --filter M:add_bench --modules-dir ", root,
                     " --runs 1 --opt-level ", level, " --json ", json),
        "", "MXLA_MACHINE_LIMITS=100,10");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::ifstream in(json);
    const std::string text((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    EXPECT_THAT(text, HasSubstr(absl::StrCat("\"opt_level\":", level)))
        << text;
  }
}

// --profile puts each module's kernel table below its line.
TEST(BenchModulesTest, ProfileBelowEachModule) {
  const std::string root = FakeRealHlo();
  ToolResult result = RunMxla(
      absl::StrCat("bench --filter M:dot_benchmark --modules-dir ", root,
                   " --runs 1 --profile"),
      "", "MXLA_MACHINE_LIMITS=100,10");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("dot_benchmark_test__2"));
  EXPECT_THAT(result.out, HasSubstr("\n    profile: 1 run, "));
  EXPECT_THAT(result.out, HasSubstr("[dot]"));
  EXPECT_THAT(result.out, HasSubstr("(outside kernels)"));
}

TEST(BenchModulesTest, UnknownFilterAndMissingDirectory) {
  ToolResult no_dir = RunMxla(
      "bench --filter M --modules-dir " + TempPath("no-such-real-hlo"));
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.err, HasSubstr("no-such-real-hlo/SOURCES.md"));
  ToolResult empty = RunMxla("bench --filter M:");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_THAT(empty.err, HasSubstr("unknown workload 'M:'"));
}

// The real directory, when this checkout has one beside it: one small
// module of XLA's benchmarks runs.
TEST(BenchModulesTest, RealSumModuleWhenPresent) {
  absl::StatusOr<std::string> real = FindRealHloDirectory("");
  if (!real.ok()) GTEST_SKIP() << real.status().message();
  ToolResult result = RunMxla(
      "bench --filter M:sum_axis_1x4096x1024_bf16 --runs 2 --modules-dir " +
          *real,
      "", "MXLA_MACHINE_LIMITS=100,10");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              ContainsRegex("sum_axis_1x4096x1024_bf16__1 +[0-9.]+ +[0-9.]+ "
                            "+2 +- +[0-9.]+ +[0-9.]+%"));
}

}  // namespace
}  // namespace mxla::tools
