// An OSU-style micro-benchmark of all-reduce across processes on this
// machine: Communicator::AllReduce of GlooCommunicator (f32 sums, rank
// order) against gloo's own gloo::allreduce (its ring) of the same buffer,
// sizes from min_bytes to max_bytes by factors of 4, the median of
// repeated runs of each, interleaved. Two programs run it: the standalone
// mxla_distributed_bench and `mxla bench --filter X` (when mxla is built
// with gloo); each launches copies of itself, one per device, and passes
// each copy its rank and the store directory in its own flags.
#ifndef MXLA_TOOLS_GLOO_ALLREDUCE_BENCH_H_
#define MXLA_TOOLS_GLOO_ALLREDUCE_BENCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace mxla::tools {

struct GlooBenchFlags {
  int64_t processes = 2;
  int64_t repeat = 20;
  int64_t min_bytes = 1024;
  int64_t max_bytes = int64_t{64} << 20;
  int64_t rank = -1;      // a device's copy; -1: the launcher
  std::string directory;  // the gloo store, made by the launcher
};

// InvalidArgument naming the flag unless processes and repeat are at least
// 1 and 4 <= min_bytes <= max_bytes, both multiples of 4 (f32).
absl::Status CheckGlooBenchFlags(const GlooBenchFlags& flags);

// The arguments (argv[1...]) of the copy that is device `rank`, meeting in
// `directory`.
using GlooChildArguments = std::function<std::vector<std::string>(
    int64_t rank, const std::string& directory)>;

// Makes a fresh store directory, runs flags.processes copies of `program`
// and waits for them (10 minutes at most); device 0 prints the table to
// stdout. Internal naming the devices that failed.
absl::Status LaunchGlooAllReduceBench(const GlooBenchFlags& flags,
                                      const std::string& program,
                                      const GlooChildArguments& arguments);

// One device's copy (flags.rank >= 0): connects both ways, measures every
// size; the process's exit code (0: every size ran and, with 2 devices,
// gave the same bits as gloo's).
int RunGlooAllReduceDevice(const GlooBenchFlags& flags);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_GLOO_ALLREDUCE_BENCH_H_
