// NumPy `.npz` archives and the arrays of a tuple result: an .npz is a zip
// file whose members are .npy files (runtime/npy.h), stored uncompressed, as
// numpy.savez writes it; `numpy.load(path)[name]` reads member `name.npy`.
// The zip is written by hand (local headers, central directory, CRC-32), not
// by a library: archives hold fewer than 65535 members and 4 GiB (no zip64),
// and larger ones are InvalidArgument. Reading takes stored members only
// (numpy.savez, not savez_compressed), and never trusts the file: a bad
// signature, size, offset or checksum is an InvalidArgument saying what.
//
// A result's arrays are named by their tuple index path: `0`, `1`, `1.0`,
// ... (an array result, which has no index, is named `0`, as if it were a
// 1-tuple). Tokens hold no data and are left out.
#ifndef MXLA_RUNTIME_NPZ_H_
#define MXLA_RUNTIME_NPZ_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace mxla {

// One member of an archive: its file name ("1.0.npy") and its bytes.
struct ZipMember {
  std::string name;
  std::string bytes;
};

// The CRC-32 of zip (and gzip, PNG): polynomial 0xEDB88320, reflected.
uint32_t Crc32(absl::string_view bytes);

// A zip archive of `members`, stored; InvalidArgument past the limits above
// or for a name longer than 65535 bytes.
absl::StatusOr<std::string> SerializeZip(const std::vector<ZipMember>& members);
// The members of a zip archive, in central-directory order.
absl::StatusOr<std::vector<ZipMember>> ParseZip(absl::string_view bytes);

// Each array of `literal` with its index path (see above), depth first.
std::vector<std::pair<std::string, const Literal*>> ArrayLeaves(
    const Literal& literal);

// The .npz bytes of `literal`: one `<index path>.npy` member per array.
// SerializeNpy's and SerializeZip's errors.
absl::StatusOr<std::string> SerializeNpz(const Literal& literal);
absl::Status WriteNpzFile(const std::string& path, const Literal& literal);
// One `<index path>.npy` per array in `directory` (created if missing);
// InvalidArgument if it cannot be created or a file cannot be written.
absl::Status WriteNpyDirectory(const std::string& directory,
                               const Literal& literal);

// An .npz file read and unzipped once, for reading several of its arrays.
class NpzArchive {
 public:
  // NotFound if the file cannot be opened; the zip's errors after `path`.
  static absl::StatusOr<NpzArchive> Open(const std::string& path);

  // The array named `name` (with or without `.npy`; empty: the only one);
  // InvalidArgument (listing the names there) if it holds no such array.
  absl::StatusOr<Literal> Member(const std::string& name) const;

 private:
  std::string path_;
  std::vector<ZipMember> members_;
};

// NpzArchive::Open(path), then Member(name).
absl::StatusOr<Literal> ReadNpzMember(const std::string& path,
                                      const std::string& name);

}  // namespace mxla

#endif  // MXLA_RUNTIME_NPZ_H_
