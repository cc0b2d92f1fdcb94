// The allocator and the memory budgets are passed in, not global: each run's
// result comes from RunOptions::allocator (default: the runtime's pool), and
// CompileOptions, RunOptions, EvaluatorOptions and the builder each carry
// their own budget, with the runtime's MemoryLimitBytes() only as default.
#include <atomic>
#include <memory>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/host_buffer.h"
#include "runtime/memory_limit.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr int64_t kMiB = int64_t{1} << 20;

// Counts what it hands out; the memory comes from ir's default.
class CountingAllocator final : public BufferAllocator {
 public:
  HostBuffer Allocate(int64_t bytes) const override {
    allocated_bytes_ += bytes;
    return AlignedBufferAllocator().Allocate(bytes);
  }
  int64_t allocated_bytes() const { return allocated_bytes_; }

 private:
  mutable std::atomic<int64_t> allocated_bytes_{0};
};

// neg(x) on f32[1024,1024]: a 4 MiB result.
XlaComputation Negate() {
  XlaBuilder b("negate");
  Neg(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {1024, 1024}), "x"));
  return *b.Build();
}

std::unique_ptr<Executable> CompileFor(Backend backend,
                                       CompileOptions options = {}) {
  options.backend = backend;
  return *Compile(Negate().module(), options);
}

TEST(MemoryOptionsTest, RunsAllocateTheirResultWithTheGivenAllocator) {
  Literal x(ShapeUtil::MakeShape(F32, {1024, 1024}));
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(backend);
    CountingAllocator counting;
    RunOptions options;
    options.allocator = &counting;
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({&x}, options));
    EXPECT_EQ(counting.allocated_bytes(), 4 * kMiB);
    EXPECT_EQ(result.data<float>()[0], -0.0f);
  }
}

TEST(MemoryOptionsTest, TheDefaultAllocatorIsTheRuntimesPool) {
  Literal x(ShapeUtil::MakeShape(F32, {1024, 1024}));
  std::unique_ptr<Executable> executable = CompileFor(Backend::kJit);
  { ASSERT_OK(executable->Run({&x}).status()); }
  // The freed 4 MiB result went back to the pool.
  EXPECT_GE(PooledHostBufferBytes(), 4 * kMiB);
}

TEST(MemoryOptionsTest, CompileAndRunTakeTheirOwnBudget) {
  ASSERT_GT(MemoryLimitBytes(), 4 * kMiB);
  CompileOptions tight;
  tight.memory_limit_bytes = kMiB;
  tight.use_cache = false;
  EXPECT_THAT(Compile(Negate().module(), tight).status(),
              StatusIs(kInvalid, HasSubstr("over the memory limit of 1048576 "
                                           "bytes")));
  // A cached program is held to the budget of the compile that asks.
  ASSERT_OK(Compile(Negate().module()).status());
  tight.use_cache = true;
  EXPECT_THAT(Compile(Negate().module(), tight).status(),
              StatusIs(kInvalid, HasSubstr("over the memory limit")));

  Literal x(ShapeUtil::MakeShape(F32, {1024, 1024}));
  std::unique_ptr<Executable> interpreter = CompileFor(Backend::kInterpreter);
  RunOptions tight_run;
  tight_run.memory_limit_bytes = kMiB;
  EXPECT_THAT(interpreter->Run({&x}, tight_run).status(),
              StatusIs(kInvalid, HasSubstr("the interpreter's value of "
                                           "instruction")));
  EXPECT_OK(interpreter->Run({&x}).status());
}

TEST(MemoryOptionsTest, TheEvaluatorAndTheBuilderTakeTheirOwnBudget) {
  Literal x(ShapeUtil::MakeShape(F32, {1024, 1024}));
  const Literal* arguments[] = {&x};
  EXPECT_THAT(
      EvaluateModule(Negate().module(), arguments, {.memory_limit_bytes = 16})
          .status(),
      StatusIs(kInvalid, HasSubstr("over the memory limit of 16 bytes")));
  EXPECT_OK(EvaluateModule(Negate().module(), arguments).status());

  XlaBuilder b("constants");
  b.set_memory_limit_bytes(16);
  std::unique_ptr<XlaBuilder> sub = b.CreateSubBuilder("sub");
  EXPECT_EQ(sub->memory_limit_bytes(), 16);
  ConstantR1<float>(&b, 5, 1.0f);  // 20 bytes
  EXPECT_THAT(b.Build().status(),
              StatusIs(kInvalid, HasSubstr("over the memory limit of 16")));
}

}  // namespace
}  // namespace mxla
