// A process-wide cache of compiled jit programs. Compile() looks here first,
// so compiling the same computation again with the same options costs a
// structural fingerprint and comparison of the module (linear in its size,
// no text printed) instead of the pass pipeline and LLVM (milliseconds).
//
// Keys (CompileKey) are the module handed to Compile() and a string of
// every option that can change the compiled code (CompileOptionsKey in
// compile.h). An entry keeps a copy of its module, and is used only if
// IdenticalModules (ir/module_fingerprint.h) confirms it against the key's
// module, with equal options: equal fingerprints are just where to look, so
// a fingerprint collision costs a compile, never a wrong program. Modules
// that differ in anything their HLO text states (names, a constant's value,
// an attribute) never share an entry; metadata is not part of the key (a
// hit's module() carries the first compile's metadata).
//
// Misses are single-flight: while one caller compiles a key, callers with
// an identical key wait for it and share its outcome. A failed compile's
// error goes to the callers that waited for it and nothing is stored, so
// the next call compiles again. Programs are immutable and shared, so a hit
// is safe from any thread and an evicted program lives on in the
// executables that use it. Least recently used entries are evicted beyond
// the capacity. Every method is thread-safe; a lookup holds the cache's
// lock while it confirms a match.
#ifndef MXLA_DRIVER_COMPILE_CACHE_H_
#define MXLA_DRIVER_COMPILE_CACHE_H_

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "ir/hlo_module.h"
#include "runtime/jit_executable.h"

namespace mxla {

// What a compile is looked up by. Fingerprints the module once, at
// construction; `module` is borrowed and must outlive the key.
class CompileKey {
 public:
  CompileKey(const HloModule& module, std::string options);
  // For tests: a key with a chosen fingerprint, to force collisions.
  CompileKey(const HloModule& module, std::string options,
             uint64_t fingerprint);

  const HloModule& module() const { return *module_; }
  const std::string& options() const { return options_; }
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  const HloModule* module_;
  std::string options_;
  uint64_t fingerprint_;
};

class CompileCache {
 public:
  using Program = JitExecutable::Program;
  using ProgramOrError = absl::StatusOr<std::shared_ptr<const Program>>;

  // Holds at most `capacity` programs.
  explicit CompileCache(int64_t capacity) : capacity_(capacity) {}

  // The process's cache (256 entries), used by Compile().
  static CompileCache& Default();

  // The program stored under `key` (a hit, made the most recently used).
  // Otherwise, if a caller is compiling an identical key, waits for it and
  // returns its outcome; else runs `compile` (a miss, outside the lock) and
  // stores a non-null program it returns under `key`.
  ProgramOrError GetOrCompile(const CompileKey& key,
                              absl::FunctionRef<ProgramOrError()> compile);

  // The program stored under `key`, or nullptr (counted as a miss). A hit
  // makes the entry the most recently used.
  std::shared_ptr<const Program> Lookup(const CompileKey& key);
  // Stores the non-null `program` under `key` (replacing any program there)
  // as the most recently used entry, with a copy of the key's module; evicts
  // the least recently used beyond capacity.
  void Insert(const CompileKey& key, std::shared_ptr<const Program> program);
  // Drops every entry; the counts are kept.
  void Clear();

  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;   // lookups that found nothing, and compiles run
    int64_t waits = 0;    // callers that waited for another's compile
    int64_t entries = 0;
  };
  // Counts since construction, and the current number of entries.
  Stats stats() const;

 private:
  struct Entry {
    std::unique_ptr<const HloModule> module;  // a copy, to confirm matches
    std::string options;
    uint64_t fingerprint;
    std::shared_ptr<const Program> program;
  };
  using EntryList = std::list<Entry>;  // most recent first
  // A compile under way; `key` lives as long as its compiling caller waits.
  struct Flight {
    const CompileKey* key = nullptr;
    bool done = false;
    ProgramOrError outcome = absl::UnknownError("compile under way");
  };

  // These require mutex_.
  EntryList::iterator Find(const CompileKey& key);
  std::shared_ptr<Flight> FindFlight(const CompileKey& key) const;
  void Store(const CompileKey& key, std::shared_ptr<const Program> program);
  void Unlink(EntryList::iterator entry);

  const int64_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable flight_landed_;
  EntryList recency_;
  absl::flat_hash_map<uint64_t, std::vector<EntryList::iterator>> buckets_;
  std::vector<std::shared_ptr<Flight>> flights_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t waits_ = 0;
};

}  // namespace mxla

#endif  // MXLA_DRIVER_COMPILE_CACHE_H_
