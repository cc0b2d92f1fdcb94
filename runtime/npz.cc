#include "runtime/npz.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "runtime/npy.h"

namespace mxla {
namespace {

constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr int kLocalHeaderBytes = 30;
constexpr int kCentralHeaderBytes = 46;
constexpr int kEndBytes = 22;
// "Version needed to extract" 2.0, as zipfile writes for stored members.
constexpr uint16_t kVersion = 20;
// 1980-01-01 00:00, the earliest DOS date: archives do not depend on when
// they were written.
constexpr uint16_t kDosTime = 0;
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;

void Put16(std::string& out, uint16_t value) {
  out.push_back(static_cast<char>(value & 0xff));
  out.push_back(static_cast<char>(value >> 8));
}
void Put32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

uint32_t Get(absl::string_view bytes, size_t at, int width) {
  uint32_t value = 0;
  for (int i = 0; i < width; ++i) {
    value |= uint32_t{static_cast<uint8_t>(bytes[at + i])} << (8 * i);
  }
  return value;
}

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed .npz: ", what));
}

// The fields local and central headers share, from "version needed" to the
// extra field's length.
void PutCommonFields(std::string& out, const ZipMember& member, uint32_t crc) {
  Put16(out, kVersion);
  Put16(out, 0);  // flags
  Put16(out, 0);  // method: stored
  Put16(out, kDosTime);
  Put16(out, kDosDate);
  Put32(out, crc);
  Put32(out, static_cast<uint32_t>(member.bytes.size()));  // compressed
  Put32(out, static_cast<uint32_t>(member.bytes.size()));  // uncompressed
  Put16(out, static_cast<uint16_t>(member.name.size()));
  Put16(out, 0);  // extra field
}

void CollectLeaves(const Literal& literal, std::string path,
                   std::vector<std::pair<std::string, const Literal*>>& out) {
  if (literal.shape().IsToken()) return;
  if (!literal.shape().IsTuple()) {
    out.emplace_back(path.empty() ? "0" : path, &literal);
    return;
  }
  for (int64_t i = 0; i < literal.tuple_size(); ++i) {
    CollectLeaves(literal.tuple_element(i),
                  path.empty() ? absl::StrCat(i) : absl::StrCat(path, ".", i),
                  out);
  }
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), bytes.size());
  file.close();
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

uint32_t Crc32(absl::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> entries;
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320 ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
    return entries;
  }();
  uint32_t crc = 0xFFFFFFFF;
  for (char byte : bytes) {
    crc = table[(crc ^ static_cast<uint8_t>(byte)) & 0xff] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFF;
}

absl::StatusOr<std::string> SerializeZip(
    const std::vector<ZipMember>& members) {
  if (members.size() >= 0xFFFF) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an .npz of ", members.size(),
        " arrays needs zip64, which mxla does not write (at most 65534)"));
  }
  std::string out, directory;
  for (const ZipMember& member : members) {
    if (member.name.size() > 0xFFFF) {
      return absl::InvalidArgumentError("an .npz member name is too long");
    }
    // The member, and every header offset, must stay under 4 GiB.
    if (out.size() + kLocalHeaderBytes + member.name.size() +
            member.bytes.size() >=
        0xFFFFFFFFu) {
      return absl::InvalidArgumentError(
          "an .npz past 4 GiB needs zip64, which mxla does not write; write "
          "one .npy per array instead");
    }
    const uint32_t crc = Crc32(member.bytes);
    const uint32_t offset = static_cast<uint32_t>(out.size());
    Put32(out, kLocalSignature);
    PutCommonFields(out, member, crc);
    out += member.name;
    out += member.bytes;

    Put32(directory, kCentralSignature);
    Put16(directory, kVersion);  // made by: MS-DOS attributes, version 2.0
    PutCommonFields(directory, member, crc);
    Put16(directory, 0);  // comment length
    Put16(directory, 0);  // disk number
    Put16(directory, 0);  // internal attributes
    Put32(directory, 0);  // external attributes
    Put32(directory, offset);
    directory += member.name;
  }
  if (out.size() + directory.size() >= 0xFFFFFFFFu) {
    return absl::InvalidArgumentError(
        "an .npz past 4 GiB needs zip64, which mxla does not write; write "
        "one .npy per array instead");
  }
  const uint32_t directory_offset = static_cast<uint32_t>(out.size());
  out += directory;
  Put32(out, kEndSignature);
  Put16(out, 0);  // this disk
  Put16(out, 0);  // the directory's disk
  Put16(out, static_cast<uint16_t>(members.size()));
  Put16(out, static_cast<uint16_t>(members.size()));
  Put32(out, static_cast<uint32_t>(directory.size()));
  Put32(out, directory_offset);
  Put16(out, 0);  // comment length
  return out;
}

namespace {

// Where the end record starts: it sits last, before a comment of at most
// 65535 bytes.
absl::StatusOr<size_t> FindEndRecord(absl::string_view bytes) {
  if (bytes.size() < kEndBytes) return Malformed("too short for a zip file");
  size_t end = bytes.size() - kEndBytes;
  const size_t lowest = end > 0xFFFF ? end - 0xFFFF : 0;
  while (Get(bytes, end, 4) != kEndSignature) {
    if (end == lowest) return Malformed("no zip end-of-directory record");
    --end;
  }
  return end;
}

// Central directory entry `i`: how its member is stored, and where its
// local header is.
struct CentralEntry {
  std::string name;
  uint32_t method, crc, stored_size, size, local;
};

// Reads central directory entry `i` at `at` (before `end`, the end
// record), and moves `at` past it.
absl::StatusOr<CentralEntry> ParseCentralEntry(absl::string_view bytes,
                                               size_t& at, size_t end,
                                               uint32_t i) {
  if (at + kCentralHeaderBytes > end ||
      Get(bytes, at, 4) != kCentralSignature) {
    return Malformed(absl::StrCat("central directory entry ", i,
                                  " is missing or truncated"));
  }
  CentralEntry entry;
  entry.method = Get(bytes, at + 10, 2);
  entry.crc = Get(bytes, at + 16, 4);
  entry.stored_size = Get(bytes, at + 20, 4);
  entry.size = Get(bytes, at + 24, 4);
  const uint32_t name_length = Get(bytes, at + 28, 2);
  const uint32_t skip = Get(bytes, at + 30, 2) + Get(bytes, at + 32, 2);
  entry.local = Get(bytes, at + 42, 4);
  if (at + kCentralHeaderBytes + name_length + skip > end) {
    return Malformed(
        absl::StrCat("central directory entry ", i, " is truncated"));
  }
  entry.name = std::string(bytes.substr(at + kCentralHeaderBytes, name_length));
  at += kCentralHeaderBytes + name_length + skip;
  return entry;
}

// The member `entry` describes: stored (not compressed), its bytes within
// the file and matching their CRC-32.
absl::StatusOr<ZipMember> ReadMember(absl::string_view bytes,
                                     const CentralEntry& entry) {
  if (entry.method != 0) {
    return Malformed(absl::StrCat(
        "member '", entry.name, "' is compressed (method ", entry.method,
        "); mxla reads stored members only: save with numpy.savez, not "
        "numpy.savez_compressed"));
  }
  if (entry.stored_size != entry.size) {
    return Malformed(
        absl::StrCat("member '", entry.name, "' is stored with two sizes"));
  }
  if (uint64_t{entry.local} + kLocalHeaderBytes > bytes.size() ||
      Get(bytes, entry.local, 4) != kLocalSignature) {
    return Malformed(
        absl::StrCat("member '", entry.name, "' has no local header"));
  }
  const uint64_t data = uint64_t{entry.local} + kLocalHeaderBytes +
                        Get(bytes, entry.local + 26, 2) +
                        Get(bytes, entry.local + 28, 2);
  if (data + entry.size > bytes.size()) {
    return Malformed(absl::StrCat("member '", entry.name, "' is truncated"));
  }
  ZipMember member;
  member.name = entry.name;
  member.bytes = std::string(bytes.substr(data, entry.size));
  if (Crc32(member.bytes) != entry.crc) {
    return Malformed(
        absl::StrCat("member '", member.name, "' fails its CRC-32 check"));
  }
  return member;
}

}  // namespace

absl::StatusOr<std::vector<ZipMember>> ParseZip(absl::string_view bytes) {
  ASSIGN_OR_RETURN(const size_t end, FindEndRecord(bytes));
  const uint32_t count = Get(bytes, end + 10, 2);
  const uint32_t directory_size = Get(bytes, end + 12, 4);
  const uint32_t directory_offset = Get(bytes, end + 16, 4);
  if (directory_offset == 0xFFFFFFFF || count == 0xFFFF) {
    return Malformed("zip64 archives are not supported");
  }
  if (uint64_t{directory_offset} + directory_size > end) {
    return Malformed("the central directory lies outside the file");
  }
  std::vector<ZipMember> members;
  size_t at = directory_offset;
  for (uint32_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(const CentralEntry entry,
                     ParseCentralEntry(bytes, at, end, i));
    ASSIGN_OR_RETURN(ZipMember member, ReadMember(bytes, entry));
    members.push_back(std::move(member));
  }
  return members;
}

std::vector<std::pair<std::string, const Literal*>> ArrayLeaves(
    const Literal& literal) {
  std::vector<std::pair<std::string, const Literal*>> leaves;
  CollectLeaves(literal, "", leaves);
  return leaves;
}

namespace {

// Each array leaf of `literal` as an .npy file named by its index path.
absl::StatusOr<std::vector<ZipMember>> NpyFiles(const Literal& literal) {
  std::vector<ZipMember> files;
  for (const auto& [name, leaf] : ArrayLeaves(literal)) {
    absl::StatusOr<std::string> npy = SerializeNpy(*leaf);
    if (!npy.ok()) {
      return absl::Status(npy.status().code(),
                          absl::StrCat("array ", name, ": ",
                                       npy.status().message()));
    }
    files.push_back({absl::StrCat(name, ".npy"), *std::move(npy)});
  }
  return files;
}

}  // namespace

absl::StatusOr<std::string> SerializeNpz(const Literal& literal) {
  ASSIGN_OR_RETURN(std::vector<ZipMember> members, NpyFiles(literal));
  return SerializeZip(members);
}

absl::Status WriteNpzFile(const std::string& path, const Literal& literal) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpz(literal));
  return WriteFile(path, bytes);
}

absl::Status WriteNpyDirectory(const std::string& directory,
                               const Literal& literal) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (!std::filesystem::is_directory(directory, error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create the directory '", directory, "'",
        error ? absl::StrCat(": ", error.message()) : ""));
  }
  ASSIGN_OR_RETURN(std::vector<ZipMember> files, NpyFiles(literal));
  for (const ZipMember& file : files) {
    RETURN_IF_ERROR(WriteFile(
        (std::filesystem::path(directory) / file.name).string(), file.bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<NpzArchive> NpzArchive::Open(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  absl::StatusOr<std::vector<ZipMember>> members = ParseZip(contents.str());
  if (!members.ok()) {
    return absl::Status(members.status().code(),
                        absl::StrCat(path, ": ", members.status().message()));
  }
  NpzArchive archive;
  archive.path_ = path;
  archive.members_ = *std::move(members);
  return archive;
}

absl::StatusOr<Literal> ReadNpzMember(const std::string& path,
                                      const std::string& name) {
  ASSIGN_OR_RETURN(NpzArchive archive, NpzArchive::Open(path));
  return archive.Member(name);
}

absl::StatusOr<Literal> NpzArchive::Member(const std::string& name) const {
  const std::string& path = path_;
  const std::vector<ZipMember>* members = &members_;
  std::vector<std::string> names;
  for (const ZipMember& member : *members) {
    std::string short_name = member.name;
    if (absl::EndsWith(short_name, ".npy")) {
      short_name.resize(short_name.size() - 4);
    }
    const bool only = name.empty() && members->size() == 1;
    if (only || short_name == name || member.name == name) {
      absl::StatusOr<Literal> literal = ParseNpy(member.bytes);
      if (!literal.ok()) {
        return absl::Status(literal.status().code(),
                            absl::StrCat(path, ":", short_name, ": ",
                                         literal.status().message()));
      }
      return literal;
    }
    names.push_back(std::move(short_name));
  }
  constexpr size_t kNamesShown = 8;
  const size_t shown = std::min(names.size(), kNamesShown);
  std::string listed = absl::StrJoin(names.begin(), names.begin() + shown, ", ");
  if (names.size() > shown) {
    absl::StrAppend(&listed, ", ... ", names.size() - shown, " more");
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, " holds no arrays"));
  }
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " holds ", names.size(), " arrays (", listed,
        "): name one as ", path, ":NAME"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      path, " has no array '", name, "' (it holds ", listed, ")"));
}

}  // namespace mxla
