// A module named as a Python `lambda` is (`<lambda>`) loads from the
// persistent cache: its entry stores the fused module as text, which a load
// parses, and `HloModule <lambda>` did not parse, so each new process
// deleted the entry and compiled again. Names are now sanitized when the
// module is made (ir/hlo_name.h).
#include <filesystem>
#include <string>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "driver/compile_cache.h"
#include "driver/disk_cache.h"
#include "driver/persistent_cache.h"
#include "gtest/gtest.h"
#include "ir/shape_util.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

absl::StatusOr<XlaComputation> LambdaComputation() {
  XlaBuilder builder("<lambda>");
  XlaOp x = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {8}), "x");
  XlaOp y = Parameter(&builder, 1, ShapeUtil::MakeShape(F32, {8}), "<y>");
  return builder.Build(Add(Mul(x, y), x));
}

TEST(PersistentCacheNamesTest, ALambdaModuleLoadsInAFreshCache) {
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, LambdaComputation());
  CompileOptions options;
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "persistent_lambda";
  std::filesystem::remove_all(dir);
  options.cache_dir = dir.string();

  const DiskCache::Stats before = DiskCache::GlobalStats();
  ASSERT_OK_AND_ASSIGN(auto compiled, Compile(computation.module(), options));
  // A new process: an empty in-process cache, a module built again.
  CompileCache::Default().Clear();
  ASSERT_OK_AND_ASSIGN(XlaComputation again, LambdaComputation());
  ASSERT_OK_AND_ASSIGN(std::string key,
                       PersistentCacheKey(computation.module(), options));
  ASSERT_OK_AND_ASSIGN(std::string key_again,
                       PersistentCacheKey(again.module(), options));
  EXPECT_EQ(key_again, key);
  ASSERT_OK_AND_ASSIGN(auto loaded, Compile(again.module(), options));
  const DiskCache::Stats after = DiskCache::GlobalStats();
  // Stored once, found once, and not rejected or stored again.
  EXPECT_EQ(after.stores - before.stores, 1);
  EXPECT_EQ(after.hits - before.hits, 1);
  EXPECT_EQ(after.rejected - before.rejected, 0);
  EXPECT_TRUE(std::filesystem::exists(DiskCache(options.cache_dir, 0).PathOf(key)));
  const auto& jit = static_cast<const JitExecutable&>(*loaded);
  EXPECT_GT(jit.program()->report.Milliseconds("load-cached"), 0);

  Literal x = LiteralUtil::CreateR1<float>({1, 2, 3, 4, 5, 6, 7, 8});
  Literal y = LiteralUtil::CreateR1<float>({2, 2, 2, 2, -1, -1, -1, -1});
  ASSERT_OK_AND_ASSIGN(Literal expected, compiled->Run({&x, &y}));
  ASSERT_OK_AND_ASSIGN(Literal actual, loaded->Run({&x, &y}));
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(actual, LiteralUtil::CreateR1<float>({3, 6, 9, 12, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace mxla
