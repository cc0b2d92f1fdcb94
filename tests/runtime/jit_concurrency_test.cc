// One jit executable run from 8 threads at once, each on its own inputs,
// gives exactly what it gives from one thread; and results are identical
// for any thread count of the pool (the split never changes the bits).
#include <cmath>
#include <thread>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "runtime/compile.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

// Softmax over the rows of x[rows, 1000]: two reductions, broadcasts and exp;
// large enough that the pool splits each kernel.
XlaComputation Softmax(int64_t rows) {
  XlaBuilder b("softmax");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {rows, 1000}), "x");
  XlaOp m = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                   CreateScalarMaxComputation(F32, &b), {1});
  XlaOp e = Exp(Sub(x, m, {0}));
  XlaOp s = Reduce(e, ConstantR0<float>(&b, 0),
                   CreateScalarAddComputation(F32, &b), {1});
  Div(e, s, {0});
  return *b.Build();
}

Literal Input(int64_t rows, int seed) {
  Literal x(ShapeUtil::MakeShape(F32, {rows, 1000}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = std::sin(0.001f * i * (seed + 1)) * 4;
  }
  return x;
}

TEST(JitConcurrencyTest, EightThreadsGetTheSingleThreadResults) {
  constexpr int kThreads = 8;
  constexpr int64_t kRows = 300;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(Softmax(kRows).module()));
  std::vector<Literal> inputs, expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(Input(kRows, t));
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({&inputs.back()}));
    expected.push_back(std::move(result));
  }
  std::vector<Literal> actual(kThreads);
  std::vector<absl::Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 5; ++repeat) {
        absl::StatusOr<Literal> result = executable->Run({&inputs[t]});
        if (!result.ok()) {
          statuses[t] = result.status();
          return;
        }
        actual[t] = *std::move(result);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_OK(statuses[t]);
    EXPECT_EQ(actual[t], expected[t]) << "thread " << t;
  }
}

TEST(JitConcurrencyTest, ResultsDoNotDependOnTheSplit) {
  ThreadPool pool(3);
  std::vector<int64_t> seen(1000, 0);
  for (int64_t chunks : {1, 2, 3, 7, 1000}) {
    std::fill(seen.begin(), seen.end(), 0);
    pool.ParallelFor(1000, chunks, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) ++seen[i];
    });
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1000) << chunks;
  }
}

}  // namespace
}  // namespace mxla
