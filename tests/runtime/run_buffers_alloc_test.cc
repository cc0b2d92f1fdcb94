// A warm RunBuffers call on preallocated buffers makes no heap call, on any
// thread: not for the pool's hand-off of a multi-chunk kernel, not for the
// arena of temporaries, not for the kernels' pointer tables.
//
// This binary counts every allocation: it replaces the global operator new
// and interposes malloc and its relatives (forwarding to glibc's
// __libc_* entry points). Sanitizer runtimes own malloc, so under them the
// counting is compiled out and the test skips.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <new>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gtest/gtest.h"
#include "runtime/host_buffer.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/status_matchers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MXLA_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define MXLA_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef MXLA_COUNT_ALLOCATIONS
#define MXLA_COUNT_ALLOCATIONS 1
#endif

namespace {

std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};

void Count() {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

#if MXLA_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);

void* malloc(size_t size) noexcept {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) noexcept {
  Count();
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(size_t alignment, size_t size) noexcept {
  Count();
  return __libc_memalign(alignment, size);
}
void* memalign(size_t alignment, size_t size) noexcept {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  Count();
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}
void free(void* pointer) noexcept { __libc_free(pointer); }
}  // extern "C"

// Through the counting malloc; aligned forms through aligned_alloc.
void* operator new(size_t size) {
  if (void* pointer = malloc(size == 0 ? 1 : size)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return malloc(size == 0 ? 1 : size);
}
void* operator new(size_t size, std::align_val_t alignment) {
  size_t a = static_cast<size_t>(alignment);
  if (void* pointer = aligned_alloc(a, (size + a - 1) / a * a)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void operator delete(void* pointer) noexcept { free(pointer); }
void operator delete[](void* pointer) noexcept { free(pointer); }
void operator delete(void* pointer, size_t) noexcept { free(pointer); }
void operator delete[](void* pointer, size_t) noexcept { free(pointer); }
void operator delete(void* pointer, std::align_val_t) noexcept { free(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept {
  free(pointer);
}
void operator delete(void* pointer, size_t, std::align_val_t) noexcept {
  free(pointer);
}
void operator delete[](void* pointer, size_t, std::align_val_t) noexcept {
  free(pointer);
}
#endif  // MXLA_COUNT_ALLOCATIONS

namespace mxla {
namespace {

constexpr int64_t kRows = 1024, kCols = 1024;

// x - broadcast(column max of x): the column reduction is its own kernel
// whose result lives in the arena; the subtraction moves 8 MiB and is split
// into many chunks.
XlaComputation CenterColumns() {
  XlaBuilder b("center_columns");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {kRows, kCols}), "x");
  XlaOp m = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                   CreateScalarMaxComputation(F32, &b), {0});
  Sub(x, m, {1});
  return *b.Build();
}

// The counter sees what it must, or a zero below would prove nothing.
TEST(RunBuffersAllocationTest, TheCounterSeesAllocations) {
  if (!MXLA_COUNT_ALLOCATIONS) GTEST_SKIP() << "sanitizer build";
  void* (*volatile allocate)(size_t) = &std::malloc;
  allocations = 0;
  counting = true;
  void* raw = allocate(24);
  HostBuffer small = AllocateHostBuffer(100);
  auto* boxed = new int(7);
  counting = false;
  EXPECT_GE(allocations.load(), 3);
  delete boxed;
  std::free(raw);
}

// exp(x) * 2: one multi-chunk kernel and no temporaries, so the run leases
// no scratch and its pointer table lives on the stack.
XlaComputation ExpTimesTwo() {
  XlaBuilder b("exp_times_two");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {kRows, kCols}), "x");
  Mul(Exp(x), ConstantR0<float>(&b, 2));
  return *b.Build();
}

// Warm runs of `computation` on a caller's pool of 3 and on the default
// pool limited to 2 threads make no heap call.
void ExpectWarmRunsAllocateNothing(const XlaComputation& computation,
                                   bool has_temporaries) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(computation));
  const auto& jit = dynamic_cast<const JitExecutable&>(*executable);
  EXPECT_EQ(jit.buffers().arena_bytes > 0, has_temporaries);
  int64_t most_chunks = 0;
  for (const auto& step : jit.program()->steps) {
    most_chunks = std::max(most_chunks, step.max_chunks);
  }
  ASSERT_GE(most_chunks, 3);

  Literal x(ShapeUtil::MakeShape(F32, {kRows, kCols}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = std::sin(0.01f * i);
  }
  Literal out(x.shape());
  const void* arguments[] = {x.untyped_data()};
  void* results[] = {out.untyped_data()};
  ThreadPool pool(3);
  RunOptions own_pool;
  own_pool.thread_pool = &pool;
  RunOptions two_threads;
  two_threads.threads = 2;
  for (const RunOptions* options : {&own_pool, &two_threads}) {
    for (int warm = 0; warm < 3; ++warm) {
      ASSERT_OK(executable->RunBuffers(arguments, results, *options));
    }
    allocations = 0;
    counting = true;
    absl::Status status;
    for (int run = 0; run < 10; ++run) {
      status.Update(executable->RunBuffers(arguments, results, *options));
    }
    counting = false;
    ASSERT_OK(status);
    EXPECT_EQ(allocations.load(), 0)
        << (options == &own_pool ? "own pool of 3" : "default pool, 2 threads");
  }
  ASSERT_OK_AND_ASSIGN(Literal expected, executable->Run({&x}));
  EXPECT_EQ(out, expected);
}

TEST(RunBuffersAllocationTest, AWarmMultiThreadedRunAllocatesNothing) {
  if (!MXLA_COUNT_ALLOCATIONS) GTEST_SKIP() << "sanitizer build";
  {
    SCOPED_TRACE("with temporaries");
    ExpectWarmRunsAllocateNothing(CenterColumns(), true);
  }
  {
    SCOPED_TRACE("without temporaries");
    ExpectWarmRunsAllocateNothing(ExpTimesTwo(), false);
  }
}

}  // namespace
}  // namespace mxla
