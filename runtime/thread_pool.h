// A persistent pool of worker threads for splitting a kernel's iteration
// space. Threads are started once and reused: starting threads per call
// costs more than a small kernel (~100 us here). Waking a sleeping thread
// costs tens of microseconds too (25-65 us here), so a worker that
// finished a job watches for the next one for a while before it sleeps
// (the pool's idle spin: 10 ms by default, MXLA_SPIN_US for the default
// pool), and a caller watches its helpers finish rather than sleeping
// until they do. GNU OpenMP, which oneDNN and OpenBLAS run on, spins 4-8
// ms here before it sleeps, Intel's OpenMP 200 ms: a model called in a
// loop with a few milliseconds of other work between calls finds its
// threads awake. An idle worker pauses for its first 100 us and then
// yields the processor between looks, so a busy machine gets it back.
//
// ParallelFor may be called from many threads at once, and from inside no
// kernel: the caller always takes part, so a call completes even when every
// worker is busy with other callers' work. How the range is split never
// changes results: each unit is computed by exactly one call of `fn`.
// ParallelFor never allocates: its bookkeeping lives on the caller's stack.
//
// Thread counts from users (RunOptions::threads, MXLA_THREADS, `--threads`
// flags) must lie in [1, kMaxThreads]; CheckThreadCount and ParseThreadCount
// turn anything else into InvalidArgument naming its source.
#ifndef MXLA_RUNTIME_THREAD_POOL_H_
#define MXLA_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

// More threads than this is a typo, not a machine.
inline constexpr int kMaxThreads = 1024;

// OK iff 1 <= threads <= kMaxThreads; otherwise InvalidArgument naming
// `source` (e.g. "RunOptions::threads") and the value.
absl::Status CheckThreadCount(int64_t threads, absl::string_view source);

// A decimal thread count in [1, kMaxThreads], nothing else (no sign, no
// spaces, no suffix); otherwise InvalidArgument naming `source` and `text`.
absl::StatusOr<int> ParseThreadCount(absl::string_view text,
                                     absl::string_view source);

// The default pool's size for an MXLA_THREADS value (`env` null when it is
// unset): ParseThreadCount(env, "MXLA_THREADS"), or the hardware threads
// (at least 1, at most kMaxThreads) when unset.
absl::StatusOr<int> DefaultThreadCount(const char* env);

// How long an idle worker watches for work before it sleeps, by default
// and at most.
inline constexpr std::chrono::microseconds kDefaultIdleSpin{10'000};
inline constexpr std::chrono::microseconds kMaxIdleSpin{1'000'000};

// The default pool's idle spin for an MXLA_SPIN_US value (`env` null when
// it is unset): a decimal count of microseconds from 0 (sleep at once) to
// kMaxIdleSpin, nothing else; InvalidArgument naming MXLA_SPIN_US and the
// value otherwise. kDefaultIdleSpin when unset.
absl::StatusOr<std::chrono::microseconds> DefaultIdleSpin(const char* env);

class ThreadPool {
 public:
  // `threads` counts the caller: a pool of 1 runs everything inline.
  // Requires 1 <= threads <= kMaxThreads (check user input with
  // CheckThreadCount first); other values are clamped into that range.
  // `idle_spin` (clamped into [0, kMaxIdleSpin]): how long a worker that
  // finished a job watches for the next before it sleeps.
  explicit ThreadPool(int threads,
                      std::chrono::microseconds idle_spin = kDefaultIdleSpin);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  std::chrono::microseconds idle_spin() const { return idle_spin_; }

  // Calls fn(begin, end) on min(units, max_chunks, threads()) disjoint
  // chunks of near-equal size that cover [0, units), in parallel; returns
  // when all have run. The caller runs chunks too, and a single chunk runs
  // on the caller alone.
  void ParallelFor(int64_t units, int64_t max_chunks,
                   absl::FunctionRef<void(int64_t, int64_t)> fn);

  // The process-wide pool, created on first use with
  // DefaultThreadCount(getenv("MXLA_THREADS")) threads and
  // DefaultIdleSpin(getenv("MXLA_SPIN_US")); both are read once per
  // process. An invalid MXLA_THREADS leaves this pool with one thread, an
  // invalid MXLA_SPIN_US with the default spin, and DefaultStatus() is
  // then the InvalidArgument that every run on the default pool returns.
  static ThreadPool& Default();
  // OK, or the InvalidArgument naming an invalid MXLA_THREADS or
  // MXLA_SPIN_US (the first, if both are).
  static absl::Status DefaultStatus();

 private:
  struct Job;
  void WorkerLoop();
  // Returns when has_work_ is set, or after idle_spin_.
  void AwaitWork();
  void Unlink(Job& job);

  const std::chrono::microseconds idle_spin_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Jobs that want more helpers, oldest first: an intrusive list through
  // Job::next, so queueing allocates nothing.
  Job* queue_head_ = nullptr;
  Job* queue_tail_ = nullptr;
  bool stopping_ = false;
  // Whether the queue holds a job, readable without the mutex: a worker
  // that finished a job watches it for a while before it sleeps
  // (WorkerLoop), since waking a sleeping thread here takes tens of
  // microseconds, longer than a small kernel's half.
  std::atomic<bool> has_work_{false};
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_THREAD_POOL_H_
