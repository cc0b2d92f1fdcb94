// What a compile is asked for: the backend, the passes, codegen's options
// and the caches', and the parts of them that make up a cache key.
#ifndef MXLA_DRIVER_COMPILE_OPTIONS_H_
#define MXLA_DRIVER_COMPILE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/codegen_options.h"
#include "ir/hlo_module.h"
#include "passes/pass_pipeline.h"

namespace mxla {

enum class Backend { kJit, kInterpreter };

// "jit" or "interpreter"; ParseBackend is its inverse, InvalidArgument for
// any other name.
absl::string_view BackendName(Backend backend);
absl::StatusOr<Backend> ParseBackend(absl::string_view name);

// Threads are not a compile option: they do not change the compiled code
// (the runtime splits each kernel's range), so they are no part of the
// compile cache's key. Choose them per run with RunOptions (executable.h).
struct CompileOptions {
  Backend backend = Backend::kJit;
  // The passes to run instead of the default pipeline (empty runs none).
  // The jit backend then still lowers broadcasts and fuses.
  std::optional<std::vector<std::string>> passes;
  PipelineOptions pipeline;
  CodegenOptions codegen;
  // jit only: run each while loop without infeed or outfeed as one native
  // function that calls its condition's and body's kernels directly
  // (runtime/native_loop.h), instead of step by step through the loop's
  // programs (still used when a run sets RunOptions::max_loop_trips or
  // RunOptions::profile).
  bool native_loops = true;
  // jit only: reuse the program of an earlier compile of the same module
  // with the same options (driver/compile_cache.h). Compiles that dump
  // (pipeline.dump_dir or MXLA_DUMP_DIR) always run the pipeline.
  bool use_cache = true;
  // jit only, with use_cache: the persistent compile cache's directory
  // (driver/persistent_cache.h), shared by processes; created when
  // missing. Empty: the MXLA_CACHE_DIR environment variable, else none.
  // Not part of any cache key: it does not change the code.
  std::string cache_dir;
  // Past this many bytes of entries the directory's least recently used
  // entries are deleted.
  int64_t cache_max_bytes = int64_t{1} << 30;
  // jit only: the budget a run's result plus temporaries must fit
  // (ir/memory_budget.h), checked whether the program was compiled or
  // cached. Unset: MemoryLimitBytes() (runtime/memory_limit.h). The
  // interpreter's budget is a run's (RunOptions::memory_limit_bytes).
  std::optional<int64_t> memory_limit_bytes;
  // How many replicas and partitions the program runs on. Unset: the
  // module's (HloModule::replica_count, num_partitions; 1 and 1 unless its
  // text names them). On one device the jit lowers collectives to what one
  // participant computes; on several it runs them as device steps, and the
  // executable then runs only through Executable::RunReplicated with an
  // assignment of exactly these counts. The interpreter takes any count at
  // run time.
  std::optional<int64_t> replicas;
  std::optional<int64_t> partitions;
};

// options.replicas and options.partitions, or else the module's: what a
// compile of `module` is for. InvalidArgument naming the option for a
// count below 1.
absl::StatusOr<std::pair<int64_t, int64_t>> DeviceCounts(
    const HloModule& module, const CompileOptions& options);

// The directory Compile dumps into: options.pipeline.dump_dir, else the
// MXLA_DUMP_DIR environment variable, else none ("").
std::string DumpDirectory(const CompileOptions& options);

// The options part of the compile cache's key (driver/compile_cache.h):
// every option that changes the compiled code, as a short string. Together
// with the module's structure it decides whether a compile is a hit.
std::string CompileOptionsKey(const CompileOptions& options);

}  // namespace mxla

#endif  // MXLA_DRIVER_COMPILE_OPTIONS_H_
