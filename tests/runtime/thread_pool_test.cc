// ThreadPool: thread counts and idle spins from users are validated,
// ParallelFor covers its range exactly once whatever the split, runs as
// many chunks as it says on as many threads at once, whatever its workers
// did while idle, and serves many callers at a time.
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ThreadCountTest, CheckAcceptsOneToTheMaximum) {
  EXPECT_OK(CheckThreadCount(1, "RunOptions::threads"));
  EXPECT_OK(CheckThreadCount(kMaxThreads, "RunOptions::threads"));
}

TEST(ThreadCountTest, CheckRejectsZeroNegativeAndAbsurdCounts) {
  for (int64_t threads : {int64_t{0}, int64_t{-3}, int64_t{kMaxThreads + 1},
                          int64_t{1} << 40}) {
    EXPECT_THAT(CheckThreadCount(threads, "--threads"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(absl::StrCat("--threads is ", threads)),
                               HasSubstr("from 1 to 1024"))));
  }
}

TEST(ThreadCountTest, ParseAcceptsPlainDecimals) {
  for (auto [text, value] : {std::pair{"1", 1}, {"16", 16}, {"1024", 1024},
                             {"007", 7}}) {
    ASSERT_OK_AND_ASSIGN(int threads, ParseThreadCount(text, "MXLA_THREADS"));
    EXPECT_EQ(threads, value) << text;
  }
}

TEST(ThreadCountTest, ParseRejectsWhatAtoiWouldMisread) {
  for (const char* text : {"abc", "", "0", "-3", "+4", " 4", "4 ", "4x", "2.5",
                           "1025", "99999999999999999999"}) {
    EXPECT_THAT(
        ParseThreadCount(text, "MXLA_THREADS"),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr(absl::StrCat("MXLA_THREADS='", text, "'")),
                       HasSubstr("is not a thread count"),
                       HasSubstr("from 1 to 1024"))))
        << text;
  }
}

TEST(ThreadCountTest, DefaultIsTheEnvironmentOrTheHardware) {
  ASSERT_OK_AND_ASSIGN(int threads, DefaultThreadCount("3"));
  EXPECT_EQ(threads, 3);
  ASSERT_OK_AND_ASSIGN(threads, DefaultThreadCount(nullptr));
  EXPECT_EQ(threads, std::clamp<int>(std::thread::hardware_concurrency(), 1,
                                     kMaxThreads));
  EXPECT_THAT(DefaultThreadCount("abc"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("MXLA_THREADS='abc'")));
}

TEST(IdleSpinTest, DefaultIsTheEnvironmentInMicrosecondsOrTenMilliseconds) {
  using std::chrono::microseconds;
  ASSERT_OK_AND_ASSIGN(microseconds spin, DefaultIdleSpin(nullptr));
  EXPECT_EQ(spin, microseconds(10'000));
  for (auto [text, value] : {std::pair{"0", 0}, {"250", 250},
                             {"1000000", 1'000'000}, {"007", 7}}) {
    ASSERT_OK_AND_ASSIGN(spin, DefaultIdleSpin(text));
    EXPECT_EQ(spin, microseconds(value)) << text;
  }
}

TEST(IdleSpinTest, RejectsWhatAtoiWouldMisreadAndMoreThanASecond) {
  for (const char* text : {"abc", "", "-1", "+4", " 4", "4 ", "10ms", "2.5",
                           "1000001", "99999999999999999999"}) {
    EXPECT_THAT(
        DefaultIdleSpin(text),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr(absl::StrCat("MXLA_SPIN_US='", text, "'")),
                       HasSubstr("is not an idle spin"),
                       HasSubstr("from 0 to 1000000"))))
        << text;
  }
}

// Whether idle workers sleep at once, pause, or pause and then yield, a
// job after any gap still gets every thread: a job's chunks wait for one
// another, which they can only do on distinct threads.
TEST(IdleSpinTest, EverySpinServesJobsAfterAnyGap) {
  using std::chrono::microseconds;
  for (microseconds spin : {microseconds(0), microseconds(50),
                            microseconds(20'000), microseconds(5'000'000)}) {
    ThreadPool pool(3, spin);
    EXPECT_EQ(pool.idle_spin(), std::min(spin, kMaxIdleSpin));
    for (microseconds gap : {microseconds(0), microseconds(300),
                             microseconds(30'000)}) {
      std::this_thread::sleep_for(gap);
      std::atomic<int> started{0};
      std::atomic<bool> all_met{true};
      pool.ParallelFor(3, 3, [&](int64_t, int64_t) {
        ++started;
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (started.load() < 3) {
          if (std::chrono::steady_clock::now() > deadline) {
            all_met = false;
            return;
          }
          std::this_thread::yield();
        }
      });
      EXPECT_TRUE(all_met.load())
          << "spin " << spin.count() << " us, gap " << gap.count() << " us";
    }
  }
}

TEST(ThreadPoolTest, EveryUnitRunsOnceWhateverTheSplit) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    std::vector<std::atomic<int>> seen(1000);
    for (int64_t chunks : {1, 2, 3, 7, 1000, 5000}) {
      for (auto& count : seen) count = 0;
      std::atomic<int64_t> calls{0};
      pool.ParallelFor(1000, chunks, [&](int64_t begin, int64_t end) {
        EXPECT_LT(begin, end);
        ++calls;
        for (int64_t i = begin; i < end; ++i) ++seen[i];
      });
      EXPECT_EQ(calls.load(), std::min<int64_t>(chunks, threads))
          << threads << " threads, " << chunks << " chunks";
      for (int64_t i = 0; i < 1000; ++i) {
        ASSERT_EQ(seen[i].load(), 1) << "unit " << i << ", " << threads
                                     << " threads, " << chunks << " chunks";
      }
    }
  }
}

TEST(ThreadPoolTest, EmptyAndSingleUnitRangesRunInline) {
  ThreadPool pool(4);
  int calls = 0;
  pool.ParallelFor(0, 4, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  std::thread::id ran_on;
  pool.ParallelFor(1, 4, [&](int64_t begin, int64_t end) {
    ++calls;
    ran_on = std::this_thread::get_id();
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// Each chunk waits (up to a deadline) until all of them have started: they
// can only all start if they run on distinct threads at once.
TEST(ThreadPoolTest, APoolOfNRunsNChunksAtOnceOnNThreads) {
  constexpr int kThreads = 4;
  ThreadPool pool(kThreads);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> started{0};
  std::atomic<bool> all_met{true};
  pool.ParallelFor(kThreads * 100, kThreads, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    ++started;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < kThreads) {
      if (std::chrono::steady_clock::now() > deadline) {
        all_met = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(all_met.load());
  EXPECT_EQ(ids.size(), kThreads);
  EXPECT_TRUE(ids.count(std::this_thread::get_id()));
}

// Callers share the workers: every call still covers its own range once.
TEST(ThreadPoolConcurrencyTest, ManyCallersAtOnce) {
  ThreadPool pool(3);
  constexpr int kCallers = 8;
  std::vector<int64_t> sums(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int repeat = 0; repeat < 300; ++repeat) {
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(1000 + c, 2 + repeat % 3,
                         [&](int64_t begin, int64_t end) {
                           int64_t local = 0;
                           for (int64_t i = begin; i < end; ++i) local += i;
                           sum += local;
                         });
        sums[c] += sum.load();
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) {
    int64_t n = 1000 + c;
    EXPECT_EQ(sums[c], 300 * (n * (n - 1) / 2)) << "caller " << c;
  }
}

}  // namespace
}  // namespace mxla
