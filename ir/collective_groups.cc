#include "ir/collective_groups.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {
namespace {

absl::Status OpError(const HloInstruction& op, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(op.opcode()), " '", op.name(), "': ", message));
}

std::string GroupText(const std::vector<int64_t>& group) {
  return absl::StrCat("{", absl::StrJoin(group, ","), "}");
}

// The groups as listed, or the one group of every id the mode spans.
IdGroups ListedOrAll(const IdGroups& groups, CollectiveGroupMode mode,
                     const DeviceAssignment& assignment) {
  if (!groups.empty()) return groups;
  const int64_t count = mode == CollectiveGroupMode::kCrossPartition
                            ? assignment.partition_count()
                            : assignment.replica_count();
  std::vector<int64_t> all(count);
  for (int64_t i = 0; i < count; ++i) all[i] = i;
  return {all};
}

// The count the mode's ids must stay below.
int64_t IdLimit(CollectiveGroupMode mode, const DeviceAssignment& a) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return a.replica_count();
    case CollectiveGroupMode::kCrossPartition:
      return a.partition_count();
    case CollectiveGroupMode::kFlattenedId:
      return a.device_count();
  }
  return 0;
}

absl::string_view IdKind(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossPartition:
      return "partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened device";
    default:
      return "replica";
  }
}

// One listed group as the groups of global device ids it makes.
void AppendDeviceGroups(const std::vector<int64_t>& ids,
                        CollectiveGroupMode mode, const DeviceAssignment& a,
                        std::vector<std::vector<int64_t>>& out) {
  const int64_t replicas = a.replica_count();
  const int64_t partitions = a.partition_count();
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t p = 0; p < partitions; ++p) {
        std::vector<int64_t>& group = out.emplace_back();
        for (int64_t r : ids) group.push_back(a(r, p));
      }
      return;
    case CollectiveGroupMode::kCrossPartition:
      for (int64_t r = 0; r < replicas; ++r) {
        std::vector<int64_t>& group = out.emplace_back();
        for (int64_t p : ids) group.push_back(a(r, p));
      }
      return;
    case CollectiveGroupMode::kCrossReplicaAndPartition: {
      std::vector<int64_t>& group = out.emplace_back();
      for (int64_t r : ids) {
        for (int64_t p = 0; p < partitions; ++p) group.push_back(a(r, p));
      }
      return;
    }
    case CollectiveGroupMode::kFlattenedId: {
      std::vector<int64_t>& group = out.emplace_back();
      for (int64_t id : ids) group.push_back(a(id / partitions, id % partitions));
      return;
    }
  }
}

}  // namespace

absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "?";
}

absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    bool has_channel_id, std::optional<bool> use_global_device_ids) {
  if (!has_channel_id) {
    if (use_global_device_ids.value_or(false)) {
      return absl::InvalidArgumentError(
          "invalid combination of has_channel_id and use_global_device_ids: "
          "use_global_device_ids=true needs a channel_id");
    }
    return CollectiveGroupMode::kCrossReplica;
  }
  if (!use_global_device_ids.has_value()) {
    return CollectiveGroupMode::kCrossPartition;
  }
  return *use_global_device_ids ? CollectiveGroupMode::kFlattenedId
                                : CollectiveGroupMode::kCrossReplicaAndPartition;
}

bool StoresUseGlobalDeviceIds(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const HloInstruction& collective) {
  const HloAttributes& attributes = collective.attributes();
  // XLA's all-reduce, all-gather and reduce-scatter classes hold a bool
  // that the parser sets to false when the text has none, so for them a
  // missing attribute is false (cross-replica-and-partition with a
  // channel_id), never "absent" (cross-partition).
  std::optional<bool> global;
  if (StoresUseGlobalDeviceIds(collective.opcode())) global = false;
  if (const auto* text =
          attributes.Get<std::string>(AttrId::kUseGlobalDeviceIds)) {
    if (*text != "true" && *text != "false") {
      return OpError(collective,
                     absl::StrCat("use_global_device_ids must be true or "
                                  "false; got ",
                                  *text));
    }
    global = *text == "true";
  }
  absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(
      attributes.Has(AttrId::kChannelId), global);
  if (!mode.ok()) return OpError(collective, std::string(mode.status().message()));
  return mode;
}

IdGroups ReplicaGroupsOf(const HloInstruction& collective) {
  const auto* flat =
      collective.attributes().Get<std::vector<int64_t>>(AttrId::kReplicaGroups);
  return flat == nullptr ? IdGroups{} : DecodeIdGroups(*flat);
}

absl::Status CheckReplicaGroups(const HloInstruction& collective,
                                const IdGroups& groups,
                                CollectiveGroupMode mode, bool uniform) {
  if (groups.empty()) {
    if (mode == CollectiveGroupMode::kFlattenedId) {
      return OpError(collective,
                     "replica groups must be specified in flattened-id mode");
    }
    return absl::OkStatus();
  }
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : groups) {
    if (group.empty()) {
      return OpError(collective, "an instruction cannot have an empty "
                                 "replica group");
    }
    for (int64_t id : group) {
      if (!seen.insert(id).second) {
        return OpError(collective,
                       absl::StrCat("replica ", id,
                                    " is repeated in the instruction's "
                                    "replica-groups ",
                                    IdGroupsToString(groups)));
      }
    }
  }
  for (int64_t i = 0; i < static_cast<int64_t>(seen.size()); ++i) {
    if (!seen.contains(i)) {
      return OpError(collective,
                     absl::StrCat("replica ", i,
                                  " is not named in the instruction's "
                                  "replica-groups ",
                                  IdGroupsToString(groups)));
    }
  }
  if (uniform) {
    for (const std::vector<int64_t>& group : groups) {
      if (group.size() != groups[0].size()) {
        return OpError(collective,
                       absl::StrCat("replica groups are expected to be of "
                                    "uniform size; ",
                                    GroupText(groups[0]), " has ",
                                    groups[0].size(), " ids and ",
                                    GroupText(group), " has ", group.size()));
      }
    }
  }
  return absl::OkStatus();
}

int64_t GroupSize(const IdGroups& groups, CollectiveGroupMode mode,
                  int64_t replicas, int64_t partitions) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return groups.empty() ? replicas : groups[0].size();
    case CollectiveGroupMode::kCrossPartition:
      return groups.empty() ? partitions : groups[0].size();
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return (groups.empty() ? replicas : groups[0].size()) * partitions;
    case CollectiveGroupMode::kFlattenedId:
      return groups.empty() ? 0 : groups[0].size();
  }
  return 0;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ParticipatingDeviceGroups(
    const HloInstruction& collective, const DeviceAssignment& assignment,
    const IdGroups& groups, CollectiveGroupMode mode) {
  if (groups.empty() && mode == CollectiveGroupMode::kFlattenedId) {
    return OpError(collective,
                   "replica groups must be specified in flattened-id mode");
  }
  const int64_t limit = IdLimit(mode, assignment);
  std::vector<std::vector<int64_t>> devices;
  for (const std::vector<int64_t>& ids :
       ListedOrAll(groups, mode, assignment)) {
    for (int64_t id : ids) {
      if (id < 0 || id >= limit) {
        return OpError(
            collective,
            absl::StrCat(IdKind(mode), " id ", id, " in replica group ",
                         GroupText(ids), " is outside [0, ", limit, ") (",
                         CollectiveGroupModeName(mode), " mode on ",
                         assignment.replica_count(), " replicas x ",
                         assignment.partition_count(), " partitions)"));
      }
    }
    AppendDeviceGroups(ids, mode, assignment, devices);
  }
  std::vector<bool> seen(assignment.device_count(), false);
  for (const std::vector<int64_t>& group : devices) {
    for (int64_t device : group) {
      if (seen[device]) {
        return OpError(collective,
                       absl::StrCat("device ", device,
                                    " is in two groups (", 
                                    CollectiveGroupModeName(mode),
                                    " mode, replica groups ",
                                    IdGroupsToString(groups), ")"));
      }
      seen[device] = true;
    }
  }
  return devices;
}

absl::StatusOr<DeviceGroup> GroupOfDevice(
    const HloInstruction& collective,
    const std::vector<std::vector<int64_t>>& groups, int64_t device) {
  for (const std::vector<int64_t>& group : groups) {
    auto at = std::find(group.begin(), group.end(), device);
    if (at != group.end()) return DeviceGroup{group, at - group.begin()};
  }
  return absl::NotFoundError(absl::StrCat(
      HloOpcodeString(collective.opcode()), " '", collective.name(),
      "': device ", device, " is in none of its groups"));
}

absl::StatusOr<PermutePeers> PermutePeersOf(const HloInstruction& permute,
                                            const DeviceAssignment& assignment,
                                            int64_t device) {
  const auto* flat = permute.attributes().Get<std::vector<int64_t>>(
      AttrId::kSourceTargetPairs);
  const IdGroups pairs = flat == nullptr ? IdGroups{} : DecodeIdGroups(*flat);
  const bool cross_partition = permute.attributes().Has(AttrId::kChannelId);
  const int64_t limit = cross_partition ? assignment.partition_count()
                                        : assignment.replica_count();
  const DeviceCoordinates at = assignment.CoordinatesOf(device);
  // The device of id `id` in this device's partition (or replica).
  auto device_of = [&](int64_t id) {
    return cross_partition ? assignment(at.replica, id)
                           : assignment(id, at.partition);
  };
  const int64_t own = cross_partition ? at.partition : at.replica;
  absl::flat_hash_set<int64_t> sources, targets;
  PermutePeers peers;
  for (const std::vector<int64_t>& pair : pairs) {
    if (pair.size() != 2) {
      return OpError(permute, absl::StrCat("each source_target_pair must have "
                                           "2 ids; got ",
                                           GroupText(pair)));
    }
    for (int64_t id : pair) {
      if (id < 0 || id >= limit) {
        return OpError(
            permute,
            absl::StrCat("source_target_pair ", GroupText(pair), " names ",
                         cross_partition ? "partition " : "replica ", id,
                         ", outside [0, ", limit, ")"));
      }
    }
    if (!sources.insert(pair[0]).second) {
      return OpError(permute, absl::StrCat("source ", pair[0],
                                           " appears more than once in "
                                           "source_target_pairs ",
                                           IdGroupsToString(pairs)));
    }
    if (!targets.insert(pair[1]).second) {
      return OpError(permute, absl::StrCat("target ", pair[1],
                                           " appears more than once in "
                                           "source_target_pairs ",
                                           IdGroupsToString(pairs)));
    }
    if (pair[1] == own) peers.source = device_of(pair[0]);
    if (pair[0] == own) peers.targets.push_back(device_of(pair[1]));
  }
  return peers;
}

}  // namespace mxla
