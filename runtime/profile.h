// RunProfile: where one run's time goes, kernel by kernel (XLA's
// --xla_hlo_profile). A run with RunOptions::profile (runtime/executable.h)
// reads the clock around each step of the jit's program: a kernel (a fusion),
// or a runtime step (sort, scatter, select-and-scatter, infeed, outfeed) as
// one row. A while loop's or conditional's computations are profiled into the
// same RunProfile, so a body's kernels count their time over all trips, with
// their call counts; the loop's own row holds what is left (the condition's
// hand-off and the state copies). Without RunOptions::profile no clock is
// read.
//
// Each row has the fusion's name, its plan's kind and its instructions
// (shortened), the FLOPs and bytes one call does, and so GFLOP/s, GB/s and
// a share of the machine's limit (runtime/machine_limits.h):
//   * FLOPs: a dot 2*m*n*k; a convolution 2 * result elements * window taps
//     * input features per group; a reduce of products (an expanded dot or
//     convolution) 2 per reduced element;
//   * bytes: the kernel's operands and results, each once.
// A row shows both rates, and how close it comes to the limit that bounds
// it (the roofline): the longer of its FLOPs at peak and its bytes at full
// bandwidth, over its time.
//
// A RunProfile is filled by one run at a time (its nested loop runs
// included); it owns its rows' text, so it outlives the executables.
#ifndef MXLA_RUNTIME_PROFILE_H_
#define MXLA_RUNTIME_PROFILE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace mxla {

class HloInstruction;
struct MachineLimits;

class RunProfile {
 public:
  // One kernel or runtime step, over every call.
  struct Row {
    std::string name;          // the fusion's or op's name
    std::string kind;          // "loop", "dot", ..., or the op ("while")
    std::string instructions;  // the fused instructions, shortened
    int64_t calls = 0;
    int64_t nanoseconds = 0;
    double flops = 0;  // per call
    double bytes = 0;  // per call
  };

  // Adds one call of the step `instruction` (a fusion or runtime op of a
  // compiled module) that took `nanoseconds` of its own.
  void Add(const HloInstruction& instruction, int64_t nanoseconds);

  // The rows, the slowest first (ties in order of first call).
  std::vector<Row> Rows() const;
  // Whole runs (not nested loop runs) and their wall time.
  int64_t runs() const { return runs_; }
  int64_t run_nanoseconds() const { return run_nanoseconds_; }
  // The rows' time.
  int64_t step_nanoseconds() const { return step_nanoseconds_; }
  int threads() const { return threads_; }

  // The table: a header (runs, wall time, threads, `limits`), one line per
  // row (time, share of the runs' wall time, calls, rate, % of the limit,
  // name, kind, instructions), then the time outside kernels (argument
  // checks, result allocation and copies) so that the shares sum to 100%.
  // With `max_rows` > 0, the rows after the first `max_rows` are summed
  // into one line.
  std::string Format(const MachineLimits& limits, int64_t max_rows = 0) const;

  // Timing scopes (used by the runtime).
  //
  // A whole run: the outermost one on this profile adds its wall time.
  class RunScope {
   public:
    RunScope(RunProfile& profile, int threads);
    ~RunScope();
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;

   private:
    RunProfile& profile_;
    std::chrono::steady_clock::time_point start_;
  };
  // One step of a program; does nothing when `profile` is null. The step's
  // own time excludes the steps nested runs record meanwhile.
  class StepScope {
   public:
    StepScope(RunProfile* profile, const HloInstruction* instruction)
        : profile_(profile), instruction_(instruction) {
      if (profile_ != nullptr) Start();
    }
    ~StepScope() {
      if (profile_ != nullptr) Stop();
    }
    StepScope(const StepScope&) = delete;
    StepScope& operator=(const StepScope&) = delete;

   private:
    void Start();
    void Stop();
    RunProfile* profile_;
    const HloInstruction* instruction_;
    int64_t recorded_before_ = 0;
    std::chrono::steady_clock::time_point start_;
  };

 private:
  struct Entry {
    Row row;
    int64_t order = 0;
  };
  absl::flat_hash_map<const HloInstruction*, Entry> entries_;
  int64_t runs_ = 0;
  int64_t run_nanoseconds_ = 0;
  int64_t step_nanoseconds_ = 0;
  int depth_ = 0;
  int threads_ = 0;
};

// GFLOP/s and GB/s of `flops` and `bytes` done in `seconds` ("-" for none),
// and the share of the roofline limit reached: the time the longer of the
// two would take at the machine's limit, over `seconds` ("-" if none).
struct Rates {
  std::string flops = "-", bytes = "-", limit = "-";
  bool compute_bound = false;  // FLOPs bound it
};
Rates RateAgainst(const MachineLimits& limits, double flops, double bytes,
                  double seconds);

// FLOPs and bytes of one call of a step (see the top of this file).
double StepFlops(const HloInstruction& instruction);
double StepBytes(const HloInstruction& instruction);
// The instructions of a fusion, root first, skipping parameters, constants,
// broadcasts, reshapes, iotas and tuples, at most `max_chars` long with the
// number left out; another op's own name.
std::string StepInstructions(const HloInstruction& instruction,
                             int64_t max_chars = 72);

}  // namespace mxla

#endif  // MXLA_RUNTIME_PROFILE_H_
