#include "runtime/persistent_cache.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "codegen/build_identity.h"
#include "hlo_text/hlo_parser.h"
#include "ir/status_macros.h"
#include "runtime/compile_pipeline.h"
#include "runtime/disk_cache.h"

namespace mxla {
namespace {

// Bumped when the meaning of an entry changes without the binaries
// changing (they always change with the code, through the build ID).
constexpr char kKeyVersion[] = "mxla persistent cache key 1";

const std::string& RuntimeIdentity() {
  static const std::string* identity = new std::string(
      BinaryIdentity(reinterpret_cast<const void*>(&PersistentCacheKey)));
  return *identity;
}

DiskCacheEntry EntryOf(const JitExecutable::Program& program,
                       std::vector<std::string> objects) {
  DiskCacheEntry entry;
  // Without metadata, which is no part of the key: it would double the
  // text a load parses.
  entry.fused_hlo = program.module->ToString();
  entry.kernels = program.kernels->kernels();
  entry.objects = std::move(objects);
  return entry;
}

absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> ProgramOf(
    DiskCacheEntry entry, const HloModule& input,
    const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> fused,
                   ParseHloModule(entry.fused_hlo));
  return LoadJitProgram(std::move(fused), std::move(entry.kernels),
                        entry.objects, &input, options);
}

}  // namespace

std::string CacheDirectory(const CompileOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  const char* dir = std::getenv("MXLA_CACHE_DIR");
  return dir == nullptr ? "" : dir;
}

absl::StatusOr<std::string> PersistentCacheKey(const HloModule& module,
                                               const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::string backend, BackendIdentity());
  return ContentHash(absl::StrCat(kKeyVersion, "\nmxla ", RuntimeIdentity(),
                                  "\n", backend, "\n",
                                  CompileOptionsKey(options), "\n",
                                  module.ToString()));
}

absl::StatusOr<std::shared_ptr<const JitExecutable::Program>>
CompileThroughDiskCache(const HloModule& module, const CompileOptions& options,
                        const std::string& directory) {
  absl::StatusOr<std::string> key = PersistentCacheKey(module, options);
  if (!key.ok()) {
    WarnOnce(absl::StrCat("key ", directory),
             absl::StrCat("compile cache: no key (", key.status().message(),
                          "); compiling without '", directory, "'"));
  }
  const DiskCache disk(directory, options.cache_max_bytes);
  if (key.ok()) {
    if (std::optional<DiskCacheEntry> entry = disk.Load(*key)) {
      absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> program =
          ProgramOf(*std::move(entry), module, options);
      if (program.ok()) return program;
      WarnOnce(absl::StrCat("load ", directory),
               absl::StrCat("compile cache: entry '", disk.PathOf(*key),
                            "' did not load (", program.status().message(),
                            "); it is deleted and the module recompiled"));
      disk.Remove(*key);
    }
  }
  StageRange everything;
  everything.keep_objects = key.ok();
  ASSIGN_OR_RETURN(CompiledModule compiled,
                   RunCompilePipeline(module, options, everything));
  if (key.ok()) {
    disk.Store(*key, EntryOf(*compiled.program, std::move(compiled.objects)));
  }
  return std::shared_ptr<const JitExecutable::Program>(
      std::move(compiled.program));
}

}  // namespace mxla
