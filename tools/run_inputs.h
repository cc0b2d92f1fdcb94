// `mxla run`'s files: the --input bindings read into one literal per
// parameter (.npy, .npz:NAME; bf16, small floats and sub-byte types from
// the files NumPy can write), the --infeed files as a host feed, and the
// result written as .npy, .npz or a directory of .npy.
#ifndef MXLA_TOOLS_RUN_INPUTS_H_
#define MXLA_TOOLS_RUN_INPUTS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"
#include "ir/host_feed.h"
#include "ir/literal.h"
#include "runtime/npz.h"

namespace mxla::tools {

// The .npz files read so far, each read and unzipped once however many of
// its arrays the inputs name (a model's hundreds of parameters in one
// archive).
using NpzArchives = absl::flat_hash_map<std::string, NpzArchive>;

// A value read from a file (`label`: "--infeed x.npy") as the array of
// `shape` it stands for (`what`: "the infeed's data"), converted where the
// file holds what NumPy can write for it; else InvalidArgument saying how
// to make the right file.
absl::StatusOr<Literal> AsArrayOf(Literal literal, const Shape& shape,
                                  const std::string& label,
                                  const std::string& what);

// The array in PATH.npy, or in PATH.npz:NAME (NAME may be left out when
// the archive holds one array).
absl::StatusOr<Literal> ReadInputFile(const std::string& path,
                                      NpzArchives& archives);

// The --infeed files, one per infeed in the order they run; the outfeed
// values kept to print.
class FileHostFeed : public HostFeed {
 public:
  explicit FileHostFeed(const std::vector<std::string>& paths)
      : paths_(paths) {}

  absl::StatusOr<Literal> Infeed(const Shape& shape) override;
  absl::Status Outfeed(Literal value) override {
    written_.push_back(std::move(value));
    return absl::OkStatus();
  }
  const std::vector<Literal>& written() const { return written_; }
  // Before each run: only the last run's outfeeds are printed.
  void ClearOutfeeds() { written_.clear(); }
  bool has_infeed_files() const { return !paths_.empty(); }

 private:
  std::vector<std::string> paths_;
  size_t next_ = 0;
  NpzArchives archives_;
  std::vector<Literal> written_;
};

// One literal per parameter, in parameter order, from the --input flags:
// one per array parameter, one per array element of a tuple parameter.
absl::StatusOr<std::vector<Literal>> LoadInputs(
    const HloComputation& entry, const std::vector<std::string>& bindings);

// Writes the result to `path`: PATH.npz holds one array per leaf, DIR/ (or
// an existing directory) one .npy per leaf, both named by index path
// (runtime/npz.h); any other path is one .npy, for an array.
absl::Status WriteResult(const std::string& path, const Literal& result);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_RUN_INPUTS_H_
