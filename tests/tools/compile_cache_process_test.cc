// The persistent compile cache across processes, through `mxla run
// --cache-dir`: a second process loads what the first stored; an entry
// corrupted in any way is recompiled, with a warning, and replaced;
// concurrent processes leave one whole entry; a changed option or CPU
// feature set misses; an unwritable directory only warns; a directory
// others can write, or an entry someone else owns, is not used.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

using ::mxla::testing::RunMxla;
using ::mxla::testing::RunMxlaConcurrently;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::mxla::testing::WriteTempFile;
using ::testing::HasSubstr;
using ::testing::Not;

// Needs no inputs: a reduction of tanh(exp(iota)), a dot and a while loop
// (whose body compiles as a program of its own, cached too).
constexpr char kModule[] = R"(HloModule cached
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  st = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[16] get-tuple-element(st), index=1
  h = f32[] constant(0.5)
  hb = f32[16] broadcast(h), dimensions={}
  w = f32[16] multiply(v, hb)
  ROOT out = (s32[], f32[16]) tuple(j, w)
}
ENTRY main {
  x = f32[16,32] iota(), iota_dimension=1
  s = f32[] constant(0.03125)
  sb = f32[16,32] broadcast(s), dimensions={}
  xs = f32[16,32] multiply(x, sb)
  t = f32[16,32] tanh(xs)
  y = f32[32,16] iota(), iota_dimension=0
  sc = f32[32,16] broadcast(s), dimensions={}
  yb = f32[32,16] multiply(y, sc)
  d = f32[16,16] dot(t, yb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[16] reduce(d, z), dimensions={1}, to_apply=add
  i0 = s32[] constant(0)
  st = (s32[], f32[16]) tuple(i0, r)
  loop = (s32[], f32[16]) while(st), condition=cond, body=body
  ROOT v = f32[16] get-tuple-element(loop), index=1
}
)";

constexpr char kLoaded[] = "(loaded from the compile cache)";

struct CacheRun {
  std::string hlo = WriteTempFile("cached.hlo", kModule);
  std::string dir;
  explicit CacheRun(const std::string& name) : dir(TempPath(name)) {
    fs::remove_all(dir);
  }
  ToolResult Run(const std::string& extra = "",
                 const std::string& environment = "") const {
    return RunMxla(absl::StrCat("run ", hlo, " --repeat 1 --cache-dir ", dir,
                                " ", extra),
                   "", environment);
  }
  std::vector<fs::path> Files() const {
    std::vector<fs::path> files;
    for (const auto& file : fs::directory_iterator(dir)) {
      files.push_back(file.path());
    }
    return files;
  }
};

std::string Interpreted(const CacheRun& run) {
  ToolResult result = RunMxla(absl::StrCat("run ", run.hlo, " --backend interpreter"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(CompileCacheProcessTest, ASecondProcessLoadsWhatTheFirstStored) {
  CacheRun run("cache_hits");
  const std::string expected = Interpreted(run);
  ToolResult first = run.Run();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.err, Not(HasSubstr(kLoaded)));
  EXPECT_EQ(first.out, expected);
  // The entry module's and the while loop's programs.
  EXPECT_EQ(run.Files().size(), 3u);
  for (int i = 0; i < 2; ++i) {
    ToolResult again = run.Run();
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_THAT(again.err, HasSubstr(kLoaded));
    EXPECT_THAT(again.err, Not(HasSubstr("warning")));
    EXPECT_EQ(again.out, expected);
  }
}

TEST(CompileCacheProcessTest, CorruptEntriesAreRecompiledAndReplaced) {
  CacheRun run("cache_corrupt");
  const std::string expected = Interpreted(run);
  ASSERT_EQ(run.Run().exit_code, 0);
  const std::vector<fs::path> entries = run.Files();
  ASSERT_FALSE(entries.empty());
  auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto write = [](const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  const std::vector<std::pair<const char*, std::function<std::string(std::string)>>>
      corruptions = {
          {"truncated", [](std::string b) { return b.substr(0, b.size() / 2); }},
          {"a flipped byte", [](std::string b) { b[b.size() * 2 / 3] ^= 4; return b; }},
          {"empty", [](std::string) { return std::string(); }},
          {"foreign", [](std::string) { return std::string("\x7f" "ELF garbage"); }},
      };
  for (const auto& [what, corrupt] : corruptions) {
    for (const fs::path& entry : entries) write(entry, corrupt(read(entry)));
    ToolResult recompiled = run.Run();
    ASSERT_EQ(recompiled.exit_code, 0) << what << ": " << recompiled.err;
    EXPECT_THAT(recompiled.err, HasSubstr("mxla: warning: compile cache: "))
        << what;
    EXPECT_THAT(recompiled.err, HasSubstr("is truncated, corrupt")) << what;
    EXPECT_THAT(recompiled.err, Not(HasSubstr(kLoaded))) << what;
    EXPECT_EQ(recompiled.out, expected) << what;
    // Replaced by a whole entry, which the next process loads.
    ToolResult loaded = run.Run();
    EXPECT_THAT(loaded.err, HasSubstr(kLoaded)) << what;
    EXPECT_EQ(loaded.out, expected) << what;
  }
}

TEST(CompileCacheProcessTest, ConcurrentProcessesLeaveWholeEntries) {
  CacheRun run("cache_concurrent");
  const std::string expected = Interpreted(run);
  std::vector<ToolResult> results = RunMxlaConcurrently(
      absl::StrCat("run ", run.hlo, " --cache-dir ", run.dir), 6);
  for (const ToolResult& result : results) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.err, Not(HasSubstr("warning"))) << result.err;
    EXPECT_EQ(result.out, expected);
  }
  // One entry per program, no temporary files left, and they load.
  std::vector<fs::path> files = run.Files();
  EXPECT_EQ(files.size(), 3u);
  for (const fs::path& file : files) {
    EXPECT_EQ(file.extension(), ".mxla") << file;
  }
  ToolResult loaded = run.Run();
  EXPECT_THAT(loaded.err, HasSubstr(kLoaded));
  EXPECT_EQ(loaded.out, expected);
}

TEST(CompileCacheProcessTest, ChangedOptionsOrCpuFeaturesMiss) {
  CacheRun run("cache_keys");
  ASSERT_EQ(run.Run().exit_code, 0);
  ToolResult features = run.Run("", "MXLA_CPU_FEATURES=-avx512f");
  ASSERT_EQ(features.exit_code, 0) << features.err;
  EXPECT_THAT(features.err, Not(HasSubstr(kLoaded)));
  ToolResult passes = run.Run("--passes=simplify,dce");
  ASSERT_EQ(passes.exit_code, 0) << passes.err;
  EXPECT_THAT(passes.err, Not(HasSubstr(kLoaded)));
  // Each stored its own entries; all of them now hit.
  EXPECT_THAT(run.Run().err, HasSubstr(kLoaded));
  EXPECT_THAT(run.Run("", "MXLA_CPU_FEATURES=-avx512f").err, HasSubstr(kLoaded));
  EXPECT_THAT(run.Run("--passes=simplify,dce").err, HasSubstr(kLoaded));
}

TEST(CompileCacheProcessTest, AnUnwritableDirectoryOnlyWarns) {
  CacheRun run("cache_unwritable");
  const std::string expected = Interpreted(run);
  const std::string file = WriteTempFile("not_a_directory", "x");
  ToolResult result = RunMxla(absl::StrCat("run ", run.hlo, " --cache-dir ",
                                           file, "/cache"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("mxla: warning: compile cache: cannot "
                                    "write to '" + file + "/cache'"));
  EXPECT_EQ(result.out, expected);
}

// A shared MXLA_CACHE_DIR=/tmp/... that everyone can write: each process
// warns and compiles, with the right result, and never loads from it.
TEST(CompileCacheProcessTest, UntrustedDirectoriesAndEntriesAreCompiled) {
  CacheRun run("cache_untrusted");
  const std::string expected = Interpreted(run);
  ASSERT_EQ(run.Run().exit_code, 0);
  ASSERT_EQ(chmod(run.dir.c_str(), 0777), 0);
  for (int i = 0; i < 2; ++i) {
    ToolResult shared = run.Run();
    ASSERT_EQ(shared.exit_code, 0) << shared.err;
    EXPECT_THAT(shared.err,
                HasSubstr("mxla: warning: compile cache: directory '" +
                          run.dir + "' is writable by group and others "
                          "(mode 0777)"));
    EXPECT_THAT(shared.err, Not(HasSubstr(kLoaded)));
    EXPECT_EQ(shared.out, expected);
  }
  // Private again, but the entries belong to someone else: compiled, and
  // replaced by this user's, which the next process loads.
  ASSERT_EQ(chmod(run.dir.c_str(), 0700), 0);
  for (const fs::path& entry : run.Files()) {
    ASSERT_EQ(chown(entry.c_str(), 65534, static_cast<gid_t>(-1)), 0);
  }
  ToolResult foreign = run.Run();
  ASSERT_EQ(foreign.exit_code, 0) << foreign.err;
  EXPECT_THAT(foreign.err, HasSubstr("' is owned by uid 65534, not by this "
                                     "user"));
  EXPECT_THAT(foreign.err, Not(HasSubstr(kLoaded)));
  EXPECT_EQ(foreign.out, expected);
  ToolResult loaded = run.Run();
  EXPECT_THAT(loaded.err, HasSubstr(kLoaded));
  EXPECT_THAT(loaded.err, Not(HasSubstr("warning")));
  EXPECT_EQ(loaded.out, expected);
}

}  // namespace
}  // namespace mxla
