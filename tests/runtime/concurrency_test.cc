// Concurrency at the scale a server sees: 16 threads compiling different
// computations at once through the shared compile cache and LLJIT, and 16
// threads running one executable. Every result must equal the single-thread
// (or interpreter) result bit for bit. CI also runs this file under TSan.
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

constexpr int kThreads = 16;

// Runs body(t) on kThreads threads at once; returns each thread's status.
std::vector<absl::Status> OnThreads(
    const std::function<absl::Status(int)>& body) {
  std::vector<absl::Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { statuses[t] = body(t); });
  }
  for (std::thread& thread : threads) thread.join();
  return statuses;
}

// 8 different random graphs, each compiled by two threads at once (so the
// cache sees concurrent misses and hits on the same key), with exact
// reductions: each result must be the interpreter's, bit for bit.
TEST(ConcurrencyTest, SixteenThreadsCompileDifferentGraphsThroughOneCache) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED};
  options.max_instructions = 16;
  std::vector<RandomGraph> graphs;
  std::vector<Literal> expected;
  for (uint64_t seed = 0; seed < kThreads / 2; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                         GenerateRandomGraph(1000 + seed, options));
    ASSERT_OK_AND_ASSIGN(Literal value,
                         EvaluateModule(graph.computation.module(),
                                        Pointers(graph.arguments)));
    graphs.push_back(std::move(graph));
    expected.push_back(std::move(value));
  }
  CompileOptions compile;
  compile.codegen.reassociate_reductions = false;
  std::vector<absl::Status> statuses = OnThreads([&](int t) -> absl::Status {
    const RandomGraph& graph = graphs[t % graphs.size()];
    absl::StatusOr<std::unique_ptr<Executable>> executable =
        Compile(graph.computation.module(), compile);
    if (!executable.ok()) return executable.status();
    absl::StatusOr<Literal> result = (*executable)->Run(Pointers(graph.arguments));
    if (!result.ok()) return result.status();
    if (!LiteralUtil::SameValues(expected[t % graphs.size()], *result).ok()) {
      return absl::InternalError(
          absl::StrCat("thread ", t, ": ", graph.description, " gave ",
                       result->ToString(), " instead of ",
                       expected[t % graphs.size()].ToString()));
    }
    return absl::OkStatus();
  });
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

// Softmax over rows: large enough that each Run also splits its kernels
// over the pool while 16 callers share it.
TEST(ConcurrencyTest, SixteenThreadsRunOneExecutable) {
  constexpr int64_t kRows = 256;
  ASSERT_OK_AND_ASSIGN(XlaComputation computation,
                       fixtures::BuildSoftmax(kRows, 512));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(computation.module()));
  std::vector<Literal> inputs, expected;
  for (int t = 0; t < kThreads; ++t) {
    Literal input(ShapeUtil::MakeShape(F32, {kRows, 512}));
    for (int64_t i = 0; i < input.element_count(); ++i) {
      input.data<float>()[i] = 3 * std::sin(0.01f * i + t);
    }
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({&input}));
    inputs.push_back(std::move(input));
    expected.push_back(std::move(result));
  }
  std::vector<absl::Status> statuses = OnThreads([&](int t) -> absl::Status {
    for (int repeat = 0; repeat < 10; ++repeat) {
      absl::StatusOr<Literal> result = executable->Run({&inputs[t]});
      if (!result.ok()) return result.status();
      if (*result != expected[t]) {
        return absl::InternalError(
            absl::StrCat("thread ", t, " run ", repeat, " differs"));
      }
    }
    return absl::OkStatus();
  });
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

}  // namespace
}  // namespace mxla
