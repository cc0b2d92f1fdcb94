// `mxla bench --filter X`, in-process part: an all-reduce (sum) of one f32
// buffer across 2 devices that are threads of this process, against memcpy
// of the same buffer, the reference issue 39's target is stated in.
//
// Four measurements, interleaved run by run, each the median of `runs`:
//   memcpy, 1 thread          reads the buffer once and writes it once;
//   memcpy, 2 threads         the same bytes, each thread copies one half;
//   all-reduce, communicator  InProcessCommunicator::AllReduce on 2 threads
//                             (as RunReplicated's devices call it), with the
//                             combiner the compiled module uses;
//   all-reduce, module        a compiled `all-reduce` module run through
//                             Executable::RunReplicated at 2 threads (its
//                             device threads, result allocation and checks
//                             included).
// GB/s is buffer bytes / time (NCCL's "algorithm bandwidth"). An
// all-reduce of 2 devices reads 2 operands and writes 2 results: twice
// memcpy's memory traffic for the same buffer, so 50% of memcpy's GB/s is
// the same bytes per second through memory. Both are printed.
#ifndef MXLA_TOOLS_BENCH_COLLECTIVES_H_
#define MXLA_TOOLS_BENCH_COLLECTIVES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace mxla::tools {

struct CollectiveBenchOptions {
  int64_t bytes = int64_t{64} << 20;  // a multiple of 8 (two f32 halves)
  int runs = 10;
  // Called before each timed run (the bench flushes the last-level cache).
  std::function<void()> before_each = [] {};
};

// Prints the table to stdout and appends one JSON record per measurement
// to `json`. InvalidArgument for a size that is not a positive multiple of
// 8 bytes; Internal when an all-reduce's result is not the sum.
absl::Status BenchInProcessAllReduce(const CollectiveBenchOptions& options,
                                     std::vector<std::string>& json);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_BENCH_COLLECTIVES_H_
