#include "runtime/device_steps.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/collective_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "runtime/collective_ops.h"
#include "runtime/in_process_communicator.h"
#include "runtime/ragged_all_to_all.h"

namespace mxla {
namespace {

using DeviceStep = JitExecutable::Program::DeviceStep;

// Operand and result leaves as arrays over the step's buffers.
class StepArrays {
 public:
  StepArrays(const HloInstruction& instruction,
             absl::Span<void* const> buffers) {
    int64_t next = 0;
    for (const HloInstruction* operand : instruction.operands()) {
      Add(operand->shape(), buffers, next, operands_);
    }
    Add(instruction.shape(), buffers, next, results_);
  }
  const std::vector<ArrayBytes>& operands() const { return operands_; }
  const std::vector<ArrayBytes>& results() const { return results_; }

 private:
  static void Add(const Shape& shape, absl::Span<void* const> buffers,
                  int64_t& next, std::vector<ArrayBytes>& out) {
    ForEachArrayLeaf(shape, [&](const Shape& leaf) {
      out.push_back({static_cast<char*>(buffers[next++]), leaf.dimensions(),
                     primitive_util::ByteWidth(leaf.element_type())});
    });
  }
  std::vector<ArrayBytes> operands_;
  std::vector<ArrayBytes> results_;
};

ConstBytes Whole(const ArrayBytes& array) {
  return ConstBytes(array.data, array.size());
}
MutableBytes WholeMutable(const ArrayBytes& array) {
  return MutableBytes(array.data, array.size());
}

// The dimension an all-gather, reduce-scatter or array all-to-all works
// along.
int64_t FirstDimension(const HloInstruction& instruction) {
  const auto* dims =
      instruction.attributes().Get<std::vector<int64_t>>(AttrId::kDimensions);
  return dims == nullptr || dims->empty() ? -1 : (*dims)[0];
}

absl::Status RunGrouped(const DeviceStep& step, const StepArrays& arrays,
                        const RunDevice& device) {
  const HloInstruction& op = *step.instruction;
  ASSIGN_OR_RETURN(CollectiveGroupMode mode, CollectiveGroupModeOf(op));
  ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                   ParticipatingDeviceGroups(op, *device.assignment,
                                             ReplicaGroupsOf(op), mode));
  ASSIGN_OR_RETURN(DeviceGroup group,
                   GroupOfDevice(op, groups, device.device_id()));
  const CollectiveCall call{op.name(), group.devices, group.rank};
  Communicator& communicator = *device.communicator;
  const std::vector<ArrayBytes>& in = arrays.operands();
  const std::vector<ArrayBytes>& out = arrays.results();
  const int64_t dimension = FirstDimension(op);
  switch (op.opcode()) {
    case HloOpcode::kAllReduce:
      for (size_t i = 0; i < in.size(); ++i) {
        RETURN_IF_ERROR(communicator.AllReduce(call, Whole(in[i]),
                                               WholeMutable(out[i]),
                                               step.combiners[i]));
      }
      return absl::OkStatus();
    case HloOpcode::kReduceScatter:
      for (size_t i = 0; i < in.size(); ++i) {
        RETURN_IF_ERROR(ReduceScatterAlong(communicator, call, in[i],
                                           dimension, step.combiners[i],
                                           out[i]));
      }
      return absl::OkStatus();
    case HloOpcode::kAllGather:
      for (size_t i = 0; i < in.size(); ++i) {
        RETURN_IF_ERROR(
            GatherAlong(communicator, call, in[i], dimension, out[i]));
      }
      return absl::OkStatus();
    case HloOpcode::kAllToAll: {
      if (dimension >= 0) {
        return AllToAllAlong(communicator, call, in[0], dimension, dimension,
                             out[0]);
      }
      // The tuple form: operand k goes to rank k, result j is rank j's.
      std::vector<ConstBytes> send;
      std::vector<MutableBytes> recv;
      for (const ArrayBytes& array : in) send.push_back(Whole(array));
      for (const ArrayBytes& array : out) recv.push_back(WholeMutable(array));
      if (send.size() != call.group.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            op.name(), ": a tuple all-to-all of ", send.size(),
            " operands in a group of ", call.group.size(), " devices"));
      }
      return communicator.AllToAll(call, send, recv);
    }
    case HloOpcode::kRaggedAllToAll:
      return RaggedAllToAll(communicator, call, HloOpcodeString(op.opcode()),
                            {in[0], in[1], in[2], in[3], in[4], in[5],
                             out[0]});
    case HloOpcode::kCollectiveBroadcast:
      return BroadcastFromFirst(communicator, call, in[0], out[0]);
    default:
      return absl::InternalError(
          absl::StrCat(op.name(), " is not a grouped collective"));
  }
}

absl::Status RunPermute(const HloInstruction& op, const StepArrays& arrays,
                        const RunDevice& device) {
  ASSIGN_OR_RETURN(PermutePeers peers,
                   PermutePeersOf(op, *device.assignment, device.device_id()));
  const ArrayBytes& result = arrays.results()[0];
  // A device no pair sends to receives zeros.
  if (!peers.source.has_value()) std::memset(result.data, 0, result.size());
  return device.communicator->Permute(op.name(), Whole(arrays.operands()[0]),
                                      peers.targets, peers.source,
                                      WholeMutable(result));
}

}  // namespace

absl::Status RunDeviceStep(const DeviceStep& step,
                           absl::Span<void* const> buffers,
                           const RunDevice* device) {
  const HloInstruction& op = *step.instruction;
  // A run without a device is device 0 of one.
  std::unique_ptr<InProcessCommunicator> alone;
  static const DeviceAssignment* const kOne =
      new DeviceAssignment(DeviceAssignment::Default(1, 1));
  RunDevice single;
  if (device == nullptr) {
    alone = std::make_unique<InProcessCommunicator>(
        std::make_shared<InProcessRendezvous>(1, absl::Seconds(1)), 0);
    single = {0, 0, kOne, alone.get()};
    device = &single;
  }
  const StepArrays arrays(op, buffers);
  switch (op.opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      const uint32_t id = static_cast<uint32_t>(
          op.opcode() == HloOpcode::kReplicaId ? device->replica
                                               : device->partition);
      std::memcpy(arrays.results()[0].data, &id, sizeof(id));
      return absl::OkStatus();
    }
    case HloOpcode::kCollectivePermute:
      return RunPermute(op, arrays, *device);
    default:
      return RunGrouped(step, arrays, *device);
  }
}

}  // namespace mxla
