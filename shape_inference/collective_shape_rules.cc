// The collectives' shape rule: XLA's verifier (hlo_verifier.cc). The
// groups are checked as XLA checks them (ir/collective_groups.h, and the
// count of ids against the module's replica_count/num_partitions when the
// module says them), then the group size, where it can be known from the
// groups and the module's counts, must agree with the shapes: an
// all-gather's result dimension is the operand's times the group size, a
// reduce-scatter's the operand's divided by it, an all-to-all's split
// dimension divides by it and its tuple form has one operand per member,
// and a ragged-all-to-all's offsets and sizes hold the same number of
// updates for each member.
// As in XLA, a group size of 1 (the default counts of 1 with empty
// groups, or groups of one id) checks nothing: the shard count is then
// read from the shapes, and a run whose groups disagree with them is
// refused when it runs. Groups that name more devices than a run has are
// refused when it runs too (ParticipatingDeviceGroups), not here.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/collective_groups.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/replica_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/op_shape_rules.h"
#include "shape_inference/shape_inference.h"

namespace mxla::shape_rules {
namespace {

std::vector<const Shape*> OperandShapes(const HloInstruction& instruction) {
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : instruction.operands()) {
    shapes.push_back(&operand->shape());
  }
  return shapes;
}

// "<op> '<name>': ..." (the builder checks instructions not yet named:
// "<op>: ...").
template <typename... Args>
absl::Status Error(const HloInstruction& instruction, const Args&... text) {
  const std::string name = instruction.name().empty()
                               ? std::string()
                               : absl::StrCat(" '", instruction.name(), "'");
  return absl::InvalidArgumentError(
      absl::StrCat(HloOpcodeString(instruction.opcode()), name, ": ", text...));
}

// The module's replica and partition counts (1 and 1 for an instruction
// outside a module, as the builder's are).
struct DeviceCounts {
  int64_t replicas = 1;
  int64_t partitions = 1;
};
DeviceCounts CountsOf(const HloInstruction& instruction) {
  const HloComputation* computation = instruction.parent();
  const HloModule* module =
      computation == nullptr ? nullptr : computation->parent();
  if (module == nullptr) return {};
  return {module->replica_count(), module->num_partitions()};
}

// XLA's check that listed groups name every id the mode spans: as many as
// the module has replicas (partitions, or both in flattened-id mode),
// skipped where that count is 1.
absl::Status CheckIdCount(const HloInstruction& instruction,
                          const IdGroups& groups, CollectiveGroupMode mode,
                          const DeviceCounts& counts) {
  if (groups.empty()) return absl::OkStatus();
  int64_t named = 0;
  for (const std::vector<int64_t>& group : groups) named += group.size();
  int64_t expected = counts.replicas;
  absl::string_view kind = "replicas";
  if (mode == CollectiveGroupMode::kCrossPartition) {
    expected = counts.partitions;
    kind = "partitions";
  } else if (mode == CollectiveGroupMode::kFlattenedId) {
    expected = counts.replicas * counts.partitions;
    kind = "flattened ids";
  }
  if (expected == 1 || named == expected) return absl::OkStatus();
  return Error(instruction, "in ", CollectiveGroupModeName(mode),
               " mode, replica groups should contain ", expected, " ", kind,
               " (the module's replica_count=", counts.replicas,
               ", num_partitions=", counts.partitions, "), but found ", named,
               ": replica_groups=", IdGroupsToString(groups));
}

// The checked groups of a collective and the size of each (1 where it
// cannot be known: XLA then checks no shape against it).
struct Groups {
  CollectiveGroupMode mode = CollectiveGroupMode::kCrossReplica;
  IdGroups ids;
  int64_t size = 1;
};
absl::StatusOr<Groups> CheckedGroups(const HloInstruction& instruction,
                                     bool uniform) {
  Groups groups;
  ASSIGN_OR_RETURN(groups.mode, CollectiveGroupModeOf(instruction));
  groups.ids = ReplicaGroupsOf(instruction);
  RETURN_IF_ERROR(
      CheckReplicaGroups(instruction, groups.ids, groups.mode, uniform));
  const DeviceCounts counts = CountsOf(instruction);
  RETURN_IF_ERROR(CheckIdCount(instruction, groups.ids, groups.mode, counts));
  groups.size =
      GroupSize(groups.ids, groups.mode, counts.replicas, counts.partitions);
  // Outside a module (the builder's check) the partition count, which
  // multiplies these groups, is not known yet: the module's verifier checks.
  if (groups.mode == CollectiveGroupMode::kCrossReplicaAndPartition &&
      (instruction.parent() == nullptr ||
       instruction.parent()->parent() == nullptr)) {
    groups.size = 1;
  }
  return groups;
}

// "(replica_groups={{0,1}}, cross-replica mode)".
std::string GroupsText(const Groups& groups) {
  return absl::StrCat("(replica_groups=", IdGroupsToString(groups.ids), ", ",
                      CollectiveGroupModeName(groups.mode), " mode)");
}

// The one dimension all-gather and reduce-scatter act on.
absl::StatusOr<int64_t> OneDimension(const HloInstruction& instruction) {
  if (instruction.dimensions().size() != 1) {
    return Error(instruction, "needs exactly one dimension; got ",
                 instruction.dimensions().size());
  }
  return instruction.dimensions(0);
}

int64_t CeilOfRatio(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The result of operand 0 in a declared all-gather, all-gather-start or
// reduce-scatter shape, or null when the shape has no such element.
const Shape* FirstResult(const HloInstruction& instruction) {
  const Shape* shape = &instruction.shape();
  if (instruction.opcode() == HloOpcode::kAllGatherStart) {
    if (!shape->IsTuple() || shape->tuple_shapes().size() != 2) return nullptr;
    shape = &shape->tuple_shapes(1);
  }
  if (instruction.operand_count() > 1) {
    if (!shape->IsTuple() || shape->tuple_shapes().empty()) return nullptr;
    shape = &shape->tuple_shapes(0);
  }
  return shape->IsArray() ? shape : nullptr;
}

absl::StatusOr<Shape> AllGather(const HloInstruction& instruction) {
  ASSIGN_OR_RETURN(const Groups groups, CheckedGroups(instruction, true));
  ASSIGN_OR_RETURN(const int64_t dimension, OneDimension(instruction));
  const std::vector<const Shape*> operands = OperandShapes(instruction);
  if (operands.empty()) return Error(instruction, "expects an operand");
  const Shape& operand = *operands[0];
  const Shape* result = FirstResult(instruction);
  int64_t shard_count = groups.size;
  if (result != nullptr && operand.IsArray() && dimension >= 0 &&
      dimension < operand.rank() && dimension < result->rank() &&
      operand.dimensions(dimension) > 0) {
    shard_count = CeilOfRatio(result->dimensions(dimension),
                              operand.dimensions(dimension));
    if (groups.size != 1 && shard_count != groups.size) {
      return Error(instruction, "the result ", result->ToString(),
                   " is the operand ", operand.ToString(), " gathered ",
                   shard_count, " times along dimension ", dimension,
                   ", but each group has ", groups.size, " devices ",
                   GroupsText(groups));
    }
  }
  return ShapeInference::InferAllGatherShape(instruction.opcode(), operands,
                                             dimension,
                                             std::max<int64_t>(shard_count, 1));
}

absl::StatusOr<Shape> ReduceScatter(const HloInstruction& instruction) {
  ASSIGN_OR_RETURN(const Groups groups, CheckedGroups(instruction, true));
  ASSIGN_OR_RETURN(const int64_t dimension, OneDimension(instruction));
  const std::vector<const Shape*> operands = OperandShapes(instruction);
  if (operands.empty()) return Error(instruction, "expects an operand");
  const Shape& operand = *operands[0];
  const Shape* result = FirstResult(instruction);
  int64_t shard_count = groups.size;
  if (result != nullptr && operand.IsArray() && dimension >= 0 &&
      dimension < operand.rank() && dimension < result->rank() &&
      result->dimensions(dimension) > 0) {
    shard_count = CeilOfRatio(operand.dimensions(dimension),
                              result->dimensions(dimension));
    if (groups.size != 1 && shard_count != groups.size) {
      return Error(instruction, "the result ", result->ToString(),
                   " scatters the operand ", operand.ToString(), " in ",
                   shard_count, " shards along dimension ", dimension,
                   ", but each group has ", groups.size, " devices ",
                   GroupsText(groups));
    }
  }
  return ShapeInference::InferReduceScatterShape(
      operands, dimension, std::max<int64_t>(shard_count, 1));
}

// The array form's split dimension: `dimensions={d}` (XLA's text) or a
// split_dimension attribute; none: the tuple form.
absl::StatusOr<std::optional<int64_t>> SplitDimension(
    const HloInstruction& instruction) {
  const int64_t* attribute =
      instruction.attributes().Get<int64_t>(AttrId::kSplitDimension);
  const bool has_dimensions = instruction.attributes().Has(AttrId::kDimensions);
  if (has_dimensions && instruction.dimensions().size() != 1) {
    return Error(instruction, "takes one dimension (its split dimension); got ",
                 instruction.dimensions().size());
  }
  if (has_dimensions && attribute != nullptr &&
      *attribute != instruction.dimensions(0)) {
    return Error(instruction, "split_dimension=", *attribute,
                 " disagrees with dimensions={", instruction.dimensions(0),
                 "}");
  }
  if (has_dimensions) return instruction.dimensions(0);
  if (attribute != nullptr) return *attribute;
  return std::nullopt;
}

absl::StatusOr<Shape> AllToAll(const HloInstruction& instruction) {
  ASSIGN_OR_RETURN(const Groups groups, CheckedGroups(instruction, true));
  ASSIGN_OR_RETURN(const std::optional<int64_t> split,
                   SplitDimension(instruction));
  const std::vector<const Shape*> operands = OperandShapes(instruction);
  if (split.has_value()) {
    if (operands.size() != 1) {
      return Error(instruction, "the array form (split dimension ", *split,
                   ") takes one operand; got ", operands.size());
    }
    return ShapeInference::InferAllToAllShape(*operands[0], *split, *split,
                                              groups.size);
  }
  if (static_cast<int64_t>(operands.size()) != groups.size) {
    return Error(instruction,
                 "the tuple form takes one operand per member "
                 "of its group: each group has ",
                 groups.size, " devices ", GroupsText(groups),
                 ", but there are ", operands.size(), " operands");
  }
  return ShapeInference::InferAllToAllTupleShape(operands);
}

// XLA's checks of source_target_pairs: pairs of ids, each non-negative and
// below the replica count (partition count with a channel_id) where that
// count is not 1, no source and no target twice.
absl::Status CheckSourceTargetPairs(const HloInstruction& permute) {
  const auto* flat = permute.attributes().Get<std::vector<int64_t>>(
      AttrId::kSourceTargetPairs);
  const IdGroups pairs = flat == nullptr ? IdGroups{} : DecodeIdGroups(*flat);
  const bool by_partition = permute.attributes().Has(AttrId::kChannelId);
  const DeviceCounts counts = CountsOf(permute);
  const int64_t limit = by_partition ? counts.partitions : counts.replicas;
  absl::flat_hash_set<int64_t> sources, targets;
  for (const std::vector<int64_t>& pair : pairs) {
    if (pair.size() != 2) {
      return Error(permute, "each source_target_pair must have 2 ids; got {",
                   absl::StrJoin(pair, ","), "}");
    }
    const char* roles[] = {"source", "target"};
    for (int i = 0; i < 2; ++i) {
      if (pair[i] < 0 || (limit != 1 && pair[i] >= limit)) {
        return Error(permute, roles[i], " ", pair[i],
                     " in source_target_pair {", pair[0], ",", pair[1],
                     "} must be in [0, ", limit, ") (the module's ",
                     by_partition ? "num_partitions" : "replica_count", ")");
      }
    }
    if (!sources.insert(pair[0]).second) {
      return Error(permute, "source ", pair[0],
                   " appears more than once in source_target_pairs ",
                   IdGroupsToString(pairs));
    }
    if (!targets.insert(pair[1]).second) {
      return Error(permute, "target ", pair[1],
                   " appears more than once in source_target_pairs ",
                   IdGroupsToString(pairs));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> CollectivePermute(const HloInstruction& instruction) {
  RETURN_IF_ERROR(CollectiveGroupModeOf(instruction).status());
  RETURN_IF_ERROR(CheckSourceTargetPairs(instruction));
  std::vector<Shape> context;
  const Shape& declared = instruction.shape();
  if (instruction.opcode() == HloOpcode::kCollectivePermuteStart &&
      declared.IsTuple()) {
    for (size_t i = 2; i < declared.tuple_shapes().size(); ++i) {
      context.push_back(declared.tuple_shapes(i));
    }
  }
  const auto* slice_sizes = instruction.attributes().Get<std::vector<int64_t>>(
      AttrId::kPermuteSliceSizes);
  if (instruction.operand_count() == 1) {
    if (slice_sizes != nullptr) {
      return Error(instruction, "slice_sizes is only for the in-place form "
                   "of four operands (input, output, input_start_indices, "
                   "output_start_indices)");
    }
    return ShapeInference::InferCollectivePermuteShape(
        instruction.opcode(), OperandShapes(instruction), context);
  }
  if (slice_sizes == nullptr && instruction.operand_count() == 4) {
    return Error(instruction, "the in-place form (input, output, "
                 "input_start_indices, output_start_indices) needs "
                 "slice_sizes");
  }
  return ShapeInference::InferInPlaceCollectivePermuteShape(
      instruction.opcode(), OperandShapes(instruction),
      slice_sizes == nullptr ? IdGroups() : DecodeIdGroups(*slice_sizes),
      context);
}

}  // namespace

absl::StatusOr<Shape> Collective(const HloInstruction& instruction,
                                 VerifierMode) {
  switch (instruction.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      RETURN_IF_ERROR(CheckedGroups(instruction, /*uniform=*/false).status());
      return ShapeInference::InferAllReduceShape(instruction.opcode(),
                                                 OperandShapes(instruction));
    }
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return AllGather(instruction);
    case HloOpcode::kReduceScatter:
      return ReduceScatter(instruction);
    case HloOpcode::kAllToAll:
      return AllToAll(instruction);
    case HloOpcode::kRaggedAllToAll: {
      ASSIGN_OR_RETURN(const Groups groups, CheckedGroups(instruction, true));
      return ShapeInference::InferRaggedAllToAllShape(
          OperandShapes(instruction), groups.size);
    }
    case HloOpcode::kCollectiveBroadcast:
      // XLA's verifier checks only the operand here; the groups are
      // checked when it runs.
      return ShapeInference::InferCollectiveBroadcastShape(
          OperandShapes(instruction));
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return CollectivePermute(instruction);
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      if (instruction.operand_count() != 1) {
        return Error(instruction, "expects one operand");
      }
      return ShapeInference::InferCollectiveDoneShape(
          instruction.opcode(), instruction.operand(0)->shape());
    default:
      return Error(instruction, "is not a collective");
  }
}

}  // namespace mxla::shape_rules
