#include "passes/inplace_permute_lowering.h"

#include <memory>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/replica_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

class InPlaceLowering {
 public:
  InPlaceLowering(HloInstruction* permute, int64_t devices)
      : permute_(permute), computation_(*permute->parent()),
        devices_(devices) {}

  absl::StatusOr<HloInstruction*> Lower() {
    const auto* sizes_attribute =
        permute_->attributes().Get<std::vector<int64_t>>(
            AttrId::kPermuteSliceSizes);
    const auto* pairs_attribute =
        permute_->attributes().Get<std::vector<int64_t>>(
            AttrId::kSourceTargetPairs);
    RET_CHECK(sizes_attribute != nullptr && pairs_attribute != nullptr &&
                  permute_->operand_count() == 4,
              permute_->name());
    const IdGroups sizes = DecodeIdGroups(*sizes_attribute);
    pairs_ = DecodeIdGroups(*pairs_attribute);
    HloInstruction* input = permute_->mutable_operand(0);
    const bool tuple = input->shape().IsTuple();
    const int64_t count = tuple ? input->shape().tuple_shapes().size() : 1;
    RET_CHECK(static_cast<int64_t>(sizes.size()) == count, permute_->name());
    std::vector<HloInstruction*> results;
    for (int64_t b = 0; b < count; ++b) {
      std::vector<HloInstruction*> operands;
      for (int64_t i = 0; i < 4; ++i) {
        HloInstruction* operand = permute_->mutable_operand(i);
        operands.push_back(tuple ? Element(operand, b) : operand);
      }
      results.push_back(Buffer(operands, sizes[b]));
    }
    HloInstruction* result =
        tuple ? Add(HloInstruction::CreateTuple(results)) : results[0];
    if (permute_->opcode() != HloOpcode::kCollectivePermuteStart) {
      return result;
    }
    const Shape& shape = permute_->shape();
    std::vector<HloInstruction*> elements = {input, result};
    for (size_t i = 2; i < shape.tuple_shapes().size(); ++i) {
      elements.push_back(
          Add(HloInstruction::CreateConstant(Literal(shape.tuple_shapes(i)))));
    }
    return Add(HloInstruction::CreateTuple(elements));
  }

 private:
  // One buffer: (input, output, input offsets, output offsets).
  HloInstruction* Buffer(const std::vector<HloInstruction*>& operands,
                         const std::vector<int64_t>& sizes) {
    HloInstruction* output = operands[1];
    const Shape slice_shape =
        ShapeUtil::MakeShape(output->shape().element_type(), sizes);
    std::vector<HloInstruction*> slice_operands = {operands[0]};
    for (HloInstruction* start : Starts(operands[2])) {
      slice_operands.push_back(start);
    }
    auto slice = HloInstruction::CreateGeneric(HloOpcode::kDynamicSlice,
                                               slice_shape, slice_operands);
    slice->set_dynamic_slice_sizes(sizes);
    HloInstruction* moved = Add(std::move(slice));
    if (devices_ > 1) {
      auto permuted = HloInstruction::CreateGeneric(
          HloOpcode::kCollectivePermute, slice_shape, {moved});
      permuted->mutable_attributes() = permute_->attributes();
      permuted->mutable_attributes().Erase(AttrId::kPermuteSliceSizes);
      moved = Add(std::move(permuted));
    } else if (pairs_.empty()) {
      return output;  // device 0 receives nothing
    }
    std::vector<HloInstruction*> update_operands = {output, moved};
    for (HloInstruction* start : Starts(operands[3])) {
      update_operands.push_back(start);
    }
    HloInstruction* written = Add(HloInstruction::CreateGeneric(
        HloOpcode::kDynamicUpdateSlice, output->shape(), update_operands));
    if (devices_ == 1) return written;
    return Add(HloInstruction::CreateSelect(
        output->shape(),
        Add(HloInstruction::CreateBroadcast(
            ShapeUtil::ChangeElementType(output->shape(), PrimitiveType::PRED),
            IsTarget(), {})),
        written, output));
  }

  // pred[]: whether this device is a target, from a table over the ids of
  // the permute's mode (partition ids with a channel_id, else replica ids).
  HloInstruction* IsTarget() {
    if (is_target_ != nullptr) return is_target_;
    const bool partitions = permute_->attributes().Has(AttrId::kChannelId);
    const HloModule& module = *computation_.parent();
    const int64_t ids =
        partitions ? module.num_partitions() : module.replica_count();
    Literal table(ShapeUtil::MakeShape(PrimitiveType::PRED, {ids}));
    for (const std::vector<int64_t>& pair : pairs_) {
      if (pair.size() == 2 && pair[1] >= 0 && pair[1] < ids) {
        table.data<bool>()[pair[1]] = true;
      }
    }
    HloInstruction* id = Add(HloInstruction::CreateGeneric(
        partitions ? HloOpcode::kPartitionId : HloOpcode::kReplicaId,
        ShapeUtil::MakeScalarShape(PrimitiveType::U32), {}));
    auto entry = HloInstruction::CreateGeneric(
        HloOpcode::kDynamicSlice, ShapeUtil::MakeShape(PrimitiveType::PRED, {1}),
        {Add(HloInstruction::CreateConstant(std::move(table))), id});
    entry->set_dynamic_slice_sizes({1});
    is_target_ = Add(HloInstruction::CreateReshape(
        ShapeUtil::MakeScalarShape(PrimitiveType::PRED), Add(std::move(entry))));
    return is_target_;
  }

  std::vector<HloInstruction*> Starts(HloInstruction* offsets) {
    std::vector<HloInstruction*> starts;
    for (size_t d = 0; d < offsets->shape().tuple_shapes().size(); ++d) {
      starts.push_back(Element(offsets, d));
    }
    return starts;
  }
  HloInstruction* Element(HloInstruction* tuple, int64_t i) {
    return Add(HloInstruction::CreateGetTupleElement(
        tuple->shape().tuple_shapes(i), tuple, i));
  }
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    instruction->set_metadata(permute_->metadata());
    return computation_.AddInstruction(std::move(instruction));
  }

  HloInstruction* permute_;
  HloComputation& computation_;
  int64_t devices_;
  IdGroups pairs_;
  HloInstruction* is_target_ = nullptr;
};

}  // namespace

absl::StatusOr<HloInstruction*> LowerInPlacePermute(HloInstruction* permute,
                                                    int64_t devices) {
  return InPlaceLowering(permute, devices).Lower();
}

}  // namespace mxla
