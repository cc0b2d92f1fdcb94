#include "tools/gloo_allreduce_bench.h"

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
#include "absl/strings/str_join.h"
#include "distributed/gloo_communicator.h"
#include "distributed/local_processes.h"
#include "gloo/allreduce.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "ir/status_macros.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

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

std::shared_ptr<::gloo::Context> ConnectGloo(const GlooBenchFlags& flags) {
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
bool MeasureOneSize(const GlooBenchFlags& flags, Communicator& comm,
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

}  // namespace

int RunGlooAllReduceDevice(const GlooBenchFlags& flags) {
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
    absl::PrintF(
        "(mxla: GlooCommunicator::AllReduce; gloo: gloo::allreduce; ratio = "
        "mxla time / gloo time; GB/s = buffer bytes / mxla time)\n");
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

absl::Status CheckGlooBenchFlags(const GlooBenchFlags& flags) {
  if (flags.processes < 1 || flags.repeat < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "all-reduce across processes: ", flags.processes, " processes and ",
        flags.repeat, " runs; both must be at least 1"));
  }
  if (flags.min_bytes < 4 || flags.min_bytes > flags.max_bytes ||
      flags.min_bytes % 4 != 0 || flags.max_bytes % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "all-reduce across processes: sizes ", flags.min_bytes, " to ",
        flags.max_bytes, " bytes; they must be multiples of 4 (f32), the "
        "first at least 4 and at most the last"));
  }
  return absl::OkStatus();
}

absl::Status LaunchGlooAllReduceBench(const GlooBenchFlags& flags,
                                      const std::string& program,
                                      const GlooChildArguments& arguments) {
  RETURN_IF_ERROR(CheckGlooBenchFlags(flags));
  std::string pattern =
      (std::filesystem::temp_directory_path() / "mxla_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a store directory like ", pattern));
  }
  std::vector<std::vector<std::string>> children;
  for (int64_t d = 0; d < flags.processes; ++d) {
    children.push_back(arguments(d, pattern));
  }
  absl::StatusOr<std::vector<ProcessEnd>> ends =
      RunLocalProcesses(program, children, std::chrono::minutes(10));
  std::error_code error;
  std::filesystem::remove_all(pattern, error);
  RETURN_IF_ERROR(ends.status());
  std::vector<std::string> failed;
  for (size_t d = 0; d < ends->size(); ++d) {
    const ProcessEnd& end = (*ends)[d];
    if (!end.exited || end.exit_code != 0) {
      failed.push_back(absl::StrCat("device ", d, " ended with ",
                                    end.exited ? "exit code " : "signal ",
                                    end.exited ? end.exit_code : end.signal));
    }
  }
  if (failed.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "all-reduce across processes: ", absl::StrJoin(failed, "; ")));
}

}  // namespace mxla::tools
