// The persistent compile cache's files (driver/disk_cache.h): entries
// round-trip; every truncation, corruption, foreign file or wrong key is
// rejected and deleted; unwritable directories degrade to a warning; the
// size cap evicts the least recently used entries; a directory or entry
// that someone else owns or can write is not used (a warning, once).
#include "driver/disk_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";
constexpr char kOtherKey[] = "fedcba9876543210fedcba9876543210";

DiskCacheEntry SampleEntry(int size = 1000) {
  DiskCacheEntry entry;
  entry.fused_hlo = "HloModule m\n\nENTRY main {\n  ROOT c = f32[] constant(1)\n}\n";
  entry.kernels.push_back({"fusion", "mxla.fusion", 64, 16, 0, ""});
  entry.kernels.push_back({"fusion.1", "mxla.fusion", 64, 16, 256,
                           "mxla.fusion$combine"});
  entry.kernels.back().operand_offsets = {0, 4096, 64};
  entry.objects.push_back(std::string(size, '\x7f'));
  entry.objects.push_back("\x01\x02\x03");
  return entry;
}

void ExpectSame(const DiskCacheEntry& a, const DiskCacheEntry& b) {
  EXPECT_EQ(a.fused_hlo, b.fused_hlo);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].fusion_name, b.kernels[i].fusion_name);
    EXPECT_EQ(a.kernels[i].symbol, b.kernels[i].symbol);
    EXPECT_EQ(a.kernels[i].units, b.kernels[i].units);
    EXPECT_EQ(a.kernels[i].bytes_per_unit, b.kernels[i].bytes_per_unit);
    EXPECT_EQ(a.kernels[i].scratch_bytes, b.kernels[i].scratch_bytes);
    EXPECT_EQ(a.kernels[i].combine_symbol, b.kernels[i].combine_symbol);
    EXPECT_EQ(a.kernels[i].operand_offsets, b.kernels[i].operand_offsets);
  }
  EXPECT_EQ(a.objects, b.objects);
}

fs::path FreshDirectory(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir;
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(DiskCacheEntryTest, RoundTrips) {
  const DiskCacheEntry entry = SampleEntry();
  std::optional<DiskCacheEntry> decoded =
      DecodeDiskCacheEntry(kKey, EncodeDiskCacheEntry(kKey, entry));
  ASSERT_TRUE(decoded.has_value());
  ExpectSame(entry, *decoded);
}

TEST(DiskCacheEntryTest, EveryTruncationIsRejected) {
  const std::string bytes = EncodeDiskCacheEntry(kKey, SampleEntry(200));
  for (size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_FALSE(DecodeDiskCacheEntry(kKey, bytes.substr(0, size)).has_value())
        << "truncated to " << size << " of " << bytes.size();
  }
}

TEST(DiskCacheEntryTest, EveryFlippedByteIsRejected) {
  const std::string bytes = EncodeDiskCacheEntry(kKey, SampleEntry(200));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string corrupt = bytes;
    corrupt[i] ^= 0x20;
    EXPECT_FALSE(DecodeDiskCacheEntry(kKey, corrupt).has_value())
        << "byte " << i << " flipped";
  }
}

TEST(DiskCacheEntryTest, ForeignFilesAndOtherKeysAreRejected) {
  const std::string bytes = EncodeDiskCacheEntry(kKey, SampleEntry());
  EXPECT_FALSE(DecodeDiskCacheEntry(kOtherKey, bytes).has_value());
  EXPECT_FALSE(DecodeDiskCacheEntry(kKey, "").has_value());
  EXPECT_FALSE(DecodeDiskCacheEntry(kKey, "\x7f" "ELF not an entry").has_value());
  EXPECT_FALSE(DecodeDiskCacheEntry(kKey, bytes + "trailing").has_value());
}

TEST(DiskCacheTest, StoresAndLoads) {
  const fs::path dir = FreshDirectory("disk_cache_store");
  DiskCache cache(dir.string(), 1 << 20);
  const DiskCache::Stats before = DiskCache::GlobalStats();
  EXPECT_FALSE(cache.Load(kKey).has_value());  // creates nothing
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  std::optional<DiskCacheEntry> loaded = cache.Load(kKey);
  ASSERT_TRUE(loaded.has_value());
  ExpectSame(SampleEntry(), *loaded);
  const DiskCache::Stats after = DiskCache::GlobalStats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.hits - before.hits, 1);
  EXPECT_EQ(after.stores - before.stores, 1);
  // Only the entry: the temporary file was renamed into place.
  int files = 0;
  for (const auto& file : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(file.path().filename().string(), std::string(kKey) + ".mxla");
  }
  EXPECT_EQ(files, 1);
}

TEST(DiskCacheTest, UnusableEntriesAreDeletedAndMiss) {
  const fs::path dir = FreshDirectory("disk_cache_corrupt");
  DiskCache cache(dir.string(), 1 << 20);
  const std::string good = EncodeDiskCacheEntry(kKey, SampleEntry());
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 1;
  const std::vector<std::pair<const char*, std::string>> files = {
      {"empty", ""},
      {"truncated", good.substr(0, good.size() - 7)},
      {"flipped", flipped},
      {"foreign", "not a cache entry at all"},
      {"other key", EncodeDiskCacheEntry(kOtherKey, SampleEntry())},
  };
  for (const auto& [what, bytes] : files) {
    fs::create_directories(dir);
    WriteBytes(cache.PathOf(kKey), bytes);
    const int64_t rejected = DiskCache::GlobalStats().rejected;
    EXPECT_FALSE(cache.Load(kKey).has_value()) << what;
    EXPECT_EQ(DiskCache::GlobalStats().rejected - rejected, 1) << what;
    EXPECT_FALSE(fs::exists(cache.PathOf(kKey))) << what;
  }
}

TEST(DiskCacheTest, UnwritableDirectoriesDegradeToAWarning) {
  // A path under a regular file cannot be a directory, and /proc refuses
  // new files even to root.
  const fs::path dir = FreshDirectory("disk_cache_unwritable");
  fs::create_directories(dir);
  WriteBytes(dir / "a_file", "x");
  for (const std::string& path :
       {(dir / "a_file" / "cache").string(), std::string("/proc/mxla-cache")}) {
    DiskCache cache(path, 1 << 20);
    const int64_t failures = DiskCache::GlobalStats().store_failures;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.Store(kKey, SampleEntry())) << path;
    const std::string warning = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(DiskCache::GlobalStats().store_failures - failures, 1);
    EXPECT_THAT(warning, ::testing::HasSubstr("mxla: warning: compile cache: "
                                              "cannot write to '" + path));
    EXPECT_FALSE(cache.Load(kKey).has_value());
  }
}

TEST(DiskCacheTest, TheSizeCapEvictsTheLeastRecentlyUsed) {
  const fs::path dir = FreshDirectory("disk_cache_evict");
  const int64_t entry_bytes =
      EncodeDiskCacheEntry(kKey, SampleEntry(4000)).size();
  // Room for two entries, not three.
  DiskCache cache(dir.string(), 2 * entry_bytes + entry_bytes / 2);
  const std::string keys[] = {"a0000000000000000000000000000000",
                              "b0000000000000000000000000000000",
                              "c0000000000000000000000000000000"};
  const auto now = fs::file_time_type::clock::now();
  ASSERT_TRUE(cache.Store(keys[0], SampleEntry(4000)));
  ASSERT_TRUE(cache.Store(keys[1], SampleEntry(4000)));
  // keys[1] is older than keys[0], which a hit then refreshes.
  fs::last_write_time(cache.PathOf(keys[0]), now - std::chrono::seconds(10));
  fs::last_write_time(cache.PathOf(keys[1]), now - std::chrono::seconds(20));
  ASSERT_TRUE(cache.Load(keys[0]).has_value());
  const int64_t evictions = DiskCache::GlobalStats().evictions;
  ASSERT_TRUE(cache.Store(keys[2], SampleEntry(4000)));
  EXPECT_EQ(DiskCache::GlobalStats().evictions - evictions, 1);
  EXPECT_TRUE(fs::exists(cache.PathOf(keys[0])));
  EXPECT_FALSE(fs::exists(cache.PathOf(keys[1])));
  EXPECT_TRUE(fs::exists(cache.PathOf(keys[2])));
}

TEST(DiskCacheTest, StaleTemporaryFilesAreSwept) {
  const fs::path dir = FreshDirectory("disk_cache_stale");
  fs::create_directories(dir);
  const fs::path stale = dir / (std::string(kKey) + ".mxla.tmp.1.0");
  const fs::path fresh = dir / (std::string(kOtherKey) + ".mxla.tmp.2.0");
  WriteBytes(stale, "half an entry");
  WriteBytes(fresh, "being written");
  fs::last_write_time(stale, fs::file_time_type::clock::now() -
                                 std::chrono::hours(1));
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
}

int ModeOf(const fs::path& path) {
  struct stat status;
  EXPECT_EQ(lstat(path.c_str(), &status), 0) << path;
  return status.st_mode & 07777;
}

// Loads `key` from `cache`, expecting a refusal with `warning` on stderr
// (when not empty) and no other change to the counters than a miss.
void ExpectRefused(const DiskCache& cache, const std::string& key,
                   const std::string& warning) {
  const DiskCache::Stats before = DiskCache::GlobalStats();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.Load(key).has_value());
  const std::string printed = ::testing::internal::GetCapturedStderr();
  const DiskCache::Stats after = DiskCache::GlobalStats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.untrusted - before.untrusted, 1);
  EXPECT_EQ(after.rejected, before.rejected);
  EXPECT_EQ(after.hits, before.hits);
  if (warning.empty()) {
    EXPECT_EQ(printed, "");
  } else {
    EXPECT_EQ(printed, "mxla: warning: " + warning + "\n");
  }
}

TEST(DiskCacheTrustTest, NewDirectoriesAndEntriesAreThisUsersAlone) {
  const fs::path top = FreshDirectory("disk_cache_modes");
  const fs::path dir = top / "a" / "b";
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  EXPECT_EQ(ModeOf(top), 0700);
  EXPECT_EQ(ModeOf(top / "a"), 0700);
  EXPECT_EQ(ModeOf(dir), 0700);
  EXPECT_EQ(ModeOf(cache.PathOf(kKey)), 0600);
  // The normal path is untouched: a hit, nothing refused.
  const int64_t untrusted = DiskCache::GlobalStats().untrusted;
  EXPECT_TRUE(cache.Load(kKey).has_value());
  EXPECT_EQ(DiskCache::GlobalStats().untrusted, untrusted);
}

TEST(DiskCacheTrustTest, AWorldWritableDirectoryIsNotUsed) {
  const fs::path dir = FreshDirectory("disk_cache_world_writable");
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  fs::permissions(dir, fs::perms::all);  // 0777, as /tmp/mxla made by mkdir -m
  const std::string warning =
      "compile cache: directory '" + dir.string() +
      "' is writable by group and others (mode 0777); its entries are code "
      "that mxla runs, so it is not used and modules are compiled instead; "
      "make it private: chmod 700 '" + dir.string() + "'";
  ExpectRefused(cache, kKey, warning);
  ExpectRefused(cache, kKey, "");  // once per directory
  // Nor is anything written there.
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.Store(kOtherKey, SampleEntry()));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(fs::exists(cache.PathOf(kOtherKey)));
  // Group-writable alone is refused too (its own warning for a new
  // directory name).
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_all);
  const fs::path alias = FreshDirectory("disk_cache_group_writable_dir");
  fs::create_directory_symlink(dir, alias);
  ExpectRefused(DiskCache(alias.string(), 1 << 20), kKey,
                "compile cache: directory '" + alias.string() +
                    "' is writable by group (mode 0770); its entries are "
                    "code that mxla runs, so it is not used and modules are "
                    "compiled instead; make it private: chmod 700 '" +
                    alias.string() + "'");
  // Made private again, it hits (through the link as well: what counts is
  // the directory reached).
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_TRUE(cache.Load(kKey).has_value());
  EXPECT_TRUE(DiskCache(alias.string(), 1 << 20).Load(kKey).has_value());
}

TEST(DiskCacheTrustTest, AForeignDirectoryIsNotUsed) {
  const fs::path dir = FreshDirectory("disk_cache_foreign_dir");
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  ASSERT_EQ(chown(dir.c_str(), 65534, static_cast<gid_t>(-1)), 0)
      << "the tests run as root";
  ExpectRefused(cache, kKey,
                "compile cache: directory '" + dir.string() +
                    "' is owned by uid 65534, not by this user (uid " +
                    std::to_string(geteuid()) +
                    "); its entries are code that mxla runs, so it is not "
                    "used and modules are compiled instead; use a directory "
                    "of your own (--cache-dir, MXLA_CACHE_DIR or "
                    "CompileOptions::cache_dir)");
  EXPECT_FALSE(cache.Store(kKey, SampleEntry()));
}

std::string EntryWarning(const DiskCache& cache, const std::string& problem) {
  return "compile cache: entry '" + cache.PathOf(kKey) + "' " + problem +
         "; an entry is code that mxla runs, and only a regular file of this "
         "user's that only it can write is loaded, so the module is compiled "
         "instead (and the entry replaced)";
}

TEST(DiskCacheTrustTest, AForeignEntryIsNotLoadedAndAStoreReplacesIt) {
  const fs::path dir = FreshDirectory("disk_cache_foreign_entry");
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  ASSERT_EQ(chown(cache.PathOf(kKey).c_str(), 65534, static_cast<gid_t>(-1)),
            0);
  ExpectRefused(cache, kKey,
                EntryWarning(cache, "is owned by uid 65534, not by this user "
                                    "(uid " + std::to_string(geteuid()) + ")"));
  EXPECT_TRUE(fs::exists(cache.PathOf(kKey)));  // refused, not deleted
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  struct stat status;
  ASSERT_EQ(stat(cache.PathOf(kKey).c_str(), &status), 0);
  EXPECT_EQ(status.st_uid, geteuid());
  EXPECT_TRUE(cache.Load(kKey).has_value());
}

TEST(DiskCacheTrustTest, AGroupWritableEntryIsNotLoaded) {
  const fs::path dir = FreshDirectory("disk_cache_group_entry");
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kKey, SampleEntry()));
  fs::permissions(cache.PathOf(kKey), fs::perms::owner_read |
                                          fs::perms::owner_write |
                                          fs::perms::group_write);
  ExpectRefused(cache, kKey,
                EntryWarning(cache, "is writable by group (mode 0620)"));
  ExpectRefused(cache, kKey, "");  // once per directory
}

TEST(DiskCacheTrustTest, ASymbolicLinkEntryIsNotFollowed) {
  // The link points at a whole, valid entry: only the link is wrong.
  const fs::path elsewhere = FreshDirectory("disk_cache_link_target");
  DiskCache target(elsewhere.string(), 1 << 20);
  ASSERT_TRUE(target.Store(kKey, SampleEntry()));
  const fs::path dir = FreshDirectory("disk_cache_link_entry");
  DiskCache cache(dir.string(), 1 << 20);
  ASSERT_TRUE(cache.Store(kOtherKey, SampleEntry()));  // makes the directory
  fs::create_symlink(target.PathOf(kKey), cache.PathOf(kKey));
  ExpectRefused(cache, kKey, EntryWarning(cache, "is a symbolic link"));
  EXPECT_TRUE(fs::exists(target.PathOf(kKey)));
  // A store replaces the link itself, not the file it names.
  ASSERT_TRUE(cache.Store(kKey, SampleEntry(10)));
  EXPECT_FALSE(fs::is_symlink(cache.PathOf(kKey)));
  ASSERT_TRUE(target.Load(kKey).has_value());
  ExpectSame(*target.Load(kKey), SampleEntry());
}

}  // namespace
}  // namespace mxla
