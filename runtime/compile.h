// Compile(): runs the compile pipeline (runtime/compile_pipeline.h, the one
// list of stages and of what differs between the backends) on a copy of a
// module and returns an Executable for the chosen backend.
//
// Backends:
//   jit          (default) the HLO fused and planned, then one LLVM kernel
//                per fusion as its plan says (runtime/jit_executable.h);
//   interpreter  the reference evaluator (interpreter/hlo_evaluator.h) on the
//                optimized module: the oracle.
#ifndef MXLA_RUNTIME_COMPILE_H_
#define MXLA_RUNTIME_COMPILE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "ir/hlo_module.h"
#include "passes/pass_pipeline.h"
#include "runtime/executable.h"

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
  // with the same options (runtime/compile_cache.h). Compiles that dump
  // (pipeline.dump_dir or MXLA_DUMP_DIR) always run the pipeline.
  bool use_cache = true;
  // jit only, with use_cache: the persistent compile cache's directory
  // (runtime/persistent_cache.h), shared by processes; created when
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
};

// Verifies `module` (builder form allowed), optimizes a copy, compiles it.
// Invalid modules are InvalidArgument; the input is never modified, and the
// returned executable (owned by the caller) does not refer to it. For the
// jit, an identical earlier compile is served from the compile cache
// (concurrent identical compiles run once, the others wait for it), and a
// program whose run (result plus temporaries) exceeds the memory limit is
// InvalidArgument (options.memory_limit_bytes) whether it was compiled or
// cached.
// Other errors: an unknown pass name (InvalidArgument), a pass failure (see
// PassPipeline::Run), FailedPrecondition when disabled passes leave the jit
// HLO that is not lowered or not fused, Unimplemented for HLO the jit cannot
// compile (an op inside a fusion that codegen cannot emit), InvalidArgument for unwritable dumps.
// Thread-safe: compiles may run concurrently (give them distinct dump
// directories).
absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options = {});

// The directory Compile dumps into: options.pipeline.dump_dir, else the
// MXLA_DUMP_DIR environment variable, else none ("").
std::string DumpDirectory(const CompileOptions& options);

// The options part of the compile cache's key (runtime/compile_cache.h):
// every option that changes the compiled code, as a short string. Together
// with the module's structure it decides whether a compile is a hit.
std::string CompileOptionsKey(const CompileOptions& options);

// Verifies `module` (builder mode) and returns the module the HLO passes
// make of it for `options` (the compile pipeline's stages through
// "hlo-passes"), owned by the caller; dumps like Compile when
// DumpDirectory(options) is set. Never uses the compile cache.
absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options);

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_H_
