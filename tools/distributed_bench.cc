// An OSU-style micro-benchmark of all-reduce across processes on this
// machine: Communicator::AllReduce of GlooCommunicator (f32 sums, rank
// order) against gloo's own gloo::allreduce (its ring) of the same buffer,
// 1 KiB to 64 MiB, the median of repeated runs of each, interleaved.
//
//   mxla_distributed_bench [--processes N] [--repeat R] [--min-bytes B]
//                          [--max-bytes B]
//
// starts N copies of itself (default 2) that meet through a fresh store
// directory; device 0 prints the table. With 2 devices it also checks that
// both give the same bits (a + b is one sum in either order).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "distributed/gloo_communicator.h"
#include "distributed/local_processes.h"
#include "gloo/allreduce.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

struct Flags {
  int64_t processes = 2;
  int64_t repeat = 20;
  int64_t min_bytes = 1024;
  int64_t max_bytes = int64_t{64} << 20;
  int64_t rank = -1;  // a device's copy; -1: the launcher
  std::string directory;
};

double Median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

absl::Status AddF32(char* accumulator, const char* other, int64_t elements) {
  float* a = reinterpret_cast<float*>(accumulator);
  const float* b = reinterpret_cast<const float*>(other);
  for (int64_t i = 0; i < elements; ++i) a[i] = a[i] + b[i];
  return absl::OkStatus();
}

std::shared_ptr<::gloo::Context> ConnectGloo(const Flags& flags) {
  ::gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = ::gloo::transport::tcp::CreateDevice(attr);
  ::gloo::rendezvous::FileStore store(flags.directory);
  ::gloo::rendezvous::PrefixStore run_store("gloo", store);
  auto context = std::make_shared<::gloo::rendezvous::Context>(flags.rank,
                                                               flags.processes);
  context->setTimeout(std::chrono::seconds(60));
  context->connectFullMesh(run_store, device);
  return context;
}

// One buffer size: our all-reduce and gloo's, interleaved; the medians
// printed by rank 0. Whether the two results are the same bits.
bool MeasureOneSize(const Flags& flags, Communicator& comm,
                    const std::shared_ptr<::gloo::Context>& gloo_context,
                    const std::vector<int64_t>& group, int64_t bytes,
                    uint32_t& tag) {
  const ElementCombiner add{4, AddF32};
  const int64_t elements = bytes / 4;
  std::vector<float> send(elements), ours(elements), theirs(elements);
  for (int64_t i = 0; i < elements; ++i) {
    send[i] = static_cast<float>((i * 7 + flags.rank * 13) % 1000) * 0.37f;
  }
  auto run_ours = [&] {
    const absl::Status status = comm.AllReduce(
        {"all-reduce", group, flags.rank},
        ConstBytes(reinterpret_cast<const char*>(send.data()), bytes),
        MutableBytes(reinterpret_cast<char*>(ours.data()), bytes), add);
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      std::exit(1);
    }
  };
  auto run_theirs = [&] {
    ::gloo::AllreduceOptions allreduce(gloo_context);
    allreduce.setInput(send.data(), elements);
    allreduce.setOutput(theirs.data(), elements);
    allreduce.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(
            &::gloo::sum<float>));
    allreduce.setTag(tag++);
    ::gloo::allreduce(allreduce);
  };
  const int64_t runs = bytes >= (int64_t{16} << 20)
                           ? std::max<int64_t>(flags.repeat / 2, 5)
                           : flags.repeat;
  for (int warm = 0; warm < 3; ++warm) {
    run_ours();
    run_theirs();
  }
  std::vector<double> our_times, their_times;
  for (int64_t r = 0; r < runs; ++r) {
    Clock::time_point start = Clock::now();
    run_ours();
    our_times.push_back(SecondsSince(start));
    start = Clock::now();
    run_theirs();
    their_times.push_back(SecondsSince(start));
  }
  const bool equal = flags.processes != 2 ||
                     std::memcmp(ours.data(), theirs.data(), bytes) == 0;
  if (flags.rank == 0) {
    const double mine = Median(our_times), gloo = Median(their_times);
    absl::PrintF("%10d %12s %12s %7.2f %11.2f\n", bytes, FormatDuration(mine),
                 FormatDuration(gloo), mine / gloo, bytes / mine * 1e-9);
    std::fflush(stdout);
  }
  return equal;
}

int Device(const Flags& flags) {
  const GlooOptions options{flags.directory, "mxla", "127.0.0.1",
                            std::chrono::seconds(60)};
  absl::StatusOr<std::unique_ptr<GlooCommunicator>> comm =
      GlooCommunicator::Connect(flags.rank, flags.processes, options);
  if (!comm.ok()) {
    std::fprintf(stderr, "device %ld: %s\n", flags.rank,
                 comm.status().ToString().c_str());
    return 1;
  }
  std::shared_ptr<::gloo::Context> gloo_context = ConnectGloo(flags);
  std::vector<int64_t> group(flags.processes);
  for (int64_t d = 0; d < flags.processes; ++d) group[d] = d;
  uint32_t tag = 0;
  if (flags.rank == 0) {
    absl::PrintF(
        "all-reduce of f32 (sum) across %d processes on loopback, "
        "median of %d runs each\n",
        flags.processes, flags.repeat);
    absl::PrintF("%10s %12s %12s %7s %11s\n", "bytes", "mxla", "gloo", "ratio",
                 "mxla GB/s");
  }
  bool all_equal = true;
  for (int64_t bytes = flags.min_bytes; bytes <= flags.max_bytes; bytes *= 4) {
    all_equal &= MeasureOneSize(flags, **comm, gloo_context, group, bytes, tag);
  }
  if (flags.processes == 2 && flags.rank == 0) {
    absl::PrintF("results bit-equal to gloo's: %s\n", all_equal ? "yes" : "NO");
  }
  return all_equal ? 0 : 1;
}

int Launch(Flags flags, const char* program) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "mxla_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::vector<std::vector<std::string>> arguments;
  for (int64_t d = 0; d < flags.processes; ++d) {
    arguments.push_back({"--processes", absl::StrCat(flags.processes),
                         "--repeat", absl::StrCat(flags.repeat), "--min-bytes",
                         absl::StrCat(flags.min_bytes), "--max-bytes",
                         absl::StrCat(flags.max_bytes), "--rank",
                         absl::StrCat(d), "--directory", pattern});
  }
  absl::StatusOr<std::vector<ProcessEnd>> ends =
      RunLocalProcesses(program, arguments, std::chrono::minutes(10));
  std::filesystem::remove_all(pattern);
  if (!ends.ok()) {
    std::fprintf(stderr, "%s\n", ends.status().ToString().c_str());
    return 1;
  }
  int failed = 0;
  for (size_t d = 0; d < ends->size(); ++d) {
    const ProcessEnd& end = (*ends)[d];
    if (!end.exited || end.exit_code != 0) {
      std::fprintf(stderr, "device %zu ended with %s %d\n", d,
                   end.exited ? "exit code" : "signal",
                   end.exited ? end.exit_code : end.signal);
      failed = 1;
    }
  }
  return failed;
}

}  // namespace
}  // namespace mxla::tools

int main(int argc, char** argv) {
  mxla::tools::Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--processes") {
      flags.processes = std::atoll(value.c_str());
    } else if (flag == "--repeat") {
      flags.repeat = std::atoll(value.c_str());
    } else if (flag == "--min-bytes") {
      flags.min_bytes = std::atoll(value.c_str());
    } else if (flag == "--max-bytes") {
      flags.max_bytes = std::atoll(value.c_str());
    } else if (flag == "--rank") {
      flags.rank = std::atoll(value.c_str());
    } else if (flag == "--directory") {
      flags.directory = value;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--processes N] [--repeat R] [--min-bytes B] "
                   "[--max-bytes B]\n",
                   argv[0]);
      return 2;
    }
  }
  if (flags.processes < 1 || flags.repeat < 1 || flags.max_bytes < 1024) {
    std::fprintf(stderr,
                 "--processes and --repeat must be at least 1, "
                 "--max-bytes at least 1024\n");
    return 2;
  }
  if (flags.rank < 0) return mxla::tools::Launch(flags, "/proc/self/exe");
  return mxla::tools::Device(flags);
}
