// The compile cache: identical compiles share one program, anything that
// changes the code misses, failures store nothing, least recently used
// entries go first, and concurrent compiles through it stay correct.
#include "driver/compile_cache.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/memory_limit.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// A bias add whose constant makes each `variant` a different module.
std::string BiasAddText(int variant) {
  return absl::StrCat(R"(HloModule bias_add
ENTRY main {
  x = f32[4,8] parameter(0)
  b = f32[8] parameter(1)
  bb = f32[4,8] broadcast(b), dimensions={1}
  k = f32[] constant()",
                      variant, R"()
  kb = f32[4,8] broadcast(k), dimensions={}
  s = f32[4,8] add(x, bb)
  ROOT r = f32[4,8] multiply(s, kb)
})");
}

std::unique_ptr<HloModule> BiasAdd(int variant) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(BiasAddText(variant));
  EXPECT_OK(module.status());
  return std::move(*module);
}

std::vector<Literal> Arguments() {
  std::vector<Literal> arguments;
  arguments.emplace_back(ShapeUtil::MakeShape(F32, {4, 8}));
  arguments.emplace_back(ShapeUtil::MakeShape(F32, {8}));
  for (Literal& literal : arguments) {
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.data<float>()[i] = 0.5f * i - 3;
    }
  }
  return arguments;
}

const JitExecutable& AsJit(const std::unique_ptr<Executable>& executable) {
  return static_cast<const JitExecutable&>(*executable);
}

TEST(CompileCacheTest, IdenticalCompilesShareOneProgram) {
  CompileCache::Default().Clear();
  std::unique_ptr<HloModule> module = BiasAdd(1001);
  CompileCache::Stats before = CompileCache::Default().stats();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> first, Compile(*module));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> second, Compile(*module));
  CompileCache::Stats after = CompileCache::Default().stats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.hits - before.hits, 1);
  EXPECT_EQ(AsJit(first).program(), AsJit(second).program());

  std::vector<Literal> arguments = Arguments();
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal a, first->Run(Pointers(arguments)));
  first.reset();  // the program outlives the executable that made it
  ASSERT_OK_AND_ASSIGN(Literal b, second->Run(Pointers(arguments)));
  EXPECT_EQ(a, expected);
  EXPECT_EQ(b, expected);
}

TEST(CompileCacheTest, AnythingThatChangesTheCodeMisses) {
  std::unique_ptr<HloModule> module = BiasAdd(1002);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> base, Compile(*module));

  CompileOptions exact;
  exact.codegen.reassociate_reductions = false;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> other_codegen,
                       Compile(*module, exact));
  EXPECT_NE(AsJit(base).program(), AsJit(other_codegen).program());

  CompileOptions no_passes;
  no_passes.passes = std::vector<std::string>{};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> other_passes,
                       Compile(*module, no_passes));
  EXPECT_NE(AsJit(base).program(), AsJit(other_passes).program());

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> other_module,
                       Compile(*BiasAdd(1003)));
  EXPECT_NE(AsJit(base).program(), AsJit(other_module).program());

  EXPECT_NE(CompileOptionsKey({}), CompileOptionsKey(exact));
  EXPECT_NE(CompileOptionsKey({}), CompileOptionsKey(no_passes));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> again,
                       Compile(*BiasAdd(1002)));
  EXPECT_EQ(AsJit(base).program(), AsJit(again).program());
}

// Modules that differ only in a constant's value, a name or an attribute
// print differently and compile apart.
TEST(CompileCacheTest, ModulesThatDifferAnywhereNeverShare) {
  const std::string base = BiasAddText(1010);
  const std::string variants[] = {
      base,
      absl::StrReplaceAll(base, {{"constant(1010)", "constant(1011)"}}),
      absl::StrReplaceAll(base, {{"HloModule bias_add", "HloModule other"}}),
      absl::StrReplaceAll(base, {{"  s = ", "  s2 = "}, {"(s, kb)", "(s2, kb)"}}),
      absl::StrReplaceAll(base, {{"multiply(s, kb)", "subtract(s, kb)"}}),
      absl::StrReplaceAll(base, {{"add(x, bb)", "add(bb, x)"}}),
  };
  for (size_t i = 1; i < std::size(variants); ++i) {
    ASSERT_NE(variants[i], base) << i;
  }
  std::vector<std::shared_ptr<const CompileCache::Program>> programs;
  CompileCache::Stats before = CompileCache::Default().stats();
  for (const std::string& text : variants) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module));
    for (const auto& program : programs) {
      EXPECT_NE(program, AsJit(executable).program()) << text;
    }
    programs.push_back(AsJit(executable).program());
  }
  EXPECT_EQ(CompileCache::Default().stats().misses - before.misses,
            static_cast<int64_t>(std::size(variants)));
}

// The memory limit may be lowered after a program is cached; a hit must
// still apply it, as a compile does.
TEST(CompileCacheTest, HitsApplyTheMemoryLimit) {
  std::unique_ptr<HloModule> module = BiasAdd(1020);
  ASSERT_OK(Compile(*module).status());
  CompileCache::Stats before = CompileCache::Default().stats();
  SetMemoryLimitBytes(64);  // the f32[4,8] result alone is 128 bytes
  absl::StatusOr<std::unique_ptr<Executable>> over = Compile(*module);
  SetMemoryLimitBytes(0);
  EXPECT_EQ(CompileCache::Default().stats().hits - before.hits, 1);
  EXPECT_THAT(over.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("computation 'bias_add'"),
                             HasSubstr("f32[4,8]"),
                             HasSubstr("over the memory limit of 64 bytes"))));
  ASSERT_OK(Compile(*module).status());  // the entry is still there
  EXPECT_EQ(CompileCache::Default().stats().hits - before.hits, 2);
}

// Threads that miss on one module at once run one compile between them.
TEST(CompileCacheTest, ConcurrentIdenticalCompilesCompileOnce) {
  constexpr int kThreads = 8;
  std::unique_ptr<HloModule> module = BiasAdd(1030);
  CompileCache::Stats before = CompileCache::Default().stats();
  std::vector<std::shared_ptr<const CompileCache::Program>> programs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(*module);
      if (executable.ok()) programs[t] = AsJit(*executable).program();
    });
  }
  for (std::thread& thread : threads) thread.join();
  CompileCache::Stats after = CompileCache::Default().stats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.hits - before.hits + after.waits - before.waits,
            kThreads - 1);
  for (const auto& program : programs) {
    ASSERT_NE(program, nullptr);
    EXPECT_EQ(program, programs[0]);
  }
}

// Callers that arrive while a compile runs wait for it and share its
// outcome, an error included; an error is not stored, so the next call
// compiles again.
TEST(CompileCacheTest, WaitersShareOneCompileAndErrorsAreNotStored) {
  constexpr int kThreads = 6;
  CompileCache cache(4);
  std::unique_ptr<HloModule> module = BiasAdd(1040);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> compiled, Compile(*module));
  for (const bool fail : {true, false}) {
    const CompileCache::Stats before = cache.stats();
    std::atomic<int> compiles = 0;
    // The first caller's compile lasts until every other caller waits.
    auto compile = [&]() -> CompileCache::ProgramOrError {
      ++compiles;
      for (int spin = 0; spin < 100000 &&
                         cache.stats().waits - before.waits < kThreads - 1;
           ++spin) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      if (fail) return absl::ResourceExhaustedError("no memory for LLVM");
      return AsJit(compiled).program();
    };
    std::vector<absl::Status> statuses(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        CompileKey key(*module, "options");
        statuses[t] = cache.GetOrCompile(key, compile).status();
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(compiles.load(), 1) << "fail=" << fail;
    EXPECT_EQ(cache.stats().misses - before.misses, 1);
    EXPECT_EQ(cache.stats().waits - before.waits, kThreads - 1);
    for (const absl::Status& status : statuses) {
      EXPECT_EQ(status.code(), fail ? absl::StatusCode::kResourceExhausted
                                    : absl::StatusCode::kOk);
    }
    EXPECT_EQ(cache.stats().entries, fail ? 0 : 1);
  }
}

// Keys whose fingerprints collide still compare their modules and options.
TEST(CompileCacheTest, CollidingFingerprintsNeverShare) {
  CompileCache cache(8);
  std::unique_ptr<HloModule> a = BiasAdd(1050);
  std::unique_ptr<HloModule> b = BiasAdd(1051);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> ea, Compile(*a));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> eb, Compile(*b));
  cache.Insert(CompileKey(*a, "o", 42), AsJit(ea).program());
  EXPECT_EQ(cache.Lookup(CompileKey(*b, "o", 42)), nullptr);
  EXPECT_EQ(cache.Lookup(CompileKey(*a, "p", 42)), nullptr);
  cache.Insert(CompileKey(*b, "o", 42), AsJit(eb).program());
  EXPECT_EQ(cache.stats().entries, 2);
  EXPECT_EQ(cache.Lookup(CompileKey(*a, "o", 42)), AsJit(ea).program());
  EXPECT_EQ(cache.Lookup(CompileKey(*b, "o", 42)), AsJit(eb).program());
  // The entry keeps its own copy: the key's module may go away.
  std::unique_ptr<HloModule> a_again = BiasAdd(1050);
  a.reset();
  EXPECT_EQ(cache.Lookup(CompileKey(*a_again, "o", 42)), AsJit(ea).program());
}

TEST(CompileCacheTest, BypassedWhenOffOrDumping) {
  std::unique_ptr<HloModule> module = BiasAdd(1004);
  CompileOptions off;
  off.use_cache = false;
  CompileCache::Stats before = CompileCache::Default().stats();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> a, Compile(*module, off));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> b, Compile(*module, off));
  CompileOptions dumping;
  dumping.pipeline.dump_dir = ::testing::TempDir() + "/compile_cache_dump";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> c,
                       Compile(*module, dumping));
  CompileCache::Stats after = CompileCache::Default().stats();
  EXPECT_EQ(after.hits, before.hits);
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_NE(AsJit(a).program(), AsJit(b).program());
}

TEST(CompileCacheTest, DumpDirectoryFromTheEnvironment) {
  // Library users dump through MXLA_DUMP_DIR: every stage is written, and
  // the compile bypasses the cache (a hit would skip the passes).
  const std::string dir = ::testing::TempDir() + "/mxla_env_dump";
  std::filesystem::remove_all(dir);
  setenv("MXLA_DUMP_DIR", dir.c_str(), 1);
  CompileCache::Stats before = CompileCache::Default().stats();
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*BiasAdd(1007));
  unsetenv("MXLA_DUMP_DIR");
  ASSERT_OK(executable.status());
  EXPECT_EQ(CompileCache::Default().stats().misses, before.misses);
  for (const char* name :
       {"00-input.hlo", "passes.txt", "fused.hlo", "llvm.ll", "llvm-opt.ll",
        "kernels.s"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  std::ifstream fused(dir + "/fused.hlo");
  std::string text((std::istreambuf_iterator<char>(fused)),
                   std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("kind=kLoop"), std::string::npos) << text;
}

TEST(CompileCacheTest, FailedCompilesStoreNothing) {
  absl::StatusOr<std::unique_ptr<HloModule>> bad = ParseHloModule(R"(HloModule bad
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[3] parameter(1)
  ROOT s = f32[4] add(x, y)
})");
  ASSERT_OK(bad.status());
  const int64_t entries = CompileCache::Default().stats().entries;
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_FALSE(Compile(**bad).ok());
    EXPECT_EQ(CompileCache::Default().stats().entries, entries);
  }
  ASSERT_OK(Compile(*BiasAdd(1005)).status());
}

TEST(CompileCacheTest, LeastRecentlyUsedEntriesAreEvicted) {
  CompileCache cache(2);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*BiasAdd(1006)));
  std::shared_ptr<const CompileCache::Program> program =
      AsJit(executable).program();
  std::unique_ptr<HloModule> module = BiasAdd(1006);
  const CompileKey a(*module, "a"), b(*module, "b"), c(*module, "c");
  cache.Insert(a, program);
  cache.Insert(b, program);
  EXPECT_NE(cache.Lookup(a), nullptr);  // now "b" is the oldest
  cache.Insert(c, program);
  EXPECT_EQ(cache.stats().entries, 2);
  EXPECT_EQ(cache.Lookup(b), nullptr);
  EXPECT_NE(cache.Lookup(a), nullptr);
  EXPECT_NE(cache.Lookup(c), nullptr);
  EXPECT_EQ(cache.stats().hits, 3);
  EXPECT_EQ(cache.stats().misses, 1);
}

TEST(CompileCacheTest, ConcurrentCompilesShareTheCacheCorrectly) {
  // 16 threads compile 4 different modules (each 4 times) at once.
  constexpr int kThreads = 16;
  std::vector<std::unique_ptr<HloModule>> modules;
  for (int v = 0; v < 4; ++v) modules.push_back(BiasAdd(2000 + v));
  std::vector<Literal> arguments = Arguments();
  std::vector<Literal> expected;
  for (const auto& module : modules) {
    ASSERT_OK_AND_ASSIGN(Literal value,
                         EvaluateModule(*module, Pointers(arguments)));
    expected.push_back(std::move(value));
  }
  std::vector<absl::Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::unique_ptr<Executable>> executable =
          Compile(*modules[t % 4]);
      if (!executable.ok()) {
        statuses[t] = executable.status();
        return;
      }
      absl::StatusOr<Literal> result = (*executable)->Run(Pointers(arguments));
      if (!result.ok()) {
        statuses[t] = result.status();
      } else if (!(*result == expected[t % 4])) {
        statuses[t] = absl::InternalError(absl::StrCat("thread ", t,
                                                       " got a wrong result"));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

}  // namespace
}  // namespace mxla
