// The persistent compile cache's files: one entry per key in a directory,
// each the object code of a compiled program with what is needed to load it
// again (the fused module's text and its kernels' KernelInfo), so that
// another process loads it without running the HLO passes, LLVM's optimizer
// or its code generator (driver/persistent_cache.h makes the keys and
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
// An entry is machine code that the process links and runs, and its
// checksum detects corruption, not tampering: whoever can write an entry
// can run code in every process that uses the directory. So, as ssh with
// its keys, only what this user alone controls is used:
//   * Store creates the directory, and each parent it creates, mode 0700,
//     and each entry mode 0600 (a new temporary file, renamed into place);
//   * a directory not owned by the effective user, or that group or others
//     can write, is neither read nor written; an entry that is not a
//     regular file (a symbolic link is not followed), not owned by the
//     user, or writable by group or others is not loaded (a store replaces
//     it). Each costs a warning once per directory and kind, and a miss:
//     the caller compiles instead;
//   * the checks are made on the opened directory and file (fstat), and
//     every later access goes through the checked directory's descriptor,
//     so a path swapped after the check changes nothing.
// Thread-safe: every method works on files only.
#ifndef MXLA_DRIVER_DISK_CACHE_H_
#define MXLA_DRIVER_DISK_CACHE_H_

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

  // The entry under `key`, or nullopt (none, unusable and deleted, or
  // untrusted).
  std::optional<DiskCacheEntry> Load(const std::string& key) const;
  // Stores `entry` under `key` (replacing any entry there) and evicts past
  // the size cap; false, after a warning, if the directory refused it or
  // is untrusted.
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
    int64_t untrusted = 0;  // directories or entries refused (owner, mode)
    int64_t stores = 0;
    int64_t store_failures = 0;
    int64_t evictions = 0;
  };
  static Stats GlobalStats();

 private:
  std::string directory_;
  int64_t max_bytes_;
};

// Prints "mxla: warning: <message>" on stderr, once per distinct `kind`
// (e.g. the directory and the failure) in this process.
void WarnOnce(const std::string& kind, const std::string& message);

}  // namespace mxla

#endif  // MXLA_DRIVER_DISK_CACHE_H_
