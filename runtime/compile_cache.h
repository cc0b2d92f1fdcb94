// A process-wide cache of compiled jit programs. Compile() looks here first,
// so compiling the same computation again with the same options costs a
// hash of its text instead of the pass pipeline and LLVM (milliseconds).
//
// The key is the HLO text of the module handed to Compile() plus every
// option that can change the compiled code; two modules whose text differs
// in anything, names included, never share an entry. The text omits
// metadata, so modules differing only in metadata share one (a hit's
// module() then carries the first compile's metadata). Programs are immutable
// and shared, so a hit is safe from any thread and an evicted program lives
// on in the executables that use it. Least recently used entries are evicted
// beyond the capacity. Only successful compiles are stored.
#ifndef MXLA_RUNTIME_COMPILE_CACHE_H_
#define MXLA_RUNTIME_COMPILE_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "runtime/jit_executable.h"

namespace mxla {

class CompileCache {
 public:
  using Program = JitExecutable::Program;

  // Holds at most `capacity` programs. Every method is thread-safe.
  explicit CompileCache(int64_t capacity) : capacity_(capacity) {}

  // The process's cache (256 entries), used by Compile().
  static CompileCache& Default();

  // The program stored under `key`, or nullptr (counted as a miss). A hit
  // makes the entry the most recently used.
  std::shared_ptr<const Program> Lookup(const std::string& key);
  // Stores `program` under `key` (replacing any program there) as the most
  // recently used entry, evicting the least recently used beyond capacity.
  void Insert(const std::string& key, std::shared_ptr<const Program> program);
  // Drops every entry; the hit and miss counts are kept.
  void Clear();

  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
    int64_t entries = 0;
  };
  // Counts since construction, and the current number of entries.
  Stats stats() const;

 private:
  struct Entry {
    std::shared_ptr<const Program> program;
    std::list<std::string>::iterator recency;
  };

  const int64_t capacity_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, Entry> entries_;
  std::list<std::string> recency_;  // most recent first
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_CACHE_H_
