// The persistent compile cache (CompileOptions::cache_dir, MXLA_CACHE_DIR):
// a jit compile that misses the in-process cache (compile_cache.h) looks for
// the program on disk (disk_cache.h) and loads it without running the HLO
// passes, LLVM's optimizer or its code generator; a compile that finds
// nothing stores what it made for the next process.
//
// The key is a 128-bit hash of everything that decides the code: the
// module's HLO text (metadata aside, as in the in-process cache), the
// options that change code (CompileOptionsKey), the binaries that compile
// (mxla's and LLVM's, by build ID: any rebuild is a new key space) and the
// target (triple, CPU, features, MXLA_CPU_FEATURES included). A loaded
// program's fused module has no metadata (op names, source lines), and
// fusions that share a kernel share one fused computation: the entry keeps
// its text small, as a load parses it.
#ifndef MXLA_DRIVER_PERSISTENT_CACHE_H_
#define MXLA_DRIVER_PERSISTENT_CACHE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "driver/disk_cache.h"
#include "ir/hlo_module.h"
#include "runtime/jit_executable.h"

namespace mxla {

// options.cache_dir, else the MXLA_CACHE_DIR environment variable, else ""
// (no persistent cache).
std::string CacheDirectory(const CompileOptions& options);

// The key `module` compiled with `options` is stored under: 32 hex digits.
// Errors: the backend's (BackendIdentity).
absl::StatusOr<std::string> PersistentCacheKey(const HloModule& module,
                                               const CompileOptions& options);

// What the cache asks of the compile driver (driver/compile.cc), which
// alone runs the pipeline: the program of an entry's data, and a compile of
// the module, with its object files when `keep_objects`.
struct PersistentCacheDriver {
  using ProgramOrError =
      absl::StatusOr<std::shared_ptr<const JitExecutable::Program>>;
  struct Compiled {
    std::shared_ptr<const JitExecutable::Program> program;
    std::vector<std::string> objects;
  };
  std::function<ProgramOrError(DiskCacheEntry entry)> load;
  std::function<absl::StatusOr<Compiled>(bool keep_objects)> compile;
};

// The jit program for `module`: loaded from `directory` (driver.load) when
// an entry for it is there and loads, else compiled (driver.compile) and
// stored there. Cache failures (an unusable entry, an unwritable
// directory, a directory or entry someone else owns or can write:
// disk_cache.h) cost a warning and a compile, never an error; compile
// errors are returned as Compile() returns them.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program>>
CompileThroughDiskCache(const HloModule& module, const CompileOptions& options,
                        const std::string& directory,
                        const PersistentCacheDriver& driver);

}  // namespace mxla

#endif  // MXLA_DRIVER_PERSISTENT_CACHE_H_
