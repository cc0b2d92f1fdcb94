#include "runtime/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/build_identity.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "MXLA-COMPILE-CACHE\n";
constexpr uint32_t kFormatVersion = 1;
constexpr char kSuffix[] = ".mxla";
// Entries are a few MiB at most; a larger file is not one of ours.
constexpr int64_t kMaxEntryBytes = int64_t{1} << 30;

struct Counters {
  std::atomic<int64_t> hits{0}, misses{0}, rejected{0}, stores{0},
      store_failures{0}, evictions{0};
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
        !in.I64(kernel.scratch_bytes) || !in.String(kernel.combine_symbol)) {
      return std::nullopt;
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

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxEntryBytes) return std::string();  // unusable
  in.seekg(0);
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), size);
  if (!in) return std::string();
  return bytes;
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
  return (fs::path(directory_) / absl::StrCat(key, kSuffix)).string();
}

std::optional<DiskCacheEntry> DiskCache::Load(const std::string& key) const {
  const std::string path = PathOf(key);
  std::optional<std::string> bytes = ReadWholeFile(path);
  if (!bytes.has_value()) {  // no entry (or an unreadable directory)
    GlobalCounters().misses.fetch_add(1);
    return std::nullopt;
  }
  std::optional<DiskCacheEntry> entry = DecodeDiskCacheEntry(key, *bytes);
  if (!entry.has_value()) {
    GlobalCounters().rejected.fetch_add(1);
    GlobalCounters().misses.fetch_add(1);
    WarnOnce(absl::StrCat("rejected ", directory_),
             absl::StrCat("compile cache: '", path,
                          "' is truncated, corrupt or not an entry of this "
                          "format; it is deleted and the module recompiled"));
    Remove(key);
    return std::nullopt;
  }
  GlobalCounters().hits.fetch_add(1);
  // A hit makes the entry the most recently used (best effort).
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return entry;
}

bool DiskCache::Store(const std::string& key,
                      const DiskCacheEntry& entry) const {
  static std::atomic<int64_t> next_temporary{0};
  std::error_code error;
  fs::create_directories(directory_, error);
  const std::string path = PathOf(key);
  const std::string temporary =
      absl::StrCat(path, ".tmp.", getpid(), ".", next_temporary.fetch_add(1));
  const std::string bytes = EncodeDiskCacheEntry(key, entry);
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(bytes.data(), bytes.size());
      out.close();
      written = static_cast<bool>(out);
    }
  }
  if (written) {
    fs::rename(temporary, path, error);
    written = !error;
  }
  if (!written) {
    fs::remove(temporary, error);
    GlobalCounters().store_failures.fetch_add(1);
    WarnOnce(absl::StrCat("store ", directory_),
             absl::StrCat("compile cache: cannot write to '", directory_,
                          "' (read-only, full or missing?); compiling "
                          "without storing"));
    return false;
  }
  GlobalCounters().stores.fetch_add(1);
  Evict();
  return true;
}

void DiskCache::Remove(const std::string& key) const {
  std::error_code error;
  fs::remove(PathOf(key), error);
}

void DiskCache::Evict() const {
  struct File {
    fs::path path;
    fs::file_time_type time;
    int64_t bytes;
  };
  std::vector<File> entries;
  int64_t total = 0;
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  // Stepped with error codes: other processes delete entries meanwhile,
  // and nothing here may throw.
  fs::directory_iterator it(directory_, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::directory_entry& file = *it;
    const std::string name = file.path().filename().string();
    std::error_code stat_error;
    const fs::file_time_type time = file.last_write_time(stat_error);
    if (stat_error) continue;
    if (absl::StrContains(name, ".mxla.tmp.")) {
      // A writer that died mid-write; live writers finish in seconds.
      std::error_code remove_error;
      if (now - time > std::chrono::minutes(10)) {
        fs::remove(file.path(), remove_error);
      }
      continue;
    }
    if (!absl::EndsWith(name, kSuffix)) continue;
    const int64_t bytes = static_cast<int64_t>(file.file_size(stat_error));
    if (stat_error) continue;
    entries.push_back({file.path(), time, bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(),
            [](const File& a, const File& b) { return a.time < b.time; });
  for (const File& file : entries) {
    if (total <= max_bytes_) break;
    if (fs::remove(file.path, error)) {
      total -= file.bytes;
      GlobalCounters().evictions.fetch_add(1);
    }
  }
}

DiskCache::Stats DiskCache::GlobalStats() {
  const Counters& c = GlobalCounters();
  return {c.hits.load(),   c.misses.load(),         c.rejected.load(),
          c.stores.load(), c.store_failures.load(), c.evictions.load()};
}

}  // namespace mxla
