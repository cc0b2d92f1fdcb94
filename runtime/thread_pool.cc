#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace mxla {

// One ParallelFor call: chunks are claimed with an atomic counter by the
// caller and by any worker that picks the job up.
struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t units;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;

  // Runs chunks until none is left.
  void Help() {
    for (int64_t chunk = next.fetch_add(1); chunk < chunks;
         chunk = next.fetch_add(1)) {
      int64_t begin = units * chunk / chunks;
      int64_t end = units * (chunk + 1) / chunks;
      (*fn)(begin, end);
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job->Help();
  }
}

void ThreadPool::ParallelFor(int64_t units, int64_t max_chunks,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (units <= 0) return;
  int64_t chunks = std::min<int64_t>({units, max_chunks, threads()});
  if (chunks <= 1) {
    fn(0, units);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->units = units;
  job->chunks = chunks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t i = 1; i < chunks; ++i) queue_.push_back(job);
  }
  wake_.notify_all();
  job->Help();
  std::unique_lock<std::mutex> lock(job->mutex);
  job->finished.wait(lock, [&] { return job->done.load() == chunks; });
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool* pool = [] {
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("MXLA_THREADS")) {
      threads = std::atoi(env);
    }
    return new ThreadPool(std::max(threads, 1));
  }();
  return *pool;
}

}  // namespace mxla
