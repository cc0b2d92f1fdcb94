#include "runtime/native_loop.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace mxla {
namespace {

// What the driver's parallel_for gets as its `pool`.
struct PoolContext {
  ThreadPool* pool;
  int threads;
};

// The driver's parallel_for (codegen/aot_module.h), splitting as the JIT's
// RunStep does: at most max_chunks chunks on at most `threads` threads.
void ParallelFor(void* context, KernelFunction kernel, void* const* buffers,
                 int64_t units, int64_t max_chunks) {
  const PoolContext& run = *static_cast<const PoolContext*>(context);
  const int64_t chunks = std::min<int64_t>(max_chunks, run.threads);
  if (chunks <= 1) {
    kernel(buffers, 0, units);
    return;
  }
  run.pool->ParallelFor(units, chunks, [&](int64_t begin, int64_t end) {
    kernel(buffers, begin, end);
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<NativeLoop>> NativeLoop::Load(
    std::string object, const std::string& symbol, int64_t temp_bytes) {
  KernelInfo driver;
  driver.fusion_name = symbol;
  driver.symbol = symbol;
  std::vector<std::string> objects;
  objects.push_back(std::move(object));
  ASSIGN_OR_RETURN(std::unique_ptr<JitKernels> code,
                   JitKernels::Load({driver}, objects));
  std::unique_ptr<NativeLoop> native(new NativeLoop());
  // Looked up as a kernel, called with the driver's own signature.
  native->driver_ = reinterpret_cast<Driver>(code->Lookup(symbol));
  RET_CHECK(native->driver_ != nullptr, "no driver ", symbol);
  native->code_ = std::move(code);
  native->temp_bytes_ = temp_bytes;
  return native;
}

void NativeLoop::Run(absl::Span<void* const> state, void* temp,
                     ThreadPool& pool, int threads) const {
  PoolContext context{&pool, threads};
  void* parallel_for =
      threads > 1 ? reinterpret_cast<void*>(&ParallelFor) : nullptr;
  driver_(state.data(), state.data(), temp, parallel_for, &context);
}

}  // namespace mxla
