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
#ifndef MXLA_RUNTIME_PERSISTENT_CACHE_H_
#define MXLA_RUNTIME_PERSISTENT_CACHE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"
#include "runtime/compile.h"
#include "runtime/jit_executable.h"

namespace mxla {

// options.cache_dir, else the MXLA_CACHE_DIR environment variable, else ""
// (no persistent cache).
std::string CacheDirectory(const CompileOptions& options);

// The key `module` compiled with `options` is stored under: 32 hex digits.
// Errors: the backend's (BackendIdentity).
absl::StatusOr<std::string> PersistentCacheKey(const HloModule& module,
                                               const CompileOptions& options);

// The jit program for `module`: loaded from `directory` when an entry for
// it is there and loads, else compiled (RunCompilePipeline) and stored
// there. Cache failures (an unusable entry, an unwritable directory, a
// directory or entry someone else owns or can write: disk_cache.h) cost a
// warning and a compile, never an error; compile errors are returned as
// Compile() returns them.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program>>
CompileThroughDiskCache(const HloModule& module, const CompileOptions& options,
                        const std::string& directory);

}  // namespace mxla

#endif  // MXLA_RUNTIME_PERSISTENT_CACHE_H_
