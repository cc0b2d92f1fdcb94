// Compile-time scaling with graph size: graphs built, compiled by the JIT
// and run, up to 100,000 instructions. Time per instruction should stay
// flat: every stage is linear, and fusion caps kernel size
// (passes/fusion.h). The graphs:
//   chain       v <- v * 0.5 + x on f32[1024], at 1,000 to 100,000
//               instructions;
//   constants   s <- s + c_i on f32[] with 16,384 distinct scalar constants
//               (CSE once compared every constant with every other);
//   broadcasts  v <- v + c_i on f32[1024]: 16,384 distinct constants, each
//               broadcast by lower-broadcasts.
// Each is compiled once through an empty compile cache (a miss: fingerprint,
// passes, LLVM), then served from the cache (a hit).
#ifndef MXLA_TOOLS_BENCH_SCALING_H_
#define MXLA_TOOLS_BENCH_SCALING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"

namespace mxla::tools {

struct ScalingPoint {
  std::string graph;         // "chain", "constants" or "broadcasts"
  int64_t instructions = 0;  // in the built computation
  double build_ms = 0;       // the builder calls and Build()
  double compile_ms = 0;     // Compile(), a cache miss: passes, fusion, LLVM
  double hit_us = 0;         // Compile() again: a cache hit (median of 11)
  double run_ms = 0;         // one Run
  int64_t kernels = 0;       // fusions in the compiled module
};

// Every graph above, in that order.
absl::StatusOr<std::vector<ScalingPoint>> MeasureGraphScaling();

// The model stack (tools/model_stack.h) at a number of layers, compiled
// cold (the in-process cache bypassed) a few times: the median compile and
// its split into the compile pipeline's stages (driver/compile_pipeline.h).
struct StackPoint {
  int64_t layers = 0;
  int64_t instructions = 0;  // in the built computation
  int64_t fusions = 0;
  int64_t kernels = 0;       // distinct kernels (codegen/compiler.h)
  double compile_ms = 0;     // median of the cold compiles
  // The stages of that median compile.
  double verify_ms = 0, passes_ms = 0, assign_ms = 0, emit_ms = 0,
         optimize_ms = 0, link_ms = 0;
  double run_ms = 0;         // one run, after a warm-up run
};

// 1, 4, 12 and 24 layers (bench_stack.cc), compiled with `codegen`.
absl::StatusOr<std::vector<StackPoint>> MeasureStackCompiles(
    const CodegenOptions& codegen);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_BENCH_SCALING_H_
