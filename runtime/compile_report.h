// What a compile reports about itself: every stage of the compile pipeline
// (driver/compile_pipeline.h) with its wall time, and every HLO pass run
// inside the "hlo-passes" stage.
#ifndef MXLA_RUNTIME_COMPILE_REPORT_H_
#define MXLA_RUNTIME_COMPILE_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "passes/pass_pipeline.h"

namespace mxla {

struct StageRecord {
  std::string name;
  double milliseconds = 0;
  bool failed = false;
};

// LLVM's time on one distinct kernel (fusions that print alike share one).
struct KernelCompileRecord {
  std::string kernel;      // its symbol, named after its first fusion
  int64_t fusions = 0;     // how many fusions run it
  double optimize_ms = 0;  // the IR pipeline
  double codegen_ms = 0;   // machine code; 0 where the compile made none
};

struct CompileReport {
  std::vector<StageRecord> stages;  // in order, up to the one that failed
  std::vector<PassRecord> passes;   // the hlo-passes stage's pass runs
  // The JIT's distinct kernels, in the order of their first fusions. Their
  // times add up to more than the stages' wall times: kernels compile in
  // parallel.
  std::vector<KernelCompileRecord> kernels;

  // The stage's milliseconds, 0 if it did not run.
  double Milliseconds(absl::string_view stage) const;
  // One line per stage: name, time, "FAILED" for the failed one; and a
  // total. Then, where kernels were compiled, the `slowest_kernels` that
  // took LLVM longest, with their share of all kernels' time: where to look
  // when a model compiles slowly. The format of the dump's stages.txt.
  std::string ToString(int slowest_kernels = 10) const;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_REPORT_H_
