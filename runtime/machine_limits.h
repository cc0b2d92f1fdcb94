// What this machine can do at most, for rating kernels (runtime/profile.h,
// `mxla bench --filter M`): the peak FLOP/s and the memory bandwidth at a
// thread count.
//
// Measured once per thread count per process, in about 0.1 s:
//   * peak: an FMA loop of 12 independent vector accumulators per thread
//     (AVX-512 where the CPU has it, else AVX2+FMA, else SSE multiply-adds),
//     2 FLOPs per lane, the best of 5 runs of ~4 ms (as the anchors' G5);
//   * bandwidth: STREAM triad (a = b + s*c) over three 64 MiB float arrays,
//     12 bytes per element, the best of 3 runs after a warm-up.
// Both run on the thread pool with `threads` chunks, so a busy machine
// measures lower. MXLA_MACHINE_LIMITS="GFLOPS,GBPS" (two positive numbers)
// gives them instead, for every thread count; an invalid value is ignored
// with a warning on stderr, and measured.
#ifndef MXLA_RUNTIME_MACHINE_LIMITS_H_
#define MXLA_RUNTIME_MACHINE_LIMITS_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace mxla {

class ThreadPool;

struct MachineLimits {
  double flops_per_second = 0;
  double bytes_per_second = 0;
  // How they were found, for the reader: "measured: FMA peak and STREAM
  // triad, 2 threads" or "MXLA_MACHINE_LIMITS".
  std::string source;
};

// The limits for runs on `threads` threads of `pool` (threads <= its size).
// Thread-safe; the first call per thread count measures.
MachineLimits MachineLimitsFor(ThreadPool& pool, int threads);

// MXLA_MACHINE_LIMITS's value parsed: "GFLOPS,GBPS"; nullopt if malformed.
std::optional<MachineLimits> ParseMachineLimits(absl::string_view text);

}  // namespace mxla

#endif  // MXLA_RUNTIME_MACHINE_LIMITS_H_
