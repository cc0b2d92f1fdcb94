// RunOptions: invalid thread counts are rejected by both backends and both
// Run APIs, and the options decide how many chunks a kernel is split into
// and how many threads run them at once (observed through a kernel wrapper
// that records every chunk), without changing a bit of the result.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kRows = 1024, kCols = 1024;  // 4 MiB per array

// exp(x) + y: one elementwise fusion that moves 12 MiB, split into many
// chunks (kMinBytesPerChunk each).
XlaComputation ExpAdd() {
  XlaBuilder b("exp_add");
  Shape shape = ShapeUtil::MakeShape(F32, {kRows, kCols});
  Add(Exp(Parameter(&b, 0, shape, "x")), Parameter(&b, 1, shape, "y"));
  return *b.Build();
}

Literal Input(int seed) {
  Literal x(ShapeUtil::MakeShape(F32, {kRows, kCols}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = std::sin(0.01f * i + seed);
  }
  return x;
}

TEST(RunOptionsTest, InvalidThreadCountsAreRejectedByEveryRun) {
  Literal x = Input(0), y = Input(1);
  Literal out(ShapeUtil::MakeShape(F32, {kRows, kCols}));
  const void* arguments[] = {x.untyped_data(), y.untyped_data()};
  void* results[] = {out.untyped_data()};
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions compile_options;
    compile_options.backend = backend;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(ExpAdd(), compile_options));
    for (int threads : {0, -3, kMaxThreads + 1}) {
      RunOptions options;
      options.threads = threads;
      auto expected = StatusIs(
          absl::StatusCode::kInvalidArgument,
          AllOf(HasSubstr(absl::StrCat("RunOptions::threads is ", threads)),
                HasSubstr("from 1 to 1024")));
      EXPECT_THAT(executable->Run({&x, &y}, options), expected);
      EXPECT_THAT(executable->RunBuffers(arguments, results, options),
                  expected);
    }
  }
}

// What the recording kernel saw. One test at a time uses it.
struct Recorder {
  KernelFunction real = nullptr;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  int chunks = 0;
  // Chunks wait (up to a deadline) until this many have started, which
  // only happens if that many run at once.
  int rendezvous = 0;
  std::atomic<int> started{0};
  bool rendezvous_met = true;

  void Reset(int wait_for) {
    std::lock_guard<std::mutex> lock(mutex);
    threads.clear();
    chunks = 0;
    rendezvous = wait_for;
    started = 0;
    rendezvous_met = true;
  }
};
Recorder recorder;

void RecordingKernel(void* const* buffers, int64_t begin, int64_t end) {
  {
    std::lock_guard<std::mutex> lock(recorder.mutex);
    recorder.threads.insert(std::this_thread::get_id());
    ++recorder.chunks;
  }
  ++recorder.started;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (recorder.started.load() < recorder.rendezvous) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::lock_guard<std::mutex> lock(recorder.mutex);
      recorder.rendezvous_met = false;
      break;
    }
    std::this_thread::yield();
  }
  recorder.real(buffers, begin, end);
}

// `jit`'s program with its one kernel replaced by RecordingKernel; the
// kernel's code stays owned by `jit`.
std::unique_ptr<JitExecutable> Recording(const JitExecutable& jit) {
  const JitExecutable::Program& original = *jit.program();
  auto program = std::make_shared<JitExecutable::Program>();
  program->module = original.module;
  program->assignment = original.assignment;
  program->steps = original.steps;
  recorder.real = original.steps.at(0).function;
  program->steps[0].function = &RecordingKernel;
  return std::make_unique<JitExecutable>(std::move(program));
}

TEST(RunOptionsTest, ThreadsAndPoolDecideTheSplit) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> compiled, Compile(ExpAdd()));
  const auto& jit = dynamic_cast<const JitExecutable&>(*compiled);
  ASSERT_EQ(jit.program()->steps.size(), 1u);
  ASSERT_GE(jit.program()->steps[0].max_chunks, 8);
  std::unique_ptr<JitExecutable> executable = Recording(jit);
  Literal x = Input(0), y = Input(1);
  ASSERT_OK_AND_ASSIGN(Literal expected, compiled->Run({&x, &y}));

  ThreadPool four(4), two(2);
  struct Case {
    ThreadPool* pool;
    std::optional<int> threads;
    int chunks;  // = threads on distinct threads at once
  };
  for (const Case& c : {Case{&four, 1, 1}, Case{&four, 3, 3},
                        Case{&four, std::nullopt, 4}, Case{&two, 8, 2},
                        Case{&two, std::nullopt, 2}}) {
    std::string label = absl::StrCat("pool of ", c.pool->threads(),
                                     ", threads ", c.threads.value_or(0));
    recorder.Reset(c.chunks);
    RunOptions options;
    options.thread_pool = c.pool;
    options.threads = c.threads;
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({&x, &y}, options));
    EXPECT_EQ(result, expected) << label;
    EXPECT_EQ(recorder.chunks, c.chunks) << label;
    EXPECT_EQ(recorder.threads.size(), static_cast<size_t>(c.chunks)) << label;
    EXPECT_TRUE(recorder.rendezvous_met) << label;
    if (c.chunks == 1) {
      EXPECT_TRUE(recorder.threads.count(std::this_thread::get_id())) << label;
    }
  }
}

// With no pool given, runs use the default pool.
TEST(RunOptionsTest, TheDefaultPoolSplitsByItsSize) {
  ASSERT_OK(ThreadPool::DefaultStatus());
  ThreadPool* pool = &ThreadPool::Default();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> compiled, Compile(ExpAdd()));
  std::unique_ptr<JitExecutable> executable =
      Recording(dynamic_cast<const JitExecutable&>(*compiled));
  Literal x = Input(0), y = Input(1);
  recorder.Reset(0);
  ASSERT_OK(executable->Run({&x, &y}).status());
  EXPECT_EQ(recorder.chunks,
            std::min<int64_t>(pool->threads(),
                              executable->program()->steps[0].max_chunks));
  RunOptions one;
  one.threads = 1;
  recorder.Reset(0);
  ASSERT_OK(executable->Run({&x, &y}, one).status());
  EXPECT_EQ(recorder.chunks, 1);
}

// Whether the environment variable `name` is "abc", the invalid value
// ctest runs this binary with a second and a third time
// (tests/CMakeLists.txt).
bool SetToAbc(const char* name) {
  const char* env = std::getenv(name);
  return env != nullptr && std::string(env) == "abc";
}

// With an invalid default-pool setting, a run on the default pool fails
// with `message`, on both backends, while a run on a caller's pool does
// not need the default pool and works.
void ExpectOnlyDefaultPoolRunsFail(absl::string_view message) {
  EXPECT_THAT(ThreadPool::DefaultStatus(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  Literal x = Input(0), y = Input(1);
  Literal out(ShapeUtil::MakeShape(F32, {kRows, kCols}));
  const void* arguments[] = {x.untyped_data(), y.untyped_data()};
  void* results[] = {out.untyped_data()};
  ThreadPool pool(2);
  RunOptions own_pool;
  own_pool.thread_pool = &pool;
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions compile_options;
    compile_options.backend = backend;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(ExpAdd(), compile_options));
    auto expected =
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message));
    EXPECT_THAT(executable->Run({&x, &y}), expected);
    EXPECT_THAT(executable->RunBuffers(arguments, results), expected);
    RunOptions one_thread;
    one_thread.threads = 1;
    EXPECT_THAT(executable->Run({&x, &y}, one_thread), expected);
    EXPECT_OK(executable->Run({&x, &y}, own_pool).status());
    EXPECT_OK(executable->RunBuffers(arguments, results, own_pool));
  }
}

TEST(RunOptionsEnvironmentTest, InvalidMxlaThreadsFailsDefaultPoolRuns) {
  if (!SetToAbc("MXLA_THREADS")) {
    GTEST_SKIP() << "runs with MXLA_THREADS=abc only";
  }
  EXPECT_EQ(ThreadPool::Default().threads(), 1);
  ExpectOnlyDefaultPoolRunsFail("MXLA_THREADS='abc' is not a thread count");
}

TEST(RunOptionsEnvironmentTest, InvalidMxlaSpinUsFailsDefaultPoolRuns) {
  if (!SetToAbc("MXLA_SPIN_US")) {
    GTEST_SKIP() << "runs with MXLA_SPIN_US=abc only";
  }
  EXPECT_EQ(ThreadPool::Default().idle_spin(), kDefaultIdleSpin);
  ExpectOnlyDefaultPoolRunsFail("MXLA_SPIN_US='abc' is not an idle spin");
}

}  // namespace
}  // namespace mxla
