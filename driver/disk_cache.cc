#include "driver/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/build_identity.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "MXLA-COMPILE-CACHE\n";
constexpr uint32_t kFormatVersion = 2;
constexpr char kSuffix[] = ".mxla";
// Entries are a few MiB at most; a larger file is not one of ours.
constexpr int64_t kMaxEntryBytes = int64_t{1} << 30;

struct Counters {
  std::atomic<int64_t> hits{0}, misses{0}, rejected{0}, untrusted{0},
      stores{0}, store_failures{0}, evictions{0};
};
Counters& GlobalCounters() {
  static Counters* counters = new Counters;
  return *counters;
}

void PutU64(std::string& out, uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out.append(bytes, 8);
}
void PutString(std::string& out, const std::string& text) {
  PutU64(out, text.size());
  out += text;
}

// Reads the payload; every read is bounds-checked, so any truncation or
// garbage ends in failure, not a crash.
class Reader {
 public:
  explicit Reader(absl::string_view bytes) : bytes_(bytes) {}
  bool U64(uint64_t& value) {
    if (bytes_.size() < 8) return false;
    value = 0;
    for (int i = 0; i < 8; ++i) {
      value |= uint64_t{static_cast<unsigned char>(bytes_[i])} << (8 * i);
    }
    bytes_.remove_prefix(8);
    return true;
  }
  bool I64(int64_t& value) {
    uint64_t raw;
    if (!U64(raw)) return false;
    value = static_cast<int64_t>(raw);
    return true;
  }
  bool String(std::string& text) {
    uint64_t size;
    if (!U64(size) || size > bytes_.size()) return false;
    text.assign(bytes_.data(), size);
    bytes_.remove_prefix(size);
    return true;
  }
  bool Count(uint64_t& count) {
    // Each counted item takes at least 8 bytes.
    return U64(count) && count <= bytes_.size() / 8;
  }
  bool done() const { return bytes_.empty(); }
  absl::string_view rest() const { return bytes_; }

 private:
  absl::string_view bytes_;
};

std::string Payload(const DiskCacheEntry& entry) {
  std::string out;
  PutString(out, entry.fused_hlo);
  PutU64(out, entry.kernels.size());
  for (const KernelInfo& kernel : entry.kernels) {
    PutString(out, kernel.fusion_name);
    PutString(out, kernel.symbol);
    PutU64(out, kernel.units);
    PutU64(out, kernel.bytes_per_unit);
    PutU64(out, kernel.scratch_bytes);
    PutString(out, kernel.combine_symbol);
    PutU64(out, kernel.operand_offsets.size());
    for (int64_t offset : kernel.operand_offsets) PutU64(out, offset);
  }
  PutU64(out, entry.objects.size());
  for (const std::string& object : entry.objects) PutString(out, object);
  return out;
}

std::optional<DiskCacheEntry> ParsePayload(absl::string_view bytes) {
  Reader in(bytes);
  DiskCacheEntry entry;
  uint64_t count;
  if (!in.String(entry.fused_hlo) || !in.Count(count)) return std::nullopt;
  entry.kernels.resize(count);
  for (KernelInfo& kernel : entry.kernels) {
    if (!in.String(kernel.fusion_name) || !in.String(kernel.symbol) ||
        !in.I64(kernel.units) || !in.I64(kernel.bytes_per_unit) ||
        !in.I64(kernel.scratch_bytes) || !in.String(kernel.combine_symbol) ||
        !in.Count(count)) {
      return std::nullopt;
    }
    kernel.operand_offsets.resize(count);
    for (int64_t& offset : kernel.operand_offsets) {
      if (!in.I64(offset)) return std::nullopt;
    }
  }
  if (!in.Count(count)) return std::nullopt;
  entry.objects.resize(count);
  for (std::string& object : entry.objects) {
    if (!in.String(object)) return std::nullopt;
  }
  if (!in.done()) return std::nullopt;
  return entry;
}

// The header: magic, version, key, payload size, payload checksum.
std::string Header(const std::string& key, const std::string& payload) {
  std::string out = kMagic;
  PutU64(out, kFormatVersion);
  PutString(out, key);
  PutU64(out, payload.size());
  PutString(out, ContentHash(payload));
  return out;
}

// A file descriptor, closed when it goes.
class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) = delete;
  ~ScopedFd() { Close(); }
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  // False if closing reported an error (a write that did not land).
  bool Close() {
    const int fd = std::exchange(fd_, -1);
    return fd < 0 || close(fd) == 0;
  }

 private:
  int fd_;
};

// Why mxla must not run code from a file or directory with this status:
// it is not owned by this process's user, or group or others can write it
// (so someone else could put code there); "" when neither.
std::string TrustProblem(const struct stat& status) {
  const uid_t me = geteuid();
  if (status.st_uid != me) {
    return absl::StrCat("is owned by uid ", status.st_uid,
                        ", not by this user (uid ", me, ")");
  }
  const bool group = (status.st_mode & S_IWGRP) != 0;
  const bool others = (status.st_mode & S_IWOTH) != 0;
  if (!group && !others) return "";
  return absl::StrFormat(
      "is writable by %s (mode %04o)",
      group && others ? "group and others" : group ? "group" : "others",
      status.st_mode & 07777);
}

// Creates `directory` and each missing parent with mode 0700 (the umask
// can only narrow it). Failures show in the open that follows.
void MakeDirectories(const std::string& directory) {
  fs::path so_far;
  for (const fs::path& part : fs::path(directory)) {
    so_far /= part;
    mkdir(so_far.c_str(), 0700);
  }
}

enum class DirectoryState { kOpen, kMissing, kUntrusted, kUnusable };

struct OpenedDirectory {
  ScopedFd fd;  // open only in kOpen
  DirectoryState state;
};

// The cache directory, opened and checked through its descriptor: what is
// checked is what later openat/renameat/unlinkat calls work in, whatever
// happens to the path meanwhile. A symbolic link to the directory is
// followed (a cache moved to another disk): only the directory it reaches
// matters, since no one else can add a file to a directory this user owns
// and only it can write, wherever it is. An untrusted directory costs a
// warning once per directory and is not used (neither read nor written).
OpenedDirectory OpenCacheDirectory(const std::string& directory,
                                   bool create) {
  if (create) MakeDirectories(directory);
  ScopedFd fd(open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok()) {
    return {ScopedFd(), errno == ENOENT ? DirectoryState::kMissing
                                        : DirectoryState::kUnusable};
  }
  struct stat status;
  if (fstat(fd.get(), &status) != 0) {
    return {ScopedFd(), DirectoryState::kUnusable};
  }
  const std::string problem = TrustProblem(status);
  if (problem.empty()) return {std::move(fd), DirectoryState::kOpen};
  GlobalCounters().untrusted.fetch_add(1);
  const std::string fix =
      status.st_uid != geteuid()
          ? std::string("use a directory of your own (--cache-dir, "
                        "MXLA_CACHE_DIR or CompileOptions::cache_dir)")
          : absl::StrCat("make it private: chmod 700 '", directory, "'");
  WarnOnce(absl::StrCat("untrusted directory ", directory),
           absl::StrCat("compile cache: directory '", directory, "' ",
                        problem,
                        "; its entries are code that mxla runs, so it is "
                        "not used and modules are compiled instead; ",
                        fix));
  return {ScopedFd(), DirectoryState::kUntrusted};
}

void WarnUntrustedEntry(const std::string& directory, const std::string& path,
                        const std::string& problem) {
  GlobalCounters().untrusted.fetch_add(1);
  WarnOnce(absl::StrCat("untrusted entry ", directory),
           absl::StrCat("compile cache: entry '", path, "' ", problem,
                        "; an entry is code that mxla runs, and only a "
                        "regular file of this user's that only it can write "
                        "is loaded, so the module is compiled instead (and "
                        "the entry replaced)"));
}

// `size` bytes from `fd`; nullopt on a short read or an error.
std::optional<std::string> ReadAll(int fd, int64_t size) {
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    done += static_cast<size_t>(got);
  }
  return bytes;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    done += static_cast<size_t>(put);
  }
  return true;
}

std::string FileName(const std::string& key) {
  return absl::StrCat(key, kSuffix);
}

// Deletes stale temporary files, then, past `max_bytes`, the least
// recently used entries, all through the directory's descriptor. Only
// regular files count: nothing else in the directory is ours.
void EvictPast(int directory_fd, int64_t max_bytes) {
  const int listing_fd = dup(directory_fd);  // fdopendir takes it over
  if (listing_fd < 0) return;
  DIR* listing = fdopendir(listing_fd);
  if (listing == nullptr) {
    close(listing_fd);
    return;
  }
  struct File {
    std::string name;
    struct timespec time;
    int64_t bytes;
  };
  std::vector<File> entries;
  int64_t total = 0;
  const time_t now = time(nullptr);
  while (const struct dirent* item = readdir(listing)) {
    const std::string name = item->d_name;
    struct stat status;
    if (fstatat(directory_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) !=
            0 ||
        !S_ISREG(status.st_mode)) {
      continue;  // gone meanwhile (other processes evict too), or not ours
    }
    if (absl::StrContains(name, ".mxla.tmp.")) {
      // A writer that died mid-write; live writers finish in seconds.
      if (now - status.st_mtim.tv_sec > 600) {
        unlinkat(directory_fd, name.c_str(), 0);
      }
      continue;
    }
    if (!absl::EndsWith(name, kSuffix)) continue;
    entries.push_back({name, status.st_mtim, status.st_size});
    total += status.st_size;
  }
  closedir(listing);
  if (total <= max_bytes) return;
  std::sort(entries.begin(), entries.end(), [](const File& a, const File& b) {
    return std::pair(a.time.tv_sec, a.time.tv_nsec) <
           std::pair(b.time.tv_sec, b.time.tv_nsec);
  });
  for (const File& file : entries) {
    if (total <= max_bytes) break;
    if (unlinkat(directory_fd, file.name.c_str(), 0) == 0) {
      total -= file.bytes;
      GlobalCounters().evictions.fetch_add(1);
    }
  }
}
}  // namespace

void WarnOnce(const std::string& kind, const std::string& message) {
  static std::mutex* mutex = new std::mutex;
  static auto* warned = new absl::flat_hash_set<std::string>;
  std::lock_guard<std::mutex> lock(*mutex);
  if (!warned->insert(kind).second) return;
  std::cerr << "mxla: warning: " << message << std::endl;
}

std::string EncodeDiskCacheEntry(const std::string& key,
                                 const DiskCacheEntry& entry) {
  const std::string payload = Payload(entry);
  return Header(key, payload) + payload;
}

std::optional<DiskCacheEntry> DecodeDiskCacheEntry(const std::string& key,
                                                   const std::string& bytes) {
  if (!absl::StartsWith(bytes, kMagic)) return std::nullopt;
  Reader in(absl::string_view(bytes).substr(std::strlen(kMagic)));
  uint64_t version, size;
  std::string stored_key, checksum;
  if (!in.U64(version) || version != kFormatVersion ||
      !in.String(stored_key) || stored_key != key || !in.U64(size) ||
      !in.String(checksum)) {
    return std::nullopt;
  }
  absl::string_view payload = in.rest();
  if (payload.size() != size || ContentHash(payload) != checksum) {
    return std::nullopt;
  }
  return ParsePayload(payload);
}

DiskCache::DiskCache(std::string directory, int64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

std::string DiskCache::PathOf(const std::string& key) const {
  return (fs::path(directory_) / FileName(key)).string();
}

std::optional<DiskCacheEntry> DiskCache::Load(const std::string& key) const {
  Counters& counters = GlobalCounters();
  const OpenedDirectory directory =
      OpenCacheDirectory(directory_, /*create=*/false);
  const std::string name = FileName(key);
  // O_NOFOLLOW: a symbolic link is refused, not followed to a file that
  // someone else may write; O_NONBLOCK: a FIFO cannot stall the open.
  ScopedFd file(directory.fd.ok()
                    ? openat(directory.fd.get(), name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                    : -1);
  if (!file.ok()) {
    if (directory.fd.ok() && errno == ELOOP) {
      WarnUntrustedEntry(directory_, PathOf(key), "is a symbolic link");
    }
    counters.misses.fetch_add(1);  // no entry, or no usable directory
    return std::nullopt;
  }
  // Checked on the opened file, so what is checked is what is read.
  struct stat status;
  std::string problem;
  if (fstat(file.get(), &status) != 0) {
    problem = "cannot be examined";
  } else if (!S_ISREG(status.st_mode)) {
    problem = "is not a regular file";
  } else {
    problem = TrustProblem(status);
  }
  if (!problem.empty()) {
    WarnUntrustedEntry(directory_, PathOf(key), problem);
    counters.misses.fetch_add(1);
    return std::nullopt;
  }
  std::optional<std::string> bytes;
  if (status.st_size <= kMaxEntryBytes) {
    bytes = ReadAll(file.get(), status.st_size);
  }
  std::optional<DiskCacheEntry> entry;
  if (bytes.has_value()) entry = DecodeDiskCacheEntry(key, *bytes);
  if (!entry.has_value()) {
    counters.rejected.fetch_add(1);
    counters.misses.fetch_add(1);
    WarnOnce(absl::StrCat("rejected ", directory_),
             absl::StrCat("compile cache: '", PathOf(key),
                          "' is truncated, corrupt or not an entry of this "
                          "format; it is deleted and the module recompiled"));
    unlinkat(directory.fd.get(), name.c_str(), 0);
    return std::nullopt;
  }
  counters.hits.fetch_add(1);
  // A hit makes the entry the most recently used (best effort).
  futimens(file.get(), nullptr);
  return entry;
}

bool DiskCache::Store(const std::string& key,
                      const DiskCacheEntry& entry) const {
  static std::atomic<int64_t> next_temporary{0};
  const OpenedDirectory directory =
      OpenCacheDirectory(directory_, /*create=*/true);
  if (directory.state == DirectoryState::kUntrusted) return false;  // warned
  const std::string name = FileName(key);
  const std::string temporary =
      absl::StrCat(name, ".tmp.", getpid(), ".", next_temporary.fetch_add(1));
  bool written = false;
  if (directory.fd.ok()) {
    // A new file (O_EXCL, never a link), readable and writable by this user
    // only, renamed into place whole.
    ScopedFd out(openat(directory.fd.get(), temporary.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0600));
    if (out.ok()) {
      written = WriteAll(out.get(), EncodeDiskCacheEntry(key, entry));
      written = out.Close() && written;
      written = written && renameat(directory.fd.get(), temporary.c_str(),
                                    directory.fd.get(), name.c_str()) == 0;
      if (!written) unlinkat(directory.fd.get(), temporary.c_str(), 0);
    }
  }
  if (!written) {
    GlobalCounters().store_failures.fetch_add(1);
    WarnOnce(absl::StrCat("store ", directory_),
             absl::StrCat("compile cache: cannot write to '", directory_,
                          "' (read-only, full or missing?); compiling "
                          "without storing"));
    return false;
  }
  GlobalCounters().stores.fetch_add(1);
  EvictPast(directory.fd.get(), max_bytes_);
  return true;
}

void DiskCache::Remove(const std::string& key) const {
  const OpenedDirectory directory =
      OpenCacheDirectory(directory_, /*create=*/false);
  if (directory.fd.ok()) {
    unlinkat(directory.fd.get(), FileName(key).c_str(), 0);
  }
}

DiskCache::Stats DiskCache::GlobalStats() {
  const Counters& c = GlobalCounters();
  return {c.hits.load(),      c.misses.load(), c.rejected.load(),
          c.untrusted.load(), c.stores.load(), c.store_failures.load(),
          c.evictions.load()};
}

}  // namespace mxla
