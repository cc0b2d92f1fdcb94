#include "driver/persistent_cache.h"

#include <cstdlib>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "codegen/build_identity.h"
#include "driver/disk_cache.h"
#include "ir/status_macros.h"

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

// The fused module's text as an entry stores it. Fusions that share a kernel
// (one symbol: they print alike in canonical form) also share the first
// one's fused computation, and the others are dropped, so that a load
// parses each distinct kernel once (a 24-layer stack: 190 fusions, 9
// kernels). Without metadata, which is no part of the key.
std::string CompactFusedText(const JitExecutable::Program& program) {
  std::unique_ptr<HloModule> copy = program.module->Clone();
  absl::flat_hash_map<std::string, std::string> symbol_of_fusion;
  for (const KernelInfo& kernel : program.kernels->kernels()) {
    symbol_of_fusion[kernel.fusion_name] = kernel.symbol;
  }
  absl::flat_hash_map<std::string, HloComputation*> computation_of_symbol;
  for (HloInstruction* instruction :
       copy->entry_computation()->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    auto symbol = symbol_of_fusion.find(instruction->name());
    if (symbol == symbol_of_fusion.end()) continue;
    auto [first, inserted] = computation_of_symbol.try_emplace(
        symbol->second, instruction->to_apply());
    if (!inserted) instruction->set_called_computations({first->second});
  }
  copy->RemoveUnusedComputations();
  return copy->ToString();
}

DiskCacheEntry EntryOf(const JitExecutable::Program& program,
                       std::vector<std::string> objects) {
  DiskCacheEntry entry;
  entry.fused_hlo = CompactFusedText(program);
  entry.kernels = program.kernels->kernels();
  entry.objects = std::move(objects);
  return entry;
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
                        const std::string& directory,
                        const PersistentCacheDriver& driver) {
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
          driver.load(*std::move(entry));
      if (program.ok()) return program;
      WarnOnce(absl::StrCat("load ", directory),
               absl::StrCat("compile cache: entry '", disk.PathOf(*key),
                            "' did not load (", program.status().message(),
                            "); it is deleted and the module recompiled"));
      disk.Remove(*key);
    }
  }
  ASSIGN_OR_RETURN(PersistentCacheDriver::Compiled compiled,
                   driver.compile(/*keep_objects=*/key.ok()));
  if (key.ok()) {
    disk.Store(*key, EntryOf(*compiled.program, std::move(compiled.objects)));
  }
  return std::move(compiled.program);
}

}  // namespace mxla
