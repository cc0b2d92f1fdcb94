// A persistent pool of worker threads for splitting a kernel's iteration
// space. Threads are started once and reused: starting threads per call
// costs more than a small kernel (~100 us here).
//
// ParallelFor may be called from many threads at once, and from inside no
// kernel: the caller always takes part, so a call completes even when every
// worker is busy with other callers' work. How the range is split never
// changes results: each unit is computed by exactly one call of `fn`.
#ifndef MXLA_RUNTIME_THREAD_POOL_H_
#define MXLA_RUNTIME_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mxla {

class ThreadPool {
 public:
  // `threads` counts the caller: a pool of 1 runs everything inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, units), at most
  // `max_chunks` of them, in parallel; returns when all have run.
  void ParallelFor(int64_t units, int64_t max_chunks,
                   const std::function<void(int64_t, int64_t)>& fn);

  // The process-wide pool, sized to the machine's cores (MXLA_THREADS
  // overrides), created on first use.
  static ThreadPool& Default();

 private:
  struct Job;
  void WorkerLoop();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_THREAD_POOL_H_
