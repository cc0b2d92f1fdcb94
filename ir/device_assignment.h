// Which device runs which copy of a program: XLA's DeviceAssignment, a
// replica × partition table of global device ids. A program compiled for
// R replicas and P partitions runs R·P times at once; copy (r, p) runs on
// device assignment(r, p), and replica-id / partition-id give it r and p.
#ifndef MXLA_IR_DEVICE_ASSIGNMENT_H_
#define MXLA_IR_DEVICE_ASSIGNMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mxla {

// A device's place in the table.
struct DeviceCoordinates {
  int64_t replica = 0;
  int64_t partition = 0;
  bool operator==(const DeviceCoordinates&) const = default;
};

class DeviceAssignment {
 public:
  // XLA's default placement (ComputationPlacer): partition-major, so
  // assignment(r, p) = p·R + r. Replicas and partitions must be ≥ 1.
  static DeviceAssignment Default(int64_t replicas, int64_t partitions);
  // An explicit table, `ids[r·partitions + p]` for (r, p): InvalidArgument
  // when a count is < 1, the table's size is not replicas·partitions, or
  // the ids are not a permutation of 0..replicas·partitions-1 (naming the
  // first id that is out of range or repeated).
  static absl::StatusOr<DeviceAssignment> Create(int64_t replicas,
                                                 int64_t partitions,
                                                 std::vector<int64_t> ids);

  int64_t replica_count() const { return replicas_; }
  int64_t partition_count() const { return partitions_; }
  int64_t device_count() const { return replicas_ * partitions_; }
  // The global id of copy (replica, partition); both in range (unchecked).
  int64_t operator()(int64_t replica, int64_t partition) const {
    return ids_[replica * partitions_ + partition];
  }
  // Where device `id` (in range, unchecked) sits in the table.
  DeviceCoordinates CoordinatesOf(int64_t id) const {
    return coordinates_[id];
  }
  // "{{0,2},{1,3}}": one list of partitions' devices per replica.
  std::string ToString() const;
  bool operator==(const DeviceAssignment& other) const {
    return replicas_ == other.replicas_ && partitions_ == other.partitions_ &&
           ids_ == other.ids_;
  }

 private:
  DeviceAssignment(int64_t replicas, int64_t partitions,
                   std::vector<int64_t> ids);

  int64_t replicas_;
  int64_t partitions_;
  std::vector<int64_t> ids_;
  std::vector<DeviceCoordinates> coordinates_;  // by device id
};

}  // namespace mxla

#endif  // MXLA_IR_DEVICE_ASSIGNMENT_H_
