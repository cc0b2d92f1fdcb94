// XLA's collective op functions. mxla runs one device, so a collective
// records only where each replica group has one participant (shard and
// split counts of 1, source_target_pairs {0,0}); otherwise the builder
// keeps ShapeInference's error naming what the op needs.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

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
  // The factor XLA's builder scales (all-gather, all-to-all) or divides
  // (reduce-scatter) the dimension by: the participants it expects.
  int64_t participants = 1;
  // A dimension that is only range-checked (all-to-all's concat dimension).
  std::optional<int64_t> checked_dimension = std::nullopt;
};

XlaOp RecordCollective(XlaOp operand, const CollectiveSpec& spec,
                       SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  std::string attributes = absl::StrCat(
      "replica_groups=", IdGroupsToString(spec.replica_groups));
  if (spec.participants != 1) {
    absl::StrAppend(&attributes, ", participants=", spec.participants);
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
            return absl::InvalidArgumentError(absl::StrCat(
                HloOpcodeString(spec.opcode), ": dimension ", d,
                " is out of range for ", declared.ToString()));
          }
        }
        if (spec.participants != 1 && !spec.dimensions.empty()) {
          // The shape XLA's builder gives: the dimension times (or, for
          // reduce-scatter, divided by) the participant count.
          std::vector<int64_t> dims(declared.dimensions().begin(),
                                    declared.dimensions().end());
          int64_t& size = dims[spec.dimensions[0]];
          size = spec.opcode == HloOpcode::kReduceScatter
                     ? size / std::max<int64_t>(spec.participants, 1)
                     : size * spec.participants;
          declared = ShapeUtil::MakeShape(declared.element_type(), dims);
        }
        IdGroups groups = spec.replica_groups;
        if (spec.participants > 1 && groups.empty()) {
          groups.emplace_back();
          for (int64_t i = 0; i < spec.participants; ++i) {
            groups.back().push_back(i);
          }
        }
        const Shape* operands[] = {&x->shape()};
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferSingleDeviceCollectiveShape(
                             spec.opcode, operands, groups,
                             spec.source_target_pairs, declared));
        auto instruction =
            HloInstruction::CreateGeneric(spec.opcode, shape, {x});
        if (!spec.dimensions.empty()) {
          instruction->set_dimensions(spec.dimensions);
        }
        if (spec.opcode != HloOpcode::kCollectivePermute) {
          instruction->mutable_attributes().Set(AttrId::kReplicaGroups,
                                                EncodeIdGroups(groups));
        } else {
          instruction->mutable_attributes().Set(
              AttrId::kSourceTargetPairs,
              EncodeIdGroups(spec.source_target_pairs));
        }
        if (spec.computation != nullptr) {
          instruction->set_called_computations(
              {builder->AddCalledComputation(*spec.computation)});
        }
        return builder->AddInstruction(std::move(instruction), spec.name,
                                       location);
      });
}

}  // namespace

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                const IdGroups& replica_groups, SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllReduce,
                           .name = "AllReduce",
                           .computation = &computation,
                           .replica_groups = replica_groups},
                          location);
}

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count, const IdGroups& replica_groups,
                SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllGather,
                           .name = "AllGather",
                           .dimensions = {all_gather_dimension},
                           .replica_groups = replica_groups,
                           .participants = shard_count},
                          location);
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const IdGroups& replica_groups, SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kReduceScatter,
                           .name = "ReduceScatter",
                           .computation = &computation,
                           .dimensions = {scatter_dimension},
                           .replica_groups = replica_groups,
                           .participants = shard_count},
                          location);
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension,
               int64_t concat_dimension, int64_t split_count,
               const IdGroups& replica_groups, SourceLocation location) {
  // With one participant the split and the concatenation are the identity
  // (XLA's text keeps only the split dimension; both are range-checked).
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kAllToAll,
                           .name = "AllToAll",
                           .dimensions = {split_dimension},
                           .replica_groups = replica_groups,
                           .participants = split_count,
                           .checked_dimension = concat_dimension},
                          location);
}

XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    SourceLocation location) {
  IdGroups pairs;
  for (const auto& [source, target] : source_target_pairs) {
    pairs.push_back({source, target});
  }
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kCollectivePermute,
                           .name = "CollectivePermute",
                           .source_target_pairs = pairs},
                          location);
}

XlaOp CollectiveBroadcast(XlaOp operand, const IdGroups& replica_groups,
                          SourceLocation location) {
  return RecordCollective(operand,
                          {.opcode = HloOpcode::kCollectiveBroadcast,
                           .name = "CollectiveBroadcast",
                           .replica_groups = replica_groups},
                          location);
}

}  // namespace mxla
