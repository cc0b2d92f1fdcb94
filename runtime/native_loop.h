// A while loop compiled whole into one native function: the ahead-of-time
// driver (codegen/aot_module.h), which runs the condition, the body and
// every loop, conditional, sort and scatter inside them as direct calls to
// their kernels, loaded into the process's JIT. The compile driver makes
// the object (driver/native_loop_compile.h); this is the run-time half. The JIT's RunLoop calls it
// instead of running the condition's and body's programs step by step
// (which it still does when a run limits the trips or is profiled), which
// costs microseconds per trip (issue 36: a threefry body of ~30 tiny
// kernels took 10 us per trip, the native loop a few hundred ns).
//
// The loop runs in place on its state: the module compiled is the loop
// alone, `(state) -> while(state)` with every state leaf aliased to itself
// (input_output_alias), and Run passes the state's buffers as both its
// arguments and its results. Its results match the step-by-step run's
// bits: the same kernels, split across threads the same way.
#ifndef MXLA_RUNTIME_NATIVE_LOOP_H_
#define MXLA_RUNTIME_NATIVE_LOOP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/compiler.h"

namespace mxla {

class ThreadPool;

class NativeLoop {
 public:
  // The loop in `object`, an ahead-of-time object of the loop's module
  // (driver/aot_compile.h's AotObject), loaded into the process's JIT:
  // `symbol` is its driver's NAME_parallel, which Run calls with
  // `temp_bytes` of scratch. Errors: JitKernels::Load's, Internal when
  // the object defines no `symbol`.
  static absl::StatusOr<std::unique_ptr<NativeLoop>> Load(
      std::string object, const std::string& symbol, int64_t temp_bytes);

  // Scratch bytes a run needs at `temp` (64-byte aligned).
  int64_t temp_bytes() const { return temp_bytes_; }

  // Runs the loop on `state` (one buffer per array leaf, depth-first),
  // updating it in place, with `temp` of temp_bytes(); kernels worth
  // splitting go to `pool` on at most `threads` threads.
  void Run(absl::Span<void* const> state, void* temp, ThreadPool& pool,
           int threads) const;

 private:
  using Driver = void (*)(const void* const* args, void* const* results,
                          void* temp, void* parallel_for, void* pool);
  NativeLoop() = default;
  std::unique_ptr<JitKernels> code_;  // owns the driver's machine code
  Driver driver_ = nullptr;
  int64_t temp_bytes_ = 0;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_NATIVE_LOOP_H_
