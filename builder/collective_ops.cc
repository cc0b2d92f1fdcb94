// XLA's collective op functions: the instruction XLA's builder records
// (all-gather's dimension times shard_count, reduce-scatter's divided by
// it, all-to-all along one dimension or in its tuple form,
// ragged-all-to-all of output's shape), checked by the collectives' shape
// rule (shape_rules::Collective): the groups as XLA's verifier checks
// them, and the group size against the shapes where the groups give it.
// Which devices take part is decided when the module runs.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/op_shape_rules.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

using builder_internal::LookedUp;
using builder_internal::LookUpAll;
using builder_internal::PickBuilder;
using builder_internal::RecordOp;

namespace {

struct CollectiveSpec {
  HloOpcode opcode = HloOpcode::kAllReduce;
  absl::string_view name = {};
  const XlaComputation* computation = nullptr;  // all-reduce, reduce-scatter
  std::vector<int64_t> dimensions = {};
  IdGroups replica_groups = {};
  IdGroups source_target_pairs = {};
  // The factor XLA's builder scales (all-gather) or divides
  // (reduce-scatter) the dimension by, or splits all-to-all's in: the
  // participants it expects.
  int64_t participants = 1;
  // A dimension that is only range-checked (all-to-all's concat dimension).
  std::optional<int64_t> checked_dimension = std::nullopt;
  // With use_global_device_ids, the group mode (ir/collective_groups.h).
  std::optional<int64_t> channel_id = std::nullopt;
  std::optional<bool> use_global_device_ids = std::nullopt;
};

XlaOp RecordCollective(XlaOp operand, const CollectiveSpec& spec,
                       SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  std::string attributes = absl::StrCat(
      "replica_groups=", IdGroupsToString(spec.replica_groups));
  if (spec.participants != 1) {
    absl::StrAppend(&attributes, ", participants=", spec.participants);
  }
  if (spec.channel_id.has_value()) {
    absl::StrAppend(&attributes, ", channel_id=", *spec.channel_id);
  }
  if (spec.use_global_device_ids.has_value()) {
    absl::StrAppend(&attributes, ", use_global_device_ids=",
                    *spec.use_global_device_ids ? "true" : "false");
  }
  return RecordOp(
      builder, spec.name, {operand}, attributes, location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        Shape declared = x->shape();
        std::vector<int64_t> checked = spec.dimensions;
        if (spec.checked_dimension.has_value()) {
          checked.push_back(*spec.checked_dimension);
        }
        for (int64_t d : checked) {
          if (!declared.IsArray() || d < 0 || d >= declared.rank()) {
            return absl::InvalidArgumentError(
                absl::StrCat(HloOpcodeString(spec.opcode), ": dimension ", d,
                             " is out of range for ", declared.ToString()));
          }
        }
        if (spec.participants < 1) {
          return absl::InvalidArgumentError(
              absl::StrCat(HloOpcodeString(spec.opcode),
                           ": the shard count must be at "
                           "least 1; got ",
                           spec.participants));
        }
        if (spec.opcode == HloOpcode::kAllToAll && spec.participants != 1 &&
            spec.checked_dimension != spec.dimensions[0]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "all-to-all: split_dimension ", spec.dimensions[0],
              " differs from concat_dimension ", *spec.checked_dimension,
              " with split_count ", spec.participants,
              "; mxla's builder records all-to-all only along one "
              "dimension (split and concatenate along the same one)"));
        }
        if (spec.opcode == HloOpcode::kAllToAll) {
          RETURN_IF_ERROR(ShapeInference::InferAllToAllShape(
                              declared, spec.dimensions[0], spec.dimensions[0],
                              spec.participants)
                              .status());
        } else if (spec.participants != 1) {
          // The shape XLA's builder gives: the dimension times (or, for
          // reduce-scatter, divided by) the shard count.
          std::vector<int64_t> dims(declared.dimensions().begin(),
                                    declared.dimensions().end());
          int64_t& size = dims[spec.dimensions[0]];
          if (spec.opcode == HloOpcode::kReduceScatter &&
              size % spec.participants != 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "reduce-scatter: operand ", declared.ToString(),
                ": scatter dimension ", spec.dimensions[0], " size ", size,
                " must be dividable by shard_count ", spec.participants, "."));
          }
          size = spec.opcode == HloOpcode::kReduceScatter
                     ? size / spec.participants
                     : size * spec.participants;
          declared = ShapeUtil::MakeShape(declared.element_type(), dims);
        }
        auto instruction =
            HloInstruction::CreateGeneric(spec.opcode, declared, {x});
        if (!spec.dimensions.empty()) {
          instruction->set_dimensions(spec.dimensions);
        }
        if (spec.opcode != HloOpcode::kCollectivePermute) {
          instruction->mutable_attributes().Set(
              AttrId::kReplicaGroups, EncodeIdGroups(spec.replica_groups));
        } else {
          instruction->mutable_attributes().Set(
              AttrId::kSourceTargetPairs,
              EncodeIdGroups(spec.source_target_pairs));
        }
        // Before the shape rule: they choose the mode it checks groups in.
        if (spec.channel_id.has_value()) {
          instruction->mutable_attributes().Set(AttrId::kChannelId,
                                                *spec.channel_id);
        }
        if (spec.use_global_device_ids.has_value()) {
          instruction->mutable_attributes().Set(
              AttrId::kUseGlobalDeviceIds,
              std::string(*spec.use_global_device_ids ? "true" : "false"));
        }
        if (spec.computation != nullptr) {
          instruction->set_called_computations(
              {builder->AddCalledComputation(*spec.computation)});
        }
        // The groups and the shard count, as the verifier checks them.
        ASSIGN_OR_RETURN(Shape shape, InferInstructionShape(*instruction,
                                                            HloForm::kBuilder));
        if (shape != declared) {
          return absl::InvalidArgumentError(absl::StrCat(
              HloOpcodeString(spec.opcode), ": the result would be ",
              declared.ToString(), " but its rule gives ", shape.ToString()));
        }
        return builder->AddInstruction(std::move(instruction), spec.name,
                                       location);
      });
}

}  // namespace

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                const IdGroups& replica_groups, SourceLocation location) {
  return AllReduce(operand, computation, replica_groups, std::nullopt,
                   std::nullopt, location);
}

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                const IdGroups& replica_groups,
                std::optional<int64_t> channel_id,
                std::optional<bool> use_global_device_ids,
                SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllReduce,
                           .name = "AllReduce",
                           .computation = &computation,
                           .replica_groups = replica_groups,
                           .channel_id = channel_id,
                           .use_global_device_ids = use_global_device_ids},
                          location);
}

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count, const IdGroups& replica_groups,
                SourceLocation location) {
  return AllGather(operand, all_gather_dimension, shard_count, replica_groups,
                   std::nullopt, std::nullopt, location);
}

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count, const IdGroups& replica_groups,
                std::optional<int64_t> channel_id,
                std::optional<bool> use_global_device_ids,
                SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllGather,
                           .name = "AllGather",
                           .dimensions = {all_gather_dimension},
                           .replica_groups = replica_groups,
                           .participants = shard_count,
                           .channel_id = channel_id,
                           .use_global_device_ids = use_global_device_ids},
                          location);
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const IdGroups& replica_groups, SourceLocation location) {
  return ReduceScatter(operand, computation, scatter_dimension, shard_count,
                       replica_groups, std::nullopt, std::nullopt, location);
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const IdGroups& replica_groups,
                    std::optional<int64_t> channel_id,
                    std::optional<bool> use_global_device_ids,
                    SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kReduceScatter,
                           .name = "ReduceScatter",
                           .computation = &computation,
                           .dimensions = {scatter_dimension},
                           .replica_groups = replica_groups,
                           .participants = shard_count,
                           .channel_id = channel_id,
                           .use_global_device_ids = use_global_device_ids},
                          location);
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension,
               int64_t concat_dimension, int64_t split_count,
               const IdGroups& replica_groups, SourceLocation location) {
  return AllToAll(operand, split_dimension, concat_dimension, split_count,
                  replica_groups, std::nullopt, location);
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension,
               int64_t concat_dimension, int64_t split_count,
               const IdGroups& replica_groups,
               std::optional<int64_t> channel_id, SourceLocation location) {
  // XLA's text keeps only the split dimension; both are range-checked.
  // Across several devices they must be one dimension here (XLA's builder
  // adds a reshape and a transpose otherwise).
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllToAll,
                           .name = "AllToAll",
                           .dimensions = {split_dimension},
                           .replica_groups = replica_groups,
                           .participants = split_count,
                           .checked_dimension = concat_dimension,
                           .channel_id = channel_id},
                          location);
}

XlaOp AllToAllTuple(absl::Span<const XlaOp> operands,
                    const IdGroups& replica_groups,
                    std::optional<int64_t> channel_id,
                    SourceLocation location) {
  XlaBuilder* builder =
      operands.empty() ? nullptr : PickBuilder({operands[0]});
  std::string attributes =
      absl::StrCat("replica_groups=", IdGroupsToString(replica_groups));
  if (channel_id.has_value()) {
    absl::StrAppend(&attributes, ", channel_id=", *channel_id);
  }
  return RecordOp(
      builder, "AllToAllTuple", operands, attributes, location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        std::vector<Shape> shapes;
        for (const Shape* shape : looked_up.shapes) shapes.push_back(*shape);
        auto instruction = HloInstruction::CreateGeneric(
            HloOpcode::kAllToAll, ShapeUtil::MakeTupleShape(shapes),
            looked_up.instructions);
        instruction->mutable_attributes().Set(AttrId::kReplicaGroups,
                                              EncodeIdGroups(replica_groups));
        if (channel_id.has_value()) {
          instruction->mutable_attributes().Set(AttrId::kChannelId,
                                                *channel_id);
        }
        // The groups, and one operand per member where they give it.
        RETURN_IF_ERROR(
            InferInstructionShape(*instruction, HloForm::kBuilder).status());
        return builder->AddInstruction(std::move(instruction),
                                       "AllToAllTuple", location);
      });
}

XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    SourceLocation location) {
  return CollectivePermute(operand, source_target_pairs, std::nullopt,
                           location);
}

XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    std::optional<int64_t> channel_id, SourceLocation location) {
  IdGroups pairs;
  for (const auto& [source, target] : source_target_pairs) {
    pairs.push_back({source, target});
  }
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kCollectivePermute,
                           .name = "CollectivePermute",
                           .source_target_pairs = pairs,
                           .channel_id = channel_id},
                          location);
}

XlaOp CollectiveBroadcast(XlaOp operand, const IdGroups& replica_groups,
                          SourceLocation location) {
  return CollectiveBroadcast(operand, replica_groups, std::nullopt, location);
}

XlaOp CollectiveBroadcast(XlaOp operand, const IdGroups& replica_groups,
                          std::optional<int64_t> channel_id,
                          SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kCollectiveBroadcast,
                           .name = "CollectiveBroadcast",
                           .replica_groups = replica_groups,
                           .channel_id = channel_id},
                          location);
}

XlaOp RaggedAllToAll(XlaOp input, XlaOp input_offsets, XlaOp send_sizes,
                     XlaOp output, XlaOp output_offsets, XlaOp recv_sizes,
                     const IdGroups& replica_groups, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({input, input_offsets, send_sizes, output,
                                     output_offsets, recv_sizes});
  const XlaOp arguments[] = {input,  input_offsets,  send_sizes,
                             output, output_offsets, recv_sizes};
  return RecordOp(
      builder, "RaggedAllToAll", arguments,
      absl::StrCat("replica_groups=", IdGroupsToString(replica_groups)),
      location, [&]() -> absl::StatusOr<XlaOp> {
        std::vector<HloInstruction*> operands;
        for (XlaOp op : {input, output, input_offsets, send_sizes,
                         output_offsets, recv_sizes}) {
          ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(op));
          operands.push_back(x);
        }
        auto instruction = HloInstruction::CreateGeneric(
            HloOpcode::kRaggedAllToAll, operands[1]->shape(), operands);
        instruction->mutable_attributes().Set(AttrId::kReplicaGroups,
                                              EncodeIdGroups(replica_groups));
        RETURN_IF_ERROR(
            InferInstructionShape(*instruction, HloForm::kBuilder).status());
        return builder->AddInstruction(std::move(instruction),
                                       "RaggedAllToAll", location);
      });
}

}  // namespace mxla
