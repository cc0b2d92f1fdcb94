#include "runtime/machine_limits.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mxla {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// FMA loops: 12 independent accumulators (more than latency x pipes on
// current cores), `iterations` rounds; returns a value that depends on all
// of them so the loop is not removed. Each returns its FLOPs per round.
constexpr int kAccumulators = 12;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float FmaLoop512(int64_t iterations) {
  __m512 acc[kAccumulators];
  for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm512_set1_ps(j * 0.1f);
  const __m512 a = _mm512_set1_ps(0.5f), b = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kAccumulators; ++j) {
      acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    }
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kAccumulators; ++j) sum = _mm512_add_ps(sum, acc[j]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}

__attribute__((target("avx2,fma"))) float FmaLoop256(int64_t iterations) {
  __m256 acc[kAccumulators];
  for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm256_set1_ps(j * 0.1f);
  const __m256 a = _mm256_set1_ps(0.5f), b = _mm256_set1_ps(1.0f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kAccumulators; ++j) {
      acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    }
  }
  __m256 sum = acc[0];
  for (int j = 1; j < kAccumulators; ++j) sum = _mm256_add_ps(sum, acc[j]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}
#endif

// Portable: a multiply and an add per lane, 4 lanes a vector.
float FmaLoopPlain(int64_t iterations) {
  float acc[kAccumulators][4];
  for (int j = 0; j < kAccumulators; ++j) {
    for (int l = 0; l < 4; ++l) acc[j][l] = j * 0.1f + l;
  }
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kAccumulators; ++j) {
      for (int l = 0; l < 4; ++l) acc[j][l] = acc[j][l] * 0.5f + 1.0f;
    }
  }
  float total = 0;
  for (int j = 0; j < kAccumulators; ++j) {
    for (int l = 0; l < 4; ++l) total += acc[j][l];
  }
  return total;
}

struct FmaLoop {
  float (*run)(int64_t);
  double flops_per_iteration;
};

FmaLoop BestFmaLoop() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) {
    return {&FmaLoop512, 2.0 * 16 * kAccumulators};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {&FmaLoop256, 2.0 * 8 * kAccumulators};
  }
#endif
  return {&FmaLoopPlain, 2.0 * 4 * kAccumulators};
}

double MeasurePeakFlops(ThreadPool& pool, int threads) {
  const FmaLoop loop = BestFmaLoop();
  constexpr int64_t kIterations = 1 << 18;  // ~3 ms at 4 GHz, 2 FMAs/cycle
  std::vector<float> results(threads);
  volatile float sink = 0;
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const Clock::time_point start = Clock::now();
    pool.ParallelFor(threads, threads, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) results[i] = loop.run(kIterations);
    });
    const double seconds = SecondsSince(start);
    best = std::max(best, threads * kIterations * loop.flops_per_iteration /
                              seconds);
    for (float result : results) sink = sink + result;
  }
  return best;
}

// STREAM triad over arrays four times the size of a large L3 (in huge pages,
// so that first touches stay cheap), the best of 3 runs after a warm-up.
double MeasureBandwidth(ThreadPool& pool, int threads) {
  constexpr int64_t kElements = int64_t{16} << 20;  // 64 MiB of floats
  constexpr size_t kBytes = kElements * sizeof(float);
  void* memory = mmap(nullptr, 3 * kBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return 0;
  madvise(memory, 3 * kBytes, MADV_HUGEPAGE);
  float* a = static_cast<float*>(memory);
  float* b = a + kElements;
  float* c = b + kElements;
  auto in_parallel = [&](auto body) {
    pool.ParallelFor(kElements, threads, [&](int64_t begin, int64_t end) {
      body(begin, end);
    });
  };
  in_parallel([&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      a[i] = 0;
      b[i] = 1;
      c[i] = 2;
    }
  });
  double best = 0;
  for (int run = 0; run < 4; ++run) {
    const Clock::time_point start = Clock::now();
    in_parallel([&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) a[i] = b[i] + 3.0f * c[i];
    });
    const double seconds = SecondsSince(start);
    if (run > 0) best = std::max(best, 3.0 * kBytes / seconds);
  }
  munmap(memory, 3 * kBytes);
  return best;
}

}  // namespace

std::optional<MachineLimits> ParseMachineLimits(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  double gflops = 0, gbps = 0;
  if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &gflops) ||
      !absl::SimpleAtod(parts[1], &gbps) || !(gflops > 0) || !(gbps > 0) ||
      gflops > 1e9 || gbps > 1e9) {
    return std::nullopt;
  }
  return MachineLimits{gflops * 1e9, gbps * 1e9, "MXLA_MACHINE_LIMITS"};
}

MachineLimits MachineLimitsFor(ThreadPool& pool, int threads) {
  static std::mutex mutex;
  static auto* measured = new std::map<int, MachineLimits>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = measured->find(threads);
  if (it != measured->end()) return it->second;
  MachineLimits limits;
  const char* given = std::getenv("MXLA_MACHINE_LIMITS");
  std::optional<MachineLimits> parsed;
  if (given != nullptr) {
    parsed = ParseMachineLimits(given);
    if (!parsed.has_value()) {
      std::cerr << "warning: MXLA_MACHINE_LIMITS='" << given
                << "' is not GFLOPS,GBPS (two positive numbers); measuring "
                   "the machine instead\n";
    }
  }
  if (parsed.has_value()) {
    limits = *parsed;
  } else {
    limits.flops_per_second = MeasurePeakFlops(pool, threads);
    limits.bytes_per_second = MeasureBandwidth(pool, threads);
    limits.source = absl::StrCat("measured: FMA peak and STREAM triad, ",
                                 threads, " thread", threads == 1 ? "" : "s");
  }
  measured->emplace(threads, limits);
  return limits;
}

}  // namespace mxla
