#include "ir/device_assignment.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {

DeviceAssignment::DeviceAssignment(int64_t replicas, int64_t partitions,
                                   std::vector<int64_t> ids)
    : replicas_(replicas), partitions_(partitions), ids_(std::move(ids)) {
  coordinates_.resize(ids_.size());
  for (int64_t r = 0; r < replicas_; ++r) {
    for (int64_t p = 0; p < partitions_; ++p) {
      coordinates_[(*this)(r, p)] = {r, p};
    }
  }
}

DeviceAssignment DeviceAssignment::Default(int64_t replicas,
                                           int64_t partitions) {
  std::vector<int64_t> ids(replicas * partitions);
  for (int64_t r = 0; r < replicas; ++r) {
    for (int64_t p = 0; p < partitions; ++p) {
      ids[r * partitions + p] = p * replicas + r;
    }
  }
  return DeviceAssignment(replicas, partitions, std::move(ids));
}

absl::StatusOr<DeviceAssignment> DeviceAssignment::Create(
    int64_t replicas, int64_t partitions, std::vector<int64_t> ids) {
  if (replicas < 1 || partitions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("device assignment: replicas (", replicas,
                     ") and partitions (", partitions, ") must be at least 1"));
  }
  const int64_t count = replicas * partitions;
  if (static_cast<int64_t>(ids.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device assignment: ", replicas, " replicas x ", partitions,
        " partitions need ", count, " device ids; got ", ids.size()));
  }
  std::vector<bool> seen(count, false);
  for (int64_t id : ids) {
    if (id < 0 || id >= count) {
      return absl::InvalidArgumentError(
          absl::StrCat("device assignment: device id ", id,
                       " is outside [0, ", count, ")"));
    }
    if (seen[id]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device assignment: device id ", id, " is assigned twice"));
    }
    seen[id] = true;
  }
  return DeviceAssignment(replicas, partitions, std::move(ids));
}

std::string DeviceAssignment::ToString() const {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < replicas_; ++r) {
    std::vector<int64_t> row(ids_.begin() + r * partitions_,
                             ids_.begin() + (r + 1) * partitions_);
    rows.push_back(absl::StrCat("{", absl::StrJoin(row, ","), "}"));
  }
  return absl::StrCat("{", absl::StrJoin(rows, ","), "}");
}

}  // namespace mxla
