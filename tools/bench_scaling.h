// Compile-time scaling with graph size: a chain of n elementwise
// instructions (v <- v * 0.5 + x) built, compiled by the JIT and run, at a
// few sizes up to 100,000. Time per instruction should stay flat: every
// stage is linear, and fusion caps kernel size (passes/fusion.h).
#ifndef MXLA_TOOLS_BENCH_SCALING_H_
#define MXLA_TOOLS_BENCH_SCALING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace mxla::tools {

struct ScalingPoint {
  int64_t instructions = 0;  // in the built computation
  double build_ms = 0;       // the builder calls and Build()
  double compile_ms = 0;     // Compile(): passes, fusion, LLVM, JIT (no cache)
  double run_ms = 0;         // one Run
  int64_t kernels = 0;       // fusions in the compiled module
};

absl::StatusOr<std::vector<ScalingPoint>> MeasureGraphScaling(
    absl::Span<const int64_t> chain_lengths);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_BENCH_SCALING_H_
