// The persistent compile cache's files: one entry per key in a directory,
// each the object code of a compiled program with what is needed to load it
// again (the fused module's text and its kernels' KernelInfo), so that
// another process loads it without running the HLO passes, LLVM's optimizer
// or its code generator (runtime/persistent_cache.h makes the keys and
// programs).
//
// An entry is `<key>.mxla`: a header (a magic line, the format version, the
// key, the payload's size and checksum) and the payload. It is safe under
// concurrency and failure:
//   * writers write a temporary file and rename it into place, so readers
//     (other processes too) see a whole entry or none;
//   * a truncated, corrupt (checksum), foreign (magic, version) or
//     misnamed (key) entry is never used: Load deletes it and reports a
//     miss;
//   * a directory that cannot be created, read or written (read-only, full)
//     costs a warning on stderr (once per directory and kind of failure),
//     never an error: the caller compiles instead;
//   * past `max_bytes` the least recently used entries (by modification
//     time, which a hit refreshes) are deleted, after each store.
// Thread-safe: every method works on files only.
#ifndef MXLA_RUNTIME_DISK_CACHE_H_
#define MXLA_RUNTIME_DISK_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_info.h"

namespace mxla {

struct DiskCacheEntry {
  std::string fused_hlo;             // the fused module, HLO text
  std::vector<KernelInfo> kernels;   // one per fusion
  std::vector<std::string> objects;  // relocatable object files
};

// The bytes of `entry` stored under `key`, and back: Decode is nullopt for
// anything Encode did not make for that key.
std::string EncodeDiskCacheEntry(const std::string& key,
                                 const DiskCacheEntry& entry);
std::optional<DiskCacheEntry> DecodeDiskCacheEntry(const std::string& key,
                                                   const std::string& bytes);

class DiskCache {
 public:
  DiskCache(std::string directory, int64_t max_bytes);

  // The entry under `key`, or nullopt (none, or unusable and deleted).
  std::optional<DiskCacheEntry> Load(const std::string& key) const;
  // Stores `entry` under `key` (replacing any entry there) and evicts past
  // the size cap; false, after a warning, if the directory refused it.
  bool Store(const std::string& key, const DiskCacheEntry& entry) const;
  // Deletes the entry under `key`, if any (one that failed to load).
  void Remove(const std::string& key) const;

  std::string PathOf(const std::string& key) const;
  const std::string& directory() const { return directory_; }

  // Process-wide counts over every DiskCache.
  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
    int64_t rejected = 0;  // unusable entries found (and deleted)
    int64_t stores = 0;
    int64_t store_failures = 0;
    int64_t evictions = 0;
  };
  static Stats GlobalStats();

 private:
  void Evict() const;

  std::string directory_;
  int64_t max_bytes_;
};

// Prints "mxla: warning: <message>" on stderr, once per distinct `kind`
// (e.g. the directory and the failure) in this process.
void WarnOnce(const std::string& kind, const std::string& message);

}  // namespace mxla

#endif  // MXLA_RUNTIME_DISK_CACHE_H_
