// The persistent compile cache in one process (runtime/persistent_cache.h;
// tests/tools/compile_cache_process_test.cc covers processes): a program
// loaded from disk runs as the compiled one does, its entry keeps one fused
// computation per kernel, and the key follows everything that changes code.
#include "runtime/persistent_cache.h"

#include <filesystem>
#include <set>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/status_macros.h"
#include "runtime/compile_cache.h"
#include "runtime/disk_cache.h"
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

}  // namespace
}  // namespace mxla
