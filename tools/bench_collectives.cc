#include "tools/bench_collectives.h"

#include <algorithm>
#include <barrier>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "ir/device_assignment.h"
#include "ir/literal.h"
#include "ir/status_macros.h"
#include "runtime/collective_ops.h"
#include "runtime/host_buffer.h"
#include "runtime/in_process_communicator.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

// The calling thread and one helper that lives for the whole benchmark,
// so that a timed run starts no thread: Run(fn) calls fn(0) on the caller
// and fn(1) on the helper at once, and returns when both have returned.
// (The caller works rather than waits: a third thread spinning in a
// barrier on 2 cores took time from the two that work.)
class ThreadPair {
 public:
  ThreadPair()
      : helper_([this] {
          while (true) {
            start_.arrive_and_wait();
            if (stop_) return;
            (*work_)(1);
            done_.arrive_and_wait();
          }
        }) {}
  ~ThreadPair() {
    stop_ = true;  // the barrier orders it before the helper's read
    start_.arrive_and_wait();
    helper_.join();
  }
  void Run(const std::function<void(int)>& fn) {
    work_ = &fn;
    start_.arrive_and_wait();
    fn(0);
    done_.arrive_and_wait();
  }

 private:
  std::barrier<> start_{2}, done_{2};
  const std::function<void(int)>* work_ = nullptr;
  bool stop_ = false;
  std::thread helper_;
};

// One line of the table: what it runs and the buffers it reads and
// writes through memory.
struct Measurement {
  std::string name;
  int threads;
  int reads, writes;  // whole buffers
  std::function<absl::Status()> run;
  // Whether the run just made left the right bytes (after the warm-up).
  std::function<absl::Status()> check;
  std::vector<double> seconds = {};
};

absl::StatusOr<std::unique_ptr<HloModule>> AllReduceModule(int64_t elements) {
  return ParseHloModule(absl::StrFormat(R"(HloModule all_reduce_bench
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[%d] parameter(0)
  ROOT r = f32[%d] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})",
                                        elements, elements));
}

// Whether `result` is in0 + in1 elementwise (the inputs are small
// integers, so the sum is exact in either order).
absl::Status CheckSum(absl::string_view what, const float* result,
                      const Literal& in0, const Literal& in1) {
  absl::Span<const float> a = in0.data<float>(), b = in1.data<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (result[i] != a[i] + b[i]) {
      return absl::InternalError(absl::StrFormat(
          "%s: element %d is %g, not %g + %g", what, i, result[i], a[i], b[i]));
    }
  }
  return absl::OkStatus();
}

// The operands of both devices and the results of the communicator's
// all-reduce (memcpy copies operand 0 into result 0).
struct Buffers {
  Literal in[2], out[2];
};

Buffers MakeBuffers(int64_t elements) {
  const Shape shape = ShapeUtil::MakeShape(F32, {elements});
  Buffers buffers;
  for (int d = 0; d < 2; ++d) {
    // Zero-filled, so every page is in place before the first run.
    buffers.in[d] = Literal(shape, PooledHostAllocator());
    buffers.out[d] = Literal(shape, PooledHostAllocator());
    absl::Span<float> values = buffers.in[d].data<float>();
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<float>((i * 7 + d * 13) % 1000);
    }
  }
  return buffers;
}

// memcpy of operand 0 into result 0, on 1 thread or halved over 2.
std::vector<Measurement> MemcpyMeasurements(Buffers& b, ThreadPair& pair) {
  const int64_t bytes = b.in[0].size_bytes();
  const char* from = static_cast<const char*>(b.in[0].untyped_data());
  char* to = static_cast<char*>(b.out[0].untyped_data());
  auto check = [=] {
    return std::memcmp(to, from, bytes) == 0
               ? absl::OkStatus()
               : absl::InternalError("memcpy: the copy differs");
  };
  std::vector<Measurement> lines;
  lines.push_back({"memcpy", 1, 1, 1,
                   [=] {
                     std::memcpy(to, from, bytes);
                     return absl::OkStatus();
                   },
                   check});
  lines.push_back({"memcpy, each thread one half", 2, 1, 1,
                   [=, &pair] {
                     const int64_t half = bytes / 2;
                     pair.Run([&](int i) {
                       std::memcpy(to + i * half, from + i * half, half);
                     });
                     return absl::OkStatus();
                   },
                   check});
  return lines;
}

// InProcessCommunicator::AllReduce on its own: device d on thread d, each
// reducing operand d's half into both results, as under RunReplicated.
Measurement CommunicatorMeasurement(Buffers& b, ThreadPair& pair,
                                    const ElementCombiner& combiner) {
  auto rendezvous = std::make_shared<InProcessRendezvous>(2, absl::Minutes(5));
  auto devices =
      std::make_shared<std::vector<std::unique_ptr<InProcessCommunicator>>>();
  for (int d = 0; d < 2; ++d) {
    devices->push_back(std::make_unique<InProcessCommunicator>(rendezvous, d));
  }
  return {
      "all-reduce, communicator alone",
      2,
      2,
      2,
      [&b, &pair, combiner, devices] {
        static constexpr int64_t kGroup[] = {0, 1};
        absl::Status status[2];
        pair.Run([&](int d) {
          const int64_t bytes = b.in[d].size_bytes();
          status[d] = (*devices)[d]->AllReduce(
              {"all-reduce", kGroup, d},
              ConstBytes(static_cast<const char*>(b.in[d].untyped_data()),
                         bytes),
              MutableBytes(static_cast<char*>(b.out[d].untyped_data()), bytes),
              combiner);
        });
        RETURN_IF_ERROR(status[0]);
        return status[1];
      },
      [&b] {
        for (const Literal& out : b.out) {
          RETURN_IF_ERROR(CheckSum("all-reduce, communicator",
                                   out.data<float>().data(), b.in[0], b.in[1]));
        }
        return absl::OkStatus();
      }};
}

// The compiled module through RunReplicated on 2 threads: one per device.
// A run's results live until the next run starts; dropping them first lets
// the buffer pool hand them out again, as to a caller that consumes each
// step's results before the next. (Kept until replaced, they would leave
// the pool empty when the next run allocates, and the first timed run
// would fault in fresh pages: 30 times the time at 16 MiB.)
Measurement ModuleMeasurement(const Buffers& b,
                              std::shared_ptr<const Executable> executable) {
  auto last = std::make_shared<std::vector<Literal>>();
  return {"all-reduce, compiled module (RunReplicated)",
          2,
          2,
          2,
          [&b, executable, last]() -> absl::Status {
            const std::vector<const Literal*> arguments[] = {{&b.in[0]},
                                                             {&b.in[1]}};
            RunOptions options;
            options.threads = 2;
            last->clear();
            ASSIGN_OR_RETURN(
                *last,
                executable->RunReplicated(
                    arguments, DeviceAssignment::Default(2, 1), options));
            return absl::OkStatus();
          },
          [&b, last] {
            for (const Literal& result : *last) {
              RETURN_IF_ERROR(CheckSum("all-reduce, compiled module",
                                       result.data<float>().data(), b.in[0],
                                       b.in[1]));
            }
            return absl::OkStatus();
          }};
}

double Median(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Warms each measurement up and checks its result, then times them in
// turn, run after run, so that a change in the machine's load touches all
// alike.
absl::Status TimeInterleaved(std::vector<Measurement>& lines,
                             const CollectiveBenchOptions& options) {
  for (Measurement& line : lines) {
    RETURN_IF_ERROR(line.run());
    RETURN_IF_ERROR(line.check());
  }
  for (int r = 0; r < options.runs; ++r) {
    for (Measurement& line : lines) {
      options.before_each();
      const Clock::time_point start = Clock::now();
      RETURN_IF_ERROR(line.run());
      line.seconds.push_back(SecondsSince(start));
    }
  }
  return absl::OkStatus();
}

void PrintTable(const std::vector<Measurement>& lines, int64_t bytes, int runs,
                std::vector<std::string>& json) {
  std::cout << absl::StrFormat(
      "\nin-process all-reduce (sum) of f32[%d] (%d bytes) across 2 devices "
      "(threads of this process) against memcpy\n"
      "of the same buffer; median of %d interleaved runs. GB/s = buffer "
      "bytes / time (algorithm bandwidth);\n"
      "memory GB/s = bytes read and written / time. memcpy reads the buffer "
      "once and writes it once; the\n"
      "all-reduce reads both devices' operands and writes both results "
      "(2 + 2 buffers): at 50%% of memcpy's\n"
      "GB/s it moves as many bytes per second. 'of memcpy2': memcpy's time "
      "at 2 threads / this time.\n"
      "  %-44s %7s %9s %8s %11s %11s  %s\n",
      bytes / 4, bytes, runs, "measurement", "threads", "ms", "GB/s",
      "of memcpy2", "memory GB/s", "moves");
  // The reference: memcpy at 2 threads, the all-reduce's thread count.
  const double reference = Median(lines[1].seconds);
  for (const Measurement& line : lines) {
    const double seconds = Median(line.seconds);
    const double gbps = bytes / seconds * 1e-9;
    const double memory = (line.reads + line.writes) * gbps;
    const double share = reference / seconds;
    std::cout << absl::StrFormat(
        "  %-44s %7d %9.3f %8.2f %10.0f%% %11.2f  read %d, write %d "
        "buffers\n",
        line.name, line.threads, seconds * 1e3, gbps, 100 * share, memory,
        line.reads, line.writes);
    json.push_back(absl::StrFormat(
        R"({"kind":"collective","name":"%s","threads":%d,"bytes":%d,)"
        R"("median_ms":%.4f,"gbps":%.3f,"of_memcpy_2_threads":%.4f,)"
        R"("memory_gbps":%.3f,"buffers_read":%d,"buffers_written":%d})",
        line.name, line.threads, bytes, seconds * 1e3, gbps, share, memory,
        line.reads, line.writes));
  }
}

}  // namespace

absl::Status BenchInProcessAllReduce(const CollectiveBenchOptions& options,
                                     std::vector<std::string>& json) {
  if (options.bytes <= 0 || options.bytes % 8 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collectives: ", options.bytes,
        " bytes is not a positive multiple of 8 (two halves of f32)"));
  }
  const int64_t elements = options.bytes / 4;
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   AllReduceModule(elements));
  const HloComputation& reducer = *module->entry_computation()
                                       ->root_instruction()
                                       ->called_computations()[0];
  std::optional<ElementCombiner> combiner = NativeCombiner(reducer, F32);
  if (!combiner.has_value()) {
    return absl::InternalError("collectives: no native combiner for add");
  }
  CompileOptions compile;
  compile.replicas = 2;
  ASSIGN_OR_RETURN(std::shared_ptr<const Executable> executable,
                   Compile(*module, compile));
  Buffers buffers = MakeBuffers(elements);
  ThreadPair pair;
  std::vector<Measurement> lines = MemcpyMeasurements(buffers, pair);
  lines.push_back(CommunicatorMeasurement(buffers, pair, *combiner));
  lines.push_back(ModuleMeasurement(buffers, executable));
  RETURN_IF_ERROR(TimeInterleaved(lines, options));
  PrintTable(lines, options.bytes, options.runs, json);
  return absl::OkStatus();
}

}  // namespace mxla::tools
