// `mxla bench --filter M`: XLA's own CPU benchmark modules, whole. The
// modules are those of a real-HLO directory (../shared/real-hlo: SOURCES.md
// and modules/) whose source, as SOURCES.md's table names it, lies in XLA's
// CPU benchmark folder (kBenchmarkOrigin). Each runs in a child process (this
// binary, `bench --module-probe`), so that a module that does not finish in
// its time budget is stopped and one that crashes is reported: parse,
// compile (cold, timed), arguments filled as `mxla stats` fills them, then
// runs until the budget's half is spent (at most --runs). A module whose
// arguments, result and temporaries do not fit the memory available is
// skipped with the sizes, before anything is allocated.
//
// Per module: compile ms, median run ms, and the whole run's GFLOP/s and GB/s
// (FLOPs and bytes counted by the profiler, runtime/profile.h, over one run,
// loops included) and their share of the machine's limit
// (runtime/machine_limits.h).
#ifndef MXLA_TOOLS_BENCH_MODULES_H_
#define MXLA_TOOLS_BENCH_MODULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mxla::tools {

inline constexpr char kBenchmarkOrigin[] = "xla/backends/cpu/benchmarks/";

struct BenchmarkModule {
  std::string name;    // the file name without .hlo
  std::string path;    // DIR/modules/NAME.hlo
  std::string origin;  // the path in XLA that SOURCES.md gives
};

// The modules SOURCES.md in `directory` lists with an origin under
// kBenchmarkOrigin, in its order, whose name contains one of `patterns`
// (all when empty). InvalidArgument naming the file when SOURCES.md cannot
// be read or has no such module; a listed module whose file is missing is
// kept (the run reports it).
absl::StatusOr<std::vector<BenchmarkModule>> FindBenchmarkModules(
    const std::string& directory, const std::vector<std::string>& patterns);

// The real-HLO directory: `given` if not empty, else the first
// `shared/real-hlo` beside the working directory or this executable or one
// of their parents. NotFound saying how to name it otherwise.
absl::StatusOr<std::string> FindRealHloDirectory(const std::string& given);

struct ModuleBenchOptions {
  std::string directory;              // see FindRealHloDirectory
  std::vector<std::string> patterns;  // --filter M:TEXT
  int runs = 10;
  double budget_seconds = 120;  // per module: compile, arguments and runs
  // > 0: print each module's profile (of its first run) below its line,
  // this many rows (--profile).
  int64_t profile_rows = 0;
  int opt_level = 3;  // LLVM optimization level of the compile (--opt-level)
};

// Runs each module in a child process and prints the table; JSON records
// (one per module) are appended to `json`.
absl::Status BenchModules(const ModuleBenchOptions& options,
                          std::vector<std::string>& json);

// The child: one module, its line of results on stdout.
absl::Status ProbeModule(const std::string& path,
                         const ModuleBenchOptions& options);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_BENCH_MODULES_H_
