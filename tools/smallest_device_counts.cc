#include "tools/smallest_device_counts.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ir/collective_groups.h"
#include "ir/hlo_attribute.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/op_spec.h"
#include "ir/replica_groups.h"
#include "ir/shape.h"

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

// The array an all-gather(-start) or reduce-scatter makes of its first
// operand (XLA's forms: the result, a tuple of results, an all-gather-
// start's (operand, result) or ((operands), (results))), if there is one.
const Shape* GatheredOrScattered(const HloInstruction& instruction) {
  const Shape* shape = &instruction.shape();
  switch (instruction.opcode()) {
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
      break;
    case HloOpcode::kAllGatherStart:
      if (!shape->IsTuple() || shape->tuple_shapes().size() != 2) {
        return nullptr;
      }
      shape = &shape->tuple_shapes(1);
      break;
    default:
      return nullptr;
  }
  if (shape->IsTuple() && !shape->tuple_shapes().empty()) {
    shape = &shape->tuple_shapes(0);
  }
  return shape->IsArray() ? shape : nullptr;
}

// The group size an all-gather's or reduce-scatter's shapes imply (the
// ratio of its result's and operand's sizes along its dimension), or 1.
int64_t GroupSizeOfShapes(const HloInstruction& instruction) {
  const Shape* made = GatheredOrScattered(instruction);
  const auto* dims =
      instruction.attributes().Get<std::vector<int64_t>>(AttrId::kDimensions);
  if (made == nullptr || dims == nullptr || dims->size() != 1 ||
      instruction.operand_count() < 1 ||
      !instruction.operand(0)->shape().IsArray()) {
    return 1;
  }
  const Shape& operand = instruction.operand(0)->shape();
  const int64_t d = (*dims)[0];
  if (d < 0 || d >= operand.rank() || d >= made->rank()) return 1;
  int64_t small = operand.dimensions(d), large = made->dimensions(d);
  if (instruction.opcode() == HloOpcode::kReduceScatter) {
    std::swap(small, large);
  }
  return small > 0 && large % small == 0 ? large / small : 1;
}

// What one collective needs, added to `needed` (flattened ids apart, since
// they bound the product). Empty groups span a whole count, which the
// shapes of an all-gather or reduce-scatter tell.
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
  // An op that takes groups and has none: empty groups.
  if (GetOpSpec(instruction.opcode()).FindAttribute(AttrId::kReplicaGroups) ==
      nullptr) {
    return;
  }
  absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(instruction);
  if (!mode.ok()) return;
  const IdGroups groups = ReplicaGroupsOf(instruction);
  const int64_t ids =
      groups.empty() ? GroupSizeOfShapes(instruction) : IdsNamed(groups);
  switch (*mode) {
    case CollectiveGroupMode::kCrossReplica:
      needed.replicas = std::max(needed.replicas, ids);
      break;
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      // Empty groups: every device of every partition in one group.
      if (groups.empty()) {
        flattened = std::max(flattened, ids);
      } else {
        needed.replicas = std::max(needed.replicas, ids);
        // Each group is its listed replicas times every partition: an
        // all-gather's or reduce-scatter's shapes give the partitions.
        const int64_t shards = GroupSizeOfShapes(instruction);
        const int64_t listed = groups[0].size();
        if (shards % listed == 0) {
          needed.partitions = std::max(needed.partitions, shards / listed);
        }
      }
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
  DeviceCountsNeeded needed{module.replica_count(), module.num_partitions()};
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
