// The all-reduce micro-benchmark across processes on its own
// (tools/gloo_allreduce_bench.h; `mxla bench --filter X` runs it too):
// GlooCommunicator::AllReduce against gloo::allreduce, 1 KiB to 64 MiB.
//
//   mxla_distributed_bench [--processes N] [--repeat R] [--min-bytes B]
//                          [--max-bytes B]
//
// starts N copies of itself (default 2) that meet through a fresh store
// directory; device 0 prints the table. With 2 devices it also checks that
// both give the same bits (a + b is one sum in either order).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/gloo_allreduce_bench.h"

int main(int argc, char** argv) {
  mxla::tools::GlooBenchFlags flags;
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
  if (const absl::Status valid = mxla::tools::CheckGlooBenchFlags(flags);
      !valid.ok()) {
    std::fprintf(stderr, "%s\n", std::string(valid.message()).c_str());
    return 2;
  }
  if (flags.rank >= 0) return mxla::tools::RunGlooAllReduceDevice(flags);
  const absl::Status status = mxla::tools::LaunchGlooAllReduceBench(
      flags, "/proc/self/exe", [&](int64_t rank, const std::string& directory) {
        return std::vector<std::string>{
            "--processes", absl::StrCat(flags.processes),
            "--repeat",    absl::StrCat(flags.repeat),
            "--min-bytes", absl::StrCat(flags.min_bytes),
            "--max-bytes", absl::StrCat(flags.max_bytes),
            "--rank",      absl::StrCat(rank),
            "--directory", directory};
      });
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
