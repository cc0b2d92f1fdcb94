#include "passes/lower_collectives.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/collective_groups.h"
#include "ir/device_assignment.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/op_spec.h"
#include "ir/replica_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/inplace_permute_lowering.h"

namespace mxla {
namespace {

// XLA's in-place collective-permute (or its start): four operands.
bool IsInPlacePermute(const HloInstruction& op) {
  return (op.opcode() == HloOpcode::kCollectivePermute ||
          op.opcode() == HloOpcode::kCollectivePermuteStart) &&
         op.operand_count() == 4;
}

class Lowering {
 public:
  Lowering(HloInstruction* collective, int64_t devices)
      : collective_(collective),
        computation_(*collective->parent()),
        devices_(devices) {}

  // What replaces the collective: plain HLO on one device, its synchronous
  // form on several; null when it stays.
  absl::StatusOr<HloInstruction*> Lower() {
    if (IsInPlacePermute(*collective_)) {
      return LowerInPlacePermute(collective_, devices_);
    }
    if (devices_ > 1) return Synchronous();
    const auto operands = collective_->operands();
    switch (collective_->opcode()) {
      case HloOpcode::kReplicaId:
      case HloOpcode::kPartitionId:
        return Add(HloInstruction::CreateConstant(
            LiteralUtil::CreateR0<uint32_t>(0)));
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllReduceStart:
      case HloOpcode::kAllGather:
      case HloOpcode::kReduceScatter:
      case HloOpcode::kAllToAll:
      case HloOpcode::kCollectiveBroadcast:
        return ShapedLike(collective_->shape(),
                          {operands.begin(), operands.end()});
      case HloOpcode::kAllReduceDone:
        return collective_->mutable_operand(0);
      case HloOpcode::kCollectivePermute:
        return Permuted();
      case HloOpcode::kAllGatherStart: {
        // XLA's (operand, result), or ((operands...), (results...)).
        const Shape& shape = collective_->shape();
        const std::vector<HloInstruction*> own(operands.begin(),
                                               operands.end());
        return Add(HloInstruction::CreateTuple(
            {ShapedLike(shape.tuple_shapes(0), own),
             ShapedLike(shape.tuple_shapes(1), own)}));
      }
      case HloOpcode::kCollectivePermuteStart: {
        const Shape& shape = collective_->shape();
        std::vector<HloInstruction*> elements = {
            collective_->mutable_operand(0)};
        ASSIGN_OR_RETURN(HloInstruction * permuted, Permuted());
        elements.push_back(permuted);
        for (int64_t i = 2; i < shape.tuple_shapes().size(); ++i) {
          elements.push_back(
              Add(HloInstruction::CreateConstant(Literal(shape.tuple_shapes(i)))));
        }
        return Add(HloInstruction::CreateTuple(elements));
      }
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
      case HloOpcode::kAsyncDone:
      case HloOpcode::kCallDone:
      case HloOpcode::kCopyDone:
        return Element(collective_->mutable_operand(0), 1);
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAddDependency:  // no side effects to order
        return collective_->mutable_operand(0);
      case HloOpcode::kAsyncStart:
      case HloOpcode::kCallStart:
      case HloOpcode::kCopyStart:
        return Start();
      default:
        return nullptr;
    }
  }

 private:
  // On several devices: a start and done pair as one synchronous
  // collective, the wrappers as on one device, the rest kept.
  absl::StatusOr<HloInstruction*> Synchronous() {
    const auto operands = collective_->operands();
    const std::vector<HloInstruction*> inputs(operands.begin(), operands.end());
    const Shape& shape = collective_->shape();
    switch (collective_->opcode()) {
      case HloOpcode::kAllReduceStart:
        return SameAs(HloOpcode::kAllReduce, shape, inputs);
      case HloOpcode::kAllGatherStart: {
        // XLA's (operand, result), or ((operands...), (results...)): the
        // results from one all-gather.
        HloInstruction* gathered =
            SameAs(HloOpcode::kAllGather, shape.tuple_shapes(1), inputs);
        return Add(HloInstruction::CreateTuple(
            {ShapedLike(shape.tuple_shapes(0), inputs), gathered}));
      }
      case HloOpcode::kCollectivePermuteStart: {
        std::vector<HloInstruction*> elements = {inputs[0]};
        elements.push_back(SameAs(HloOpcode::kCollectivePermute,
                                  inputs[0]->shape(), {inputs[0]}));
        for (int64_t i = 2; i < shape.tuple_shapes().size(); ++i) {
          elements.push_back(Add(
              HloInstruction::CreateConstant(Literal(shape.tuple_shapes(i)))));
        }
        return Add(HloInstruction::CreateTuple(elements));
      }
      case HloOpcode::kAllReduceDone:
        return collective_->mutable_operand(0);
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
      case HloOpcode::kAsyncDone:
      case HloOpcode::kCallDone:
      case HloOpcode::kCopyDone:
        return Element(collective_->mutable_operand(0), 1);
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAddDependency:
        return collective_->mutable_operand(0);
      case HloOpcode::kAsyncStart:
      case HloOpcode::kCallStart:
      case HloOpcode::kCopyStart:
        return Start();
      default:
        return nullptr;
    }
  }

  // The collective's attributes and computations on another opcode.
  HloInstruction* SameAs(HloOpcode opcode, const Shape& shape,
                         const std::vector<HloInstruction*>& operands) {
    auto copy = HloInstruction::CreateGeneric(opcode, shape, operands);
    copy->mutable_attributes() = collective_->attributes();
    copy->set_called_computations(collective_->called_computations());
    return Add(std::move(copy));
  }

  // (operands, value, context...): a call of the computation (or, for a
  // copy, the operand itself), then zeros for the context values.
  HloInstruction* Start() {
    const Shape& shape = collective_->shape();
    const auto operands = collective_->operands();
    std::vector<HloInstruction*> elements;
    if (collective_->opcode() == HloOpcode::kCopyStart) {
      elements = {operands[0], operands[0]};
    } else {
      elements.push_back(Add(HloInstruction::CreateTuple(
          std::vector<HloInstruction*>(operands.begin(), operands.end()))));
      auto call = HloInstruction::CreateGeneric(
          HloOpcode::kCall, shape.tuple_shapes(1),
          std::vector<HloInstruction*>(operands.begin(), operands.end()));
      call->set_called_computations({collective_->to_apply()});
      elements.push_back(Add(std::move(call)));
    }
    for (size_t i = 2; i < shape.tuple_shapes().size(); ++i) {
      elements.push_back(
          Add(HloInstruction::CreateConstant(Literal(shape.tuple_shapes(i)))));
    }
    return Add(HloInstruction::CreateTuple(elements));
  }

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    instruction->set_metadata(collective_->metadata());
    return computation_.AddInstruction(std::move(instruction));
  }
  // `values` as one value of `shape`: a tuple of them for a tuple (even of
  // one element: XLA's `(f32[8]) all-to-all(x)`), else the one value.
  HloInstruction* ShapedLike(const Shape& shape,
                             const std::vector<HloInstruction*>& values) {
    if (!shape.IsTuple() && values.size() == 1) return values[0];
    return Add(HloInstruction::CreateTuple(values));
  }
  HloInstruction* Element(HloInstruction* tuple, int64_t i) {
    return Add(HloInstruction::CreateGetTupleElement(
        tuple->shape().tuple_shapes(i), tuple, i));
  }
  // Device 0's value after the permute: a copy of its own operand if it
  // sends to itself ({0,0}, the only pair that verifies), else zeros.
  absl::StatusOr<HloInstruction*> Permuted() {
    HloInstruction* operand = collective_->mutable_operand(0);
    const auto* pairs = collective_->attributes().Get<std::vector<int64_t>>(
        AttrId::kSourceTargetPairs);
    if (pairs != nullptr && !DecodeIdGroups(*pairs).empty()) {
      return Add(HloInstruction::CreateUnary(operand->shape(), HloOpcode::kCopy,
                                             operand));
    }
    return Add(HloInstruction::CreateConstant(Literal(operand->shape())));
  }

  HloInstruction* collective_;
  HloComputation& computation_;
  int64_t devices_;
};

// The collective's groups on one device (a 1x1 assignment): every id past
// 0 is InvalidArgument naming the op, the id and the one device.
absl::Status CheckOneDevice(const HloInstruction& instruction) {
  static const DeviceAssignment* const kOneDevice =
      new DeviceAssignment(DeviceAssignment::Default(1, 1));
  const HloAttributes& attributes = instruction.attributes();
  absl::Status status;
  if (attributes.Has(AttrId::kSourceTargetPairs)) {
    status = PermutePeersOf(instruction, *kOneDevice, 0).status();
  } else if (GetOpSpec(instruction.opcode()).FindAttribute(
                 AttrId::kReplicaGroups) != nullptr) {
    ASSIGN_OR_RETURN(CollectiveGroupMode mode,
                     CollectiveGroupModeOf(instruction));
    status = ParticipatingDeviceGroups(instruction, *kOneDevice,
                                       ReplicaGroupsOf(instruction), mode)
                 .status();
  }
  if (status.ok()) return status;
  return absl::InvalidArgumentError(absl::StrCat(
      status.message(), "; this program is compiled for one device (one "
      "replica of one partition)"));
}

}  // namespace

absl::StatusOr<bool> LowerCollectivesPass::Run(HloModule& module) {
  const int64_t devices = module.replica_count() * module.num_partitions();
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (devices == 1) RETURN_IF_ERROR(CheckOneDevice(*instruction));
      ASSIGN_OR_RETURN(HloInstruction * lowered,
                       Lowering(instruction, devices).Lower());
      if (lowered == nullptr) continue;
      if (lowered->shape() != instruction->shape()) {
        // A group of one verifies whatever the shapes say (as in XLA).
        return absl::InvalidArgumentError(absl::StrCat(
            HloOpcodeString(instruction->opcode()), " '",
            instruction->name(), "': its groups have one device here, but "
            "the result ", instruction->shape().ToString(),
            " is not what one device makes of its operands: ",
            lowered->shape().ToString(), "; this program is compiled for "
            "one device (one replica of one partition)"));
      }
      computation->ReplaceInstruction(instruction, lowered);
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
