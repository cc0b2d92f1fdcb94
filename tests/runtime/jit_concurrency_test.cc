// One jit executable run from 8 threads at once, each on its own inputs,
// gives exactly what it gives from one thread; and results are identical
// for any number of threads a run uses (the split never changes the bits),
// on every kind of kernel.
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gtest/gtest.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

// Softmax over the rows of x[rows, 1000]: two reductions, broadcasts and exp;
// large enough that the pool splits each kernel.
XlaComputation Softmax(int64_t rows) {
  return *fixtures::BuildSoftmax(rows, 1000);
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

struct SplitCase {
  std::string name;
  XlaComputation computation;
  CompileOptions options;
  // The runtime splits its largest kernel into 7 or more chunks.
  bool splits = true;
};

XlaComputation ExpTimesBias() {
  XlaBuilder b("exp_times_bias");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {1000, 1024}), "x");
  XlaOp v = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {1024}), "v");
  Mul(Exp(x), v, {1});
  return *b.Build();
}

XlaComputation Reduce2D(std::vector<int64_t> dims, int64_t rows,
                        int64_t cols) {
  XlaBuilder b("sum");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {rows, cols}), "x");
  Reduce(Mul(x, x), ConstantR0<float>(&b, 0),
         CreateScalarAddComputation(F32, &b), dims);
  return *b.Build();
}

// x * 3 - y on an odd shape, with streaming stores forced on: chunk
// boundaries fall at unaligned positions.
XlaComputation Streaming() {
  XlaBuilder b("streaming");
  Shape shape = ShapeUtil::MakeShape(F32, {999, 1031});
  XlaOp x = Parameter(&b, 0, shape, "x");
  XlaOp y = Parameter(&b, 1, shape, "y");
  Sub(Mul(x, ConstantR0<float>(&b, 3)), y);
  return *b.Build();
}

std::vector<SplitCase> SplitCases() {
  std::vector<SplitCase> cases;
  cases.push_back({"loop", ExpTimesBias(), {}});
  cases.push_back({"row_reduction", Reduce2D({1}, 2048, 1000), {}});
  // Column reductions split into blocks of 512 output columns, reductions
  // to a scalar into chunks of 16384 elements (codegen/reduction_emitter.h).
  cases.push_back({"column_reduction", Reduce2D({0}, 512, 8192), {}});
  cases.push_back({"scalar_reduction", Reduce2D({0, 1}, 2048, 1000), {}});
  cases.push_back({"row_fusion", Softmax(2000), {}});
  SplitCase streaming{"streaming", Streaming(), {}};
  streaming.options.codegen.streaming_store_min_bytes = 1;
  cases.push_back(std::move(streaming));
  return cases;
}

// Seeded, distinct values per parameter, so a permuted element shows.
std::vector<Literal> Arguments(const HloModule& module) {
  std::vector<Literal> arguments;
  const HloComputation& entry = *module.entry_computation();
  for (int64_t p = 0; p < entry.num_parameters(); ++p) {
    Literal x(entry.parameter_instruction(p)->shape());
    for (int64_t i = 0; i < x.element_count(); ++i) {
      x.data<float>()[i] = std::sin(0.37f * i + p) * 3;
    }
    arguments.push_back(std::move(x));
  }
  return arguments;
}

// The largest number of chunks a kernel of `jit` is split into.
int64_t LargestSplit(const Executable& executable, int threads) {
  const auto& jit = dynamic_cast<const JitExecutable&>(executable);
  int64_t most = 1;
  for (const JitExecutable::Program::Step& step : jit.program()->steps) {
    most = std::max(most, std::min<int64_t>({step.units, step.max_chunks,
                                             int64_t{threads}}));
  }
  return most;
}

// One executable run with 1 to 7 threads (RunOptions::threads on a pool of
// 7, and the default pool) gives the same bits on every kind of kernel.
TEST(JitConcurrencyTest, ResultsDoNotDependOnTheSplit) {
  ThreadPool pool(7);
  for (const SplitCase& c : SplitCases()) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(c.computation, c.options));
    if (c.splits) {
      ASSERT_GE(LargestSplit(*executable, 7), 7);
    }
    std::vector<Literal> arguments = Arguments(c.computation.module());
    std::vector<const Literal*> pointers;
    for (const Literal& argument : arguments) pointers.push_back(&argument);
    RunOptions options;
    options.thread_pool = &pool;
    options.threads = 1;
    ASSERT_OK_AND_ASSIGN(Literal expected, executable->Run(pointers, options));
    for (int threads : {2, 3, 4, 5, 7}) {
      options.threads = threads;
      ASSERT_OK_AND_ASSIGN(Literal result, executable->Run(pointers, options));
      EXPECT_EQ(result, expected) << threads << " threads";
    }
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run(pointers));
    EXPECT_EQ(result, expected) << "the default pool";
  }
}

}  // namespace
}  // namespace mxla
