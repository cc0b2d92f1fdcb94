// The persistent compile cache in one process (driver/persistent_cache.h;
// tests/tools/compile_cache_process_test.cc covers processes): a program
// loaded from disk runs as the compiled one does, its entry keeps one fused
// computation per kernel, and the key follows everything that changes code.
#include "driver/persistent_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "driver/compile_cache.h"
#include "driver/disk_cache.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/status_macros.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "tools/model_stack.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

examples::StackShape SmallStack(int64_t layers) {
  examples::StackShape shape;
  shape.layers = layers;
  shape.rows = 8;
  shape.width = 32;
  return shape;
}

std::string FreshDirectory(const std::string& name) {
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::string KeyOf(const HloModule& module, const CompileOptions& options) {
  absl::StatusOr<std::string> key = PersistentCacheKey(module, options);
  EXPECT_OK(key.status());
  return key.ok() ? *key : "";
}

const JitExecutable& AsJit(const Executable& executable) {
  return static_cast<const JitExecutable&>(executable);
}

TEST(PersistentCacheTest, ALoadedProgramRunsAsTheCompiledOne) {
  const examples::StackShape shape = SmallStack(4);
  ASSERT_OK_AND_ASSIGN(XlaComputation stack, examples::BuildModelStack(shape));
  CompileOptions options;
  options.cache_dir = FreshDirectory("persistent_stack");
  const int64_t stores = DiskCache::GlobalStats().stores;
  ASSERT_OK_AND_ASSIGN(auto compiled, Compile(stack.module(), options));
  EXPECT_EQ(DiskCache::GlobalStats().stores - stores, 1);
  // A new process would start with an empty in-process cache.
  CompileCache::Default().Clear();
  const int64_t hits = DiskCache::GlobalStats().hits;
  ASSERT_OK_AND_ASSIGN(auto loaded, Compile(stack.module(), options));
  EXPECT_EQ(DiskCache::GlobalStats().hits - hits, 1);
  EXPECT_GT(AsJit(*loaded).program()->report.Milliseconds("load-cached"), 0);
  EXPECT_EQ(AsJit(*compiled).program()->report.Milliseconds("load-cached"), 0);

  std::vector<Literal> arguments = examples::ModelStackArguments(shape);
  ASSERT_OK_AND_ASSIGN(Literal expected, compiled->Run(Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal actual, loaded->Run(Pointers(arguments)));
  EXPECT_EQ(expected, actual);

  // The loaded module keeps every fusion but one fused computation per
  // distinct kernel.
  std::set<const HloComputation*> computations;
  std::set<std::string> symbols;
  int64_t fusions = 0;
  for (const HloInstruction* instruction :
       loaded->module().entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    ++fusions;
    computations.insert(instruction->to_apply());
  }
  for (const KernelInfo& kernel : AsJit(*loaded).kernels().kernels()) {
    symbols.insert(kernel.symbol);
  }
  EXPECT_EQ(fusions, static_cast<int64_t>(
                         AsJit(*compiled).kernels().kernels().size()));
  EXPECT_EQ(computations.size(), symbols.size());
  EXPECT_LT(computations.size(), static_cast<size_t>(fusions));
}

TEST(PersistentCacheTest, TheKeyFollowsWhatChangesTheCode) {
  constexpr char kModule[] = R"(HloModule m
ENTRY main {
  x = f32[8] parameter(0)
  c = f32[] constant(2)
  cb = f32[8] broadcast(c), dimensions={}
  ROOT y = f32[8] multiply(x, cb)
})";
  ASSERT_OK_AND_ASSIGN(auto module, ParseHloModule(kModule));
  CompileOptions options;
  ASSERT_OK_AND_ASSIGN(std::string key, PersistentCacheKey(*module, options));
  EXPECT_EQ(key.size(), 32u);
  // The same module and options: the same key, metadata aside.
  ASSERT_OK_AND_ASSIGN(auto copy, ParseHloModule(kModule));
  OpMetadata metadata;
  metadata.op_name = "Mul";
  copy->entry_computation()->root_instruction()->set_metadata(metadata);
  EXPECT_EQ(KeyOf(*copy, options), key);
  // A constant, an option that changes code: other keys.
  ASSERT_OK_AND_ASSIGN(
      auto other, ParseHloModule(absl::StrReplaceAll(
                      kModule, {{"constant(2)", "constant(3)"}})));
  EXPECT_NE(KeyOf(*other, options), key);
  CompileOptions level2 = options;
  level2.codegen.optimization_level = 2;
  EXPECT_NE(KeyOf(*module, level2), key);
  // Where the cache lives and how many threads run are no part of it.
  CompileOptions elsewhere = options;
  elsewhere.cache_dir = "/somewhere/else";
  EXPECT_EQ(KeyOf(*module, elsewhere), key);
}

// An entry planted under another module's key (what anyone who can write
// the directory could do: keys follow from the module text) runs its own
// code. It is used when the directory and entry are this user's alone, and
// refused, with a warning, and the module compiled when they are not.
TEST(PersistentCacheTest, APlantedEntryRunsOnlyWhereOnlyThisUserCanWrite) {
  constexpr char kScale[] = R"(HloModule scale
ENTRY main {
  x = f32[4] parameter(0)
  c = f32[] constant(2)
  cb = f32[4] broadcast(c), dimensions={}
  ROOT y = f32[4] multiply(x, cb)
})";
  ASSERT_OK_AND_ASSIGN(auto doubles, ParseHloModule(kScale));
  ASSERT_OK_AND_ASSIGN(auto triples,
                       ParseHloModule(absl::StrReplaceAll(
                           kScale, {{"constant(2)", "constant(3)"}})));
  CompileOptions options;
  options.cache_dir = FreshDirectory("persistent_planted");
  const DiskCache disk(options.cache_dir, options.cache_max_bytes);
  ASSERT_OK(Compile(*triples, options).status());
  std::optional<DiskCacheEntry> planted = disk.Load(KeyOf(*triples, options));
  ASSERT_TRUE(planted.has_value());
  const std::string path = disk.PathOf(KeyOf(*doubles, options));
  const Literal x = LiteralUtil::CreateR1<float>({1, 2, 3, 4});
  auto run_doubles = [&]() -> Literal {
    CompileCache::Default().Clear();  // as a new process
    absl::StatusOr<std::unique_ptr<Executable>> executable =
        Compile(*doubles, options);
    EXPECT_OK(executable.status());
    if (!executable.ok()) return Literal();
    absl::StatusOr<Literal> result = (*executable)->Run({&x});
    EXPECT_OK(result.status());
    return result.ok() ? *std::move(result) : Literal();
  };
  auto plant = [&] {
    ASSERT_TRUE(disk.Store(KeyOf(*doubles, options), *planted));
  };
  const Literal tripled = LiteralUtil::CreateR1<float>({3, 6, 9, 12});
  const Literal doubled = LiteralUtil::CreateR1<float>({2, 4, 6, 8});

  // Trusted: the planted code runs (which is why the checks matter).
  plant();
  EXPECT_EQ(run_doubles(), tripled);

  // Someone else's entry: compiled instead, and replaced.
  plant();
  ASSERT_EQ(chown(path.c_str(), 65534, static_cast<gid_t>(-1)), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run_doubles(), doubled);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("mxla: warning: compile cache: entry '" +
                                   path + "' is owned by uid 65534"));
  EXPECT_EQ(run_doubles(), doubled);  // the replacement hits

  // An entry the group can write: compiled instead (warned once already).
  plant();
  ASSERT_EQ(chmod(path.c_str(), 0620), 0);
  EXPECT_EQ(run_doubles(), doubled);

  // A directory everyone can write: not used at all.
  plant();
  ASSERT_EQ(chmod(options.cache_dir.c_str(), 0777), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run_doubles(), doubled);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::HasSubstr("compile cache: directory '" +
                                   options.cache_dir +
                                   "' is writable by group and others"));
  ASSERT_EQ(chmod(options.cache_dir.c_str(), 0700), 0);
  EXPECT_EQ(run_doubles(), tripled);  // still planted: nothing was written
}

}  // namespace
}  // namespace mxla
