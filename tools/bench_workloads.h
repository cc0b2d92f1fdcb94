// The workloads of `mxla bench` (issue "Performance"): each builds its
// computation with the builder, makes deterministic inputs, and knows the
// bytes it must move and its hand-written reference loop.
#ifndef MXLA_TOOLS_BENCH_WORKLOADS_H_
#define MXLA_TOOLS_BENCH_WORKLOADS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "ir/literal.h"

namespace mxla::bench {

// Runs a reference loop over its row range [begin, end) of `rows`.
using RowRange = std::function<void(int64_t begin, int64_t end)>;

struct Workload {
  std::string id;           // "W1"
  std::string name;         // "bias_add"
  XlaComputation computation;
  std::vector<Literal> inputs;
  int64_t bytes = 0;        // each input read once, the output written once
  int64_t rows = 0;         // the reference loop's parallel range
  // The reference loop on `inputs` writing `out`, as a row-range function.
  std::function<RowRange(const std::vector<Literal>& inputs, float* out)>
      reference;
  int64_t flops = 0;  // > 0: a compute-bound workload (G), rated in GFLOP/s
};

struct WorkloadFactory {
  const char* id;
  const char* name;
  std::function<Workload()> make;
};

// W1-W6, W8 (x * exp(v) broadcast over rows), W9 (column sum) and W10
// (sum to a scalar), G1 (a 1024^3 matrix product), G2 (an MLP layer), G3
// (attention scores), in order; W7 (small
// dispatch) is W1 at 8x8 (MakeBiasAdd(8, 8)).
const std::vector<WorkloadFactory>& Workloads();
Workload MakeBiasAdd(int64_t rows, int64_t cols);
// G4: [8,8] @ [8,8] (per-call dispatch, like W7).
Workload MakeSmallDot();

}  // namespace mxla::bench

#endif  // MXLA_TOOLS_BENCH_WORKLOADS_H_
