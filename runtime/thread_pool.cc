#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"

namespace mxla {

absl::Status CheckThreadCount(int64_t threads, absl::string_view source) {
  if (threads >= 1 && threads <= kMaxThreads) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(source, " is ", threads,
                   ": a thread count must be from 1 to ", kMaxThreads));
}

namespace {

// A decimal of at most 9 digits, nothing else: atoi-style leniency ("4x",
// " 4", "+4") hides typos.
std::optional<int64_t> ParseDigits(absl::string_view text) {
  int64_t value = 0;
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(),
                   [](char c) { return absl::ascii_isdigit(c); }) ||
      !absl::SimpleAtoi(text, &value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

absl::StatusOr<int> ParseThreadCount(absl::string_view text,
                                     absl::string_view source) {
  const std::optional<int64_t> value = ParseDigits(text);
  if (!value.has_value() || !CheckThreadCount(*value, source).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, "='", text, "' is not a thread count: expected an integer "
        "from 1 to ", kMaxThreads));
  }
  return static_cast<int>(*value);
}

absl::StatusOr<int> DefaultThreadCount(const char* env) {
  if (env != nullptr) return ParseThreadCount(env, "MXLA_THREADS");
  // hardware_concurrency() is 0 when the machine does not say.
  int64_t hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<int64_t>(hardware, 1, kMaxThreads));
}

absl::StatusOr<std::chrono::microseconds> DefaultIdleSpin(const char* env) {
  if (env == nullptr) return kDefaultIdleSpin;
  const std::optional<int64_t> value = ParseDigits(env);
  if (!value.has_value() || *value > kMaxIdleSpin.count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MXLA_SPIN_US='", env, "' is not an idle spin: expected an integer "
        "count of microseconds from 0 to ", kMaxIdleSpin.count()));
  }
  return std::chrono::microseconds(*value);
}

namespace {

// How long a caller watches its helpers finish before it sleeps (they
// finish within a chunk), and how long an idle worker pauses before it
// starts yielding the processor between looks at the queue.
constexpr auto kWatchHelpers = std::chrono::microseconds(100);
constexpr auto kPauseBeforeYielding = std::chrono::microseconds(100);

void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// One ParallelFor call, on the caller's stack. Chunks are claimed with an
// atomic counter by the caller and by the workers that join. The pool's
// mutex guards the list links and the helper counts; the caller returns
// only when the job is out of the queue and no helper is inside it, so no
// worker touches the job after that.
struct ThreadPool::Job {
  Job(absl::FunctionRef<void(int64_t, int64_t)> fn, int64_t units,
      int64_t chunks)
      : fn(fn), units(units), chunks(chunks), helpers_wanted(chunks - 1) {}

  // Runs chunks until none is left unclaimed.
  void RunChunks() {
    for (int64_t chunk = next_chunk.fetch_add(1); chunk < chunks;
         chunk = next_chunk.fetch_add(1)) {
      // 128-bit: units * chunk may exceed int64 for huge ranges.
      int64_t begin = static_cast<int64_t>(__int128{units} * chunk / chunks);
      int64_t end =
          static_cast<int64_t>(__int128{units} * (chunk + 1) / chunks);
      fn(begin, end);
    }
  }

  absl::FunctionRef<void(int64_t, int64_t)> fn;
  const int64_t units;
  const int64_t chunks;
  std::atomic<int64_t> next_chunk{0};
  int64_t helpers_wanted;       // guarded by the pool's mutex_
  // Changed only under the pool's mutex_; atomic so that the caller can
  // watch it fall to 0 without the lock before it waits on `idle`.
  std::atomic<int64_t> helpers_active{0};
  bool queued = false;          // guarded by the pool's mutex_
  Job* next = nullptr;          // guarded by the pool's mutex_
  std::condition_variable idle;  // helpers_active reached 0
};

ThreadPool::ThreadPool(int threads, std::chrono::microseconds idle_spin)
    : idle_spin_(std::clamp(idle_spin, std::chrono::microseconds(0),
                            kMaxIdleSpin)) {
  threads = std::clamp(threads, 1, kMaxThreads);
  workers_.reserve(threads - 1);
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

// Requires mutex_ held and job.queued. The queue holds at most one job per
// concurrent caller, so the walk is short.
void ThreadPool::Unlink(Job& job) {
  Job* previous = nullptr;
  for (Job* j = queue_head_; j != &job; j = j->next) previous = j;
  (previous == nullptr ? queue_head_ : previous->next) = job.next;
  if (queue_tail_ == &job) queue_tail_ = previous;
  job.next = nullptr;
  job.queued = false;
  has_work_.store(queue_head_ != nullptr, std::memory_order_relaxed);
}

void ThreadPool::AwaitWork() {
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + idle_spin_;
  const auto pausing = start + std::min(idle_spin_, kPauseBeforeYielding);
  while (!has_work_.load(std::memory_order_relaxed)) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    if (now < pausing) {
      for (int i = 0; i < 64; ++i) Pause();
    } else {
      std::this_thread::yield();
    }
  }
}

void ThreadPool::WorkerLoop() {
  while (true) {
    Job* job;
    AwaitWork();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || queue_head_ != nullptr; });
      if (stopping_) return;
      job = queue_head_;
      ++job->helpers_active;
      if (--job->helpers_wanted == 0) Unlink(*job);
    }
    job->RunChunks();
    std::lock_guard<std::mutex> lock(mutex_);
    // Notified under the lock: the caller cannot see helpers_active == 0,
    // return and destroy `idle` before notify_one has returned.
    if (--job->helpers_active == 0) job->idle.notify_one();
  }
}

void ThreadPool::ParallelFor(int64_t units, int64_t max_chunks,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (units <= 0) return;
  int64_t chunks = std::min<int64_t>({units, max_chunks, threads()});
  if (chunks <= 1) {
    fn(0, units);
    return;
  }
  Job job(fn, units, chunks);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (queue_tail_ == nullptr ? queue_head_ : queue_tail_->next) = &job;
    queue_tail_ = &job;
    job.queued = true;
    has_work_.store(true, std::memory_order_relaxed);
  }
  // A wake-up that finds every worker busy is lost, which is fine: a worker
  // checks the queue before it sleeps, and the caller runs what is left.
  for (int64_t i = 1; i < chunks; ++i) wake_.notify_one();
  job.RunChunks();
  // The helpers still running finish within a chunk: watching for that
  // beats sleeping on `idle`, whose wake-up here takes tens of
  // microseconds (a 24 us kernel split in two took 32 us). Taking the
  // lock afterwards waits out a helper's notify.
  const auto until = std::chrono::steady_clock::now() + kWatchHelpers;
  while (job.helpers_active.load(std::memory_order_acquire) != 0 &&
         std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 16; ++i) Pause();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (job.queued) Unlink(job);
  job.idle.wait(lock, [&] { return job.helpers_active == 0; });
}

namespace {

// MXLA_THREADS as read at the default pool's creation.
const absl::StatusOr<int>& DefaultThreadCountFromEnvironment() {
  static const absl::StatusOr<int>* threads = new absl::StatusOr<int>(
      DefaultThreadCount(std::getenv("MXLA_THREADS")));
  return *threads;
}

using Microseconds = std::chrono::microseconds;

// MXLA_SPIN_US as read at the default pool's creation.
const absl::StatusOr<Microseconds>& DefaultIdleSpinFromEnvironment() {
  static const auto* spin = new absl::StatusOr<Microseconds>(
      DefaultIdleSpin(std::getenv("MXLA_SPIN_US")));
  return *spin;
}

}  // namespace

ThreadPool& ThreadPool::Default() {
  // Leaked on purpose: workers must outlive every static destructor that
  // might still run a kernel.
  static ThreadPool* pool = [] {
    const absl::StatusOr<int>& threads = DefaultThreadCountFromEnvironment();
    const absl::StatusOr<Microseconds>& spin =
        DefaultIdleSpinFromEnvironment();
    return new ThreadPool(threads.ok() ? *threads : 1,
                          spin.ok() ? *spin : kDefaultIdleSpin);
  }();
  return *pool;
}

absl::Status ThreadPool::DefaultStatus() {
  RETURN_IF_ERROR(DefaultThreadCountFromEnvironment().status());
  return DefaultIdleSpinFromEnvironment().status();
}

}  // namespace mxla
