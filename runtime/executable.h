// Executable: a compiled computation, immutable after Compile() and safe to
// Run from many threads at once. Run checks its arguments (count, null,
// element type, dimensions, tuple structure): InvalidArgument, naming the
// offending parameter when there is one. Every Run API checks its
// RunOptions first.
#ifndef MXLA_RUNTIME_EXECUTABLE_H_
#define MXLA_RUNTIME_EXECUTABLE_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "ir/buffer_allocator.h"
#include "ir/device_assignment.h"
#include "ir/hlo_module.h"
#include "ir/host_feed.h"
#include "ir/run_device.h"
#include "ir/literal.h"

namespace mxla {

class ThreadPool;  // runtime/thread_pool.h
class RunProfile;  // runtime/profile.h

// How one run uses threads and memory. Results never depend on threads: a
// kernel computes every element the same way however its range is split,
// and reductions combine their chunks in a fixed order.
struct RunOptions {
  // Whose threads help run the kernels, borrowed for the call; it may serve
  // other runs at the same time. Null: ThreadPool::Default(), whose size is
  // MXLA_THREADS or else the machine's hardware threads; an invalid
  // MXLA_THREADS is then the run's InvalidArgument.
  ThreadPool* thread_pool = nullptr;
  // The most threads, the caller included, that work on one kernel; above
  // the pool's size it means the pool's size. Unset: the whole pool. 1 runs
  // every kernel on the calling thread. InvalidArgument naming
  // RunOptions::threads outside [1, kMaxThreads] (thread_pool.h).
  std::optional<int> threads;
  // Where Run allocates its result literal (and the interpreter's copies of
  // RunBuffers' arguments); it must outlive the result. Null: the runtime's
  // pooled huge-page allocator (runtime/host_buffer.h).
  const BufferAllocator* allocator = nullptr;
  // The interpreter's budget for every value it holds (EvaluatorOptions);
  // the jit checks its budget at Compile (CompileOptions). Unset:
  // MemoryLimitBytes() (runtime/memory_limit.h).
  std::optional<int64_t> memory_limit_bytes;
  // The most trips through a while loop's body in one run of the loop,
  // beyond which the run fails (ResourceExhausted naming the loop). Unset:
  // no limit, as in XLA (a loop that never ends never returns).
  std::optional<int64_t> max_loop_trips;
  // What the module's infeed ops read and its outfeed ops write
  // (ir/host_feed.h), borrowed for the call. Null: an infeed or outfeed
  // fails the run (FailedPrecondition naming it).
  HostFeed* host_feed = nullptr;
  // Time each kernel of the run (runtime/profile.h). With no
  // `profile_sink`, the table is printed to stderr when the run ends (the
  // first profiled run on a thread count measures the machine's limits,
  // runtime/machine_limits.h); with one, the run's rows are added to it and
  // nothing is printed. False (the default): no clock is read, and the sink
  // is ignored. A profiled run runs while loops step by step, kernel by
  // kernel, even where they have a native loop (runtime/native_loop.h): a
  // loop's time then includes the per-step dispatch the native loop saves.
  bool profile = false;
  // Borrowed for the call; one run at a time.
  RunProfile* profile_sink = nullptr;
  // Which copy of a replicated program this run is and how it reaches the
  // others (ir/run_device.h), borrowed for the call. Null: device 0 of one
  // replica of one partition. Executable::RunReplicated fills it in.
  const RunDevice* device = nullptr;
  // RunReplicated: how long a device waits at a collective for the others
  // before the run fails (DeadlineExceeded naming the devices missing). A
  // device that fails stops the others at once; this bounds only programs
  // whose devices diverge.
  absl::Duration collective_timeout = absl::Minutes(5);
};

// How Executable::RunReplicated splits its threads between devices: each
// of `devices` runs its kernels on max(1, threads / devices) threads, its
// own among them.
int ThreadsPerDevice(int threads, int64_t devices);

class Executable {
 public:
  // Shares `module`, which must be non-null with an entry computation.
  explicit Executable(std::shared_ptr<const HloModule> module)
      : module_(std::move(module)) {}
  virtual ~Executable() = default;

  // One literal per entry parameter, in parameter-number order (a tuple
  // literal for a tuple parameter), borrowed for the call; the result,
  // owned by the caller, is a tuple literal for a tuple root. Beyond the
  // argument check, Run returns ResourceExhausted if its result or
  // temporaries cannot be allocated, and the interpreter the evaluator's
  // errors. Tuples may nest, in parameters and results alike.
  absl::StatusOr<Literal> Run(absl::Span<const Literal* const> arguments,
                              const RunOptions& options = {}) const;

  // The zero-copy variant on caller-owned, row-major buffers, one per array
  // leaf in XLA's order (runtime/buffer_leaves.h): the arguments parameter
  // by parameter, a tuple parameter flattened depth-first into its
  // elements; the results likewise from the root's shape. Each buffer has
  // the exact byte size of its leaf's shape; result buffers must not
  // overlap argument buffers or each other, with one exception:
  //
  // Donation. When the module has an input_output_alias (XLA's; from HLO
  // text or XlaBuilder::SetUpAlias; ResolveInputOutputAliases(module())
  // lists it as buffer numbers), passing result buffer r equal to the
  // argument buffer a it aliases donates that argument: the run writes
  // result r into it in place (no copy in or out), and afterwards the
  // buffer holds result r; the argument's old value is gone. A donated
  // buffer must overlap no other argument. An aliased argument that is not
  // donated (its result buffer is another one) is left untouched: the run
  // first copies it into its result buffer and works there. Run (on
  // literals) never donates: its arguments are const.
  //
  // This form checks only the buffer counts (InvalidArgument). It cannot
  // check sizes, null pointers or overlaps (it has no sizes): a short,
  // null or overlapping buffer is undefined behavior. The jit checks the
  // counts before running; the interpreter copies through literals and
  // checks the result count after running. The jit's RunBuffers allocates
  // nothing once the executable has run as many calls at once before (it
  // keeps their temporaries for reuse).
  absl::Status RunBuffers(absl::Span<const void* const> arguments,
                          absl::Span<void* const> results,
                          const RunOptions& options = {}) const;

  // RunBuffers with the byte size the caller allocated for each buffer
  // (parallel spans). Checks, without allocating, before anything runs:
  // both counts, every size (exactly its leaf's byte size), no null pointer
  // for a non-empty leaf, and no result buffer overlapping an argument or
  // another result; InvalidArgument naming the first offending buffer, its
  // parameter, tuple element and shape. It still cannot check that the
  // memory behind a pointer really has the size passed, or that argument
  // buffers are not written by another thread during the run.
  absl::Status RunBuffers(absl::Span<const void* const> arguments,
                          absl::Span<const int64_t> argument_sizes,
                          absl::Span<void* const> results,
                          absl::Span<const int64_t> result_sizes,
                          const RunOptions& options = {}) const;

  // Runs the program once on every device of `assignment` at once, each
  // copy knowing its replica and partition (replica-id, partition-id) and
  // exchanging through in-process communicators
  // (runtime/in_process_communicator.h). `arguments[d]` are device d's
  // arguments (d a global device id), as Run takes them; the results come
  // back in device-id order. Each device runs on a thread of its own (the
  // caller's for device 0, the others started for the call: a device that
  // waits at a collective must not hold a pool worker that another
  // device's kernels need), and its kernels on its share of the options'
  // pool and `options.threads` (at least one each). options.device must be
  // null. InvalidArgument when the
  // argument lists are not one per device, or as Run for each device's
  // arguments (naming the device); when a device fails, every device's
  // run stops at its next collective and an error is returned, naming the
  // device: that of the lowest-numbered device that failed on its own
  // (not by being stopped). The pool is split evenly: with T threads and N
  // devices each device runs its kernels on max(1, T / N) threads, its
  // own thread among them.
  absl::StatusOr<std::vector<Literal>> RunReplicated(
      absl::Span<const std::vector<const Literal*>> arguments,
      const DeviceAssignment& assignment,
      const RunOptions& options = {}) const;

  // One device's buffers for RunReplicatedBuffers, as the sized
  // RunBuffers takes them.
  struct DeviceBuffers {
    std::vector<const void*> arguments;
    std::vector<int64_t> argument_sizes;
    std::vector<void*> results;
    std::vector<int64_t> result_sizes;
  };
  // RunReplicated on caller-owned buffers, without literals: device d
  // reads `devices[d]`'s arguments and writes its results in place, with
  // RunBuffers' donation and checks (every device's buffers are checked
  // before any device runs; InvalidArgument naming the device). Errors as
  // RunReplicated's.
  absl::Status RunReplicatedBuffers(absl::Span<const DeviceBuffers> devices,
                                    const DeviceAssignment& assignment,
                                    const RunOptions& options = {}) const;

  // The module after the compile pipeline; valid while the executable
  // lives.
  const HloModule& module() const { return *module_; }

 protected:
  // RunOptions after the checks: a pool, 1 <= threads <= its size, and the
  // defaults filled in.
  struct RunContext {
    ThreadPool* pool;
    int threads;
    const BufferAllocator* allocator;
    int64_t memory_limit_bytes;
    int64_t max_loop_trips;  // negative: none
    HostFeed* host_feed;
    RunProfile* profile = nullptr;  // set when the run is profiled
    const RunDevice* device = nullptr;
  };
  // Run and RunBuffers after the options are checked.
  virtual absl::StatusOr<Literal> DoRun(
      absl::Span<const Literal* const> arguments,
      const RunContext& threads) const = 0;
  // The default copies through literals and DoRun.
  virtual absl::Status DoRunBuffers(absl::Span<const void* const> arguments,
                                    absl::Span<void* const> results,
                                    const RunContext& threads) const;

 private:
  static absl::StatusOr<RunContext> ResolveOptions(const RunOptions& options);
  // Runs `run(d, options_d)` for every device of `assignment` at once, each
  // on a thread of its own with its RunDevice and share of the threads;
  // the first device's own error, naming it (RunReplicated's rules).
  absl::Status RunEachDevice(
      const DeviceAssignment& assignment, const RunOptions& options,
      absl::FunctionRef<absl::Status(int64_t, const RunOptions&)> run) const;
  // `run` (DoRun or DoRunBuffers on `context`) timed into the options'
  // profile sink, or into a new profile printed afterwards.
  template <typename Result, typename Fn>
  static Result Profiled(const RunOptions& options, RunContext& context,
                         Fn run);

  std::shared_ptr<const HloModule> module_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_EXECUTABLE_H_
