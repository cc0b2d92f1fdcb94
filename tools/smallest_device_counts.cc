#include "tools/smallest_device_counts.h"

#include <algorithm>
#include <vector>

#include "ir/collective_groups.h"
#include "ir/hlo_attribute.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/replica_groups.h"

namespace mxla::tools {
namespace {

// One more than the largest id in `groups` (0 for none).
int64_t IdsNamed(const IdGroups& groups) {
  int64_t most = 0;
  for (const std::vector<int64_t>& group : groups) {
    for (int64_t id : group) most = std::max(most, id + 1);
  }
  return most;
}

// What one collective needs, added to `needed` (flattened ids apart, since
// they bound the product).
void AddNeeds(const HloInstruction& instruction, DeviceCountsNeeded& needed,
              int64_t& flattened) {
  const auto* pairs = instruction.attributes().Get<std::vector<int64_t>>(
      AttrId::kSourceTargetPairs);
  if (pairs != nullptr) {
    const int64_t ids = IdsNamed(DecodeIdGroups(*pairs));
    int64_t& count = instruction.attributes().Has(AttrId::kChannelId)
                         ? needed.partitions
                         : needed.replicas;
    count = std::max(count, ids);
    return;
  }
  if (!instruction.attributes().Has(AttrId::kReplicaGroups)) return;
  absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(instruction);
  if (!mode.ok()) return;
  const int64_t ids = IdsNamed(ReplicaGroupsOf(instruction));
  switch (*mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      needed.replicas = std::max(needed.replicas, ids);
      break;
    case CollectiveGroupMode::kCrossPartition:
      needed.partitions = std::max(needed.partitions, ids);
      break;
    case CollectiveGroupMode::kFlattenedId:
      flattened = std::max(flattened, ids);
      break;
  }
}

}  // namespace

DeviceCountsNeeded SmallestDeviceCounts(const HloModule& module) {
  if (module.replica_count() > 1 || module.num_partitions() > 1) {
    return {module.replica_count(), module.num_partitions()};
  }
  DeviceCountsNeeded needed;
  int64_t flattened = 1;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      AddNeeds(*instruction, needed, flattened);
    }
  }
  if (needed.devices() < flattened) {
    needed.replicas = (flattened + needed.partitions - 1) / needed.partitions;
  }
  return needed;
}

}  // namespace mxla::tools
