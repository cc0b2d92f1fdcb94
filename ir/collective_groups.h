// Which devices a collective joins: XLA's group modes and its
// GetParticipatingDevicesGroups, on the ids of ir/replica_groups.h and a
// DeviceAssignment. The interpreter, the JIT's runtime and the verifier all
// read groups through here, so that one definition decides them.
//
// The mode follows from channel_id and use_global_device_ids (XLA's
// GetCollectiveOpGroupMode):
//   no channel_id                          cross-replica: ids are replica
//                                          ids, one group per partition;
//   channel_id, no use_global_device_ids   cross-partition: ids are
//                                          partition ids, one per replica;
//   channel_id, use_global_device_ids=false
//                                          cross-replica-and-partition:
//                                          replica ids, every partition of
//                                          them in one group;
//   channel_id, use_global_device_ids=true flattened ids: r·P + p.
// all-reduce(-start), all-gather(-start) and reduce-scatter always have
// use_global_device_ids (XLA stores a bool, false when the text omits
// it): with a channel_id they are cross-replica-and-partition or
// flattened, never cross-partition. The other collectives (all-to-all,
// ragged-all-to-all, collective-broadcast, collective-permute) have none:
// with a channel_id they are cross-partition.
// Empty replica_groups mean one group of every replica (every partition in
// cross-partition mode); flattened-id mode cannot have them.
#ifndef MXLA_IR_COLLECTIVE_GROUPS_H_
#define MXLA_IR_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/device_assignment.h"
#include "ir/hlo_instruction.h"
#include "ir/replica_groups.h"

namespace mxla {

enum class CollectiveGroupMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId,
};

// "cross-replica", "cross-partition", "cross-replica-and-partition",
// "flattened-id".
absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode);

// The mode of a collective with or without a channel_id and with
// use_global_device_ids absent, true or false: InvalidArgument (as XLA)
// for use_global_device_ids=true without a channel_id.
absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    bool has_channel_id, std::optional<bool> use_global_device_ids);
// Whether `opcode` holds use_global_device_ids as a bool (false when the
// text omits it): all-reduce(-start), all-gather(-start), reduce-scatter.
bool StoresUseGlobalDeviceIds(HloOpcode opcode);
// The mode of a collective instruction: its channel_id, and its
// use_global_device_ids (or false) where StoresUseGlobalDeviceIds.
absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const HloInstruction& collective);

// The instruction's replica_groups (empty when it has none).
IdGroups ReplicaGroupsOf(const HloInstruction& collective);

// The structural checks XLA's verifier makes of replica_groups, which need
// no device counts: no empty group, no id twice, the ids are 0..n-1, and,
// when `uniform` (every collective but all-reduce), every group the same
// size; flattened-id mode needs groups. InvalidArgument naming the op and
// the id.
absl::Status CheckReplicaGroups(const HloInstruction& collective,
                                const IdGroups& groups,
                                CollectiveGroupMode mode, bool uniform);

// How many devices each group has when the module runs on `replicas` ×
// `partitions` devices (XLA's GetSubgroupSize): the first group's size, or
// for empty groups the replica or partition count the mode spans.
int64_t GroupSize(const IdGroups& groups, CollectiveGroupMode mode,
                  int64_t replicas, int64_t partitions);

// Every group of global device ids the collective forms on `assignment`,
// each in the order its ids are listed (a device's rank is its position).
// InvalidArgument, naming the op, when an id is out of range for the
// mode's count (replica ids < R, partition ids < P, flattened ids < R·P),
// or when a device ends up in two groups.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParticipatingDeviceGroups(
    const HloInstruction& collective, const DeviceAssignment& assignment,
    const IdGroups& groups, CollectiveGroupMode mode);

// The group holding `device` and the device's rank in it, or NotFound
// naming the op and the device when it is in none (a device outside every
// group takes no part: XLA refuses that too).
struct DeviceGroup {
  std::vector<int64_t> devices;
  int64_t rank = 0;
};
absl::StatusOr<DeviceGroup> GroupOfDevice(
    const HloInstruction& collective,
    const std::vector<std::vector<int64_t>>& groups, int64_t device);

// A collective-permute's peers for `device`: the device that sends to it
// (none: it receives zeros) and the devices it sends to. The pairs hold
// replica ids (no channel_id: within the device's partition) or partition
// ids (channel_id: within its replica). InvalidArgument naming the op when
// an id is negative or out of range, or a source or a target appears twice.
struct PermutePeers {
  std::optional<int64_t> source;
  std::vector<int64_t> targets;
};
absl::StatusOr<PermutePeers> PermutePeersOf(const HloInstruction& permute,
                                            const DeviceAssignment& assignment,
                                            int64_t device);

}  // namespace mxla

#endif  // MXLA_IR_COLLECTIVE_GROUPS_H_
