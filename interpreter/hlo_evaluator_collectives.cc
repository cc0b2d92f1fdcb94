// The collectives as one device of a replicated run computes them: the
// oracle. Each collective finds this device's group (XLA's
// GetParticipatingDevicesGroups, ir/collective_groups.h), fetches what the
// members contribute through the Communicator's two simplest primitives
// (AllGather of every member's operand bytes, or Permute from the
// source), and computes the result from those values here, in plain code
// over Literals: nothing is shared with the JIT's collectives.
//
//   all-reduce       each operand reduced over the members in rank order,
//                    ((m0 ⊕ m1) ⊕ m2) ..., ⊕ the reducer evaluated
//                    elementwise (any to_apply);
//   all-gather       the members' operands concatenated along the
//                    dimension in rank order;
//   reduce-scatter   the all-reduce's value, then this rank's slice;
//   all-to-all       array form: piece k of each member's operand (split
//                    along the split dimension) goes to rank k, and the
//                    received pieces are concatenated in rank order; tuple
//                    form: result element j is member j's operand `rank`;
//   ragged-all-to-all     the members' input rows each sends this rank,
//                    written into this device's output
//                    (hlo_evaluator_ragged_all_to_all.cc);
//   collective-broadcast  rank 0's operand;
//   collective-permute    the source's operand, zeros without a source;
//                    in-place form: the source's slices written into this
//                    device's output (hlo_evaluator_inplace_permute.cc).
//
// Without a RunDevice the run is device 0 of one replica of one partition,
// and there is no communicator: a group or pair naming another device is
// refused by ParticipatingDeviceGroups/PermutePeersOf, naming the op.
// With one, every device calls the communicator once per collective, even
// alone in its group, so that the calls stay matched across devices.
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/binary_reducer.h"
#include "interpreter/evaluation_plan.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/collective_groups.h"
#include "ir/communicator.h"
#include "ir/device_assignment.h"
#include "ir/primitive_type.h"
#include "ir/run_device.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::hlo_evaluator_internal {
namespace {

template <typename... Args>
absl::Status OpError(const HloInstruction& op, const Args&... text) {
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(op.opcode()), " '", op.name(), "': ", text...));
}

// Where this evaluation runs.
struct Place {
  const DeviceAssignment* assignment = nullptr;
  int64_t replica = 0;
  int64_t partition = 0;
  int64_t device = 0;
  Communicator* communicator = nullptr;  // null: no other device
};

Place PlaceOf(const EvaluatorOptions& options) {
  static const DeviceAssignment* const kOneDevice =
      new DeviceAssignment(DeviceAssignment::Default(1, 1));
  const RunDevice* device = options.device;
  if (device == nullptr) return {kOneDevice, 0, 0, 0, nullptr};
  return {device->assignment, device->replica, device->partition,
          device->device_id(), device->communicator};
}

absl::StatusOr<DeviceGroup> GroupOf(const HloInstruction& op,
                                    const Place& place) {
  ASSIGN_OR_RETURN(const CollectiveGroupMode mode, CollectiveGroupModeOf(op));
  ASSIGN_OR_RETURN(const std::vector<std::vector<int64_t>> groups,
                   ParticipatingDeviceGroups(op, *place.assignment,
                                             ReplicaGroupsOf(op), mode));
  return GroupOfDevice(op, groups, place.device);
}

std::string GroupText(const DeviceGroup& group) {
  return absl::StrCat("{", absl::StrJoin(group.devices, ","), "}");
}

const char* Bytes(const Literal& literal) {
  return static_cast<const char*>(literal.untyped_data());
}

// Every member's operands, in rank order: members[j][i] is member j's
// operand i.
using Members = std::vector<std::vector<Literal>>;

absl::StatusOr<Members> GatherMembers(
    const HloInstruction& op, const Place& place, const DeviceGroup& group,
    absl::Span<const Literal* const> operands) {
  const int64_t n = group.devices.size();
  if (place.communicator == nullptr) {
    RET_CHECK(n == 1 && group.rank == 0, op.ToString());
    Members members(1);
    for (const Literal* operand : operands) members[0].push_back(*operand);
    return members;
  }
  std::vector<char> send;
  for (const Literal* operand : operands) {
    RET_CHECK(operand->shape().IsArray(), op.ToString());
    send.insert(send.end(), Bytes(*operand),
                Bytes(*operand) + operand->size_bytes());
  }
  std::vector<std::vector<char>> received(n, std::vector<char>(send.size()));
  std::vector<MutableBytes> recv;
  for (std::vector<char>& bytes : received) {
    recv.push_back(MutableBytes(bytes.data(), bytes.size()));
  }
  const CollectiveCall call{op.name(), group.devices, group.rank};
  RETURN_IF_ERROR(place.communicator->AllGather(
      call, ConstBytes(send.data(), send.size()), recv));
  Members members(n);
  for (int64_t j = 0; j < n; ++j) {
    int64_t at = 0;
    for (const Literal* operand : operands) {
      Literal value(operand->shape());
      std::memcpy(value.untyped_data(), received[j].data() + at,
                  value.size_bytes());
      at += value.size_bytes();
      members[j].push_back(std::move(value));
    }
  }
  return members;
}

// accumulator ⊕ other, elementwise, with the instruction's reducer.
class Reducer {
 public:
  static absl::StatusOr<Reducer> Of(const HloInstruction& op,
                                    const EvaluatorOptions& options) {
    if (op.to_apply() == nullptr) return OpError(op, "has no reducer");
    ASSIGN_OR_RETURN(Plan plan, MakePlan(*op.to_apply()));
    return Reducer(op, std::move(plan), options);
  }

  absl::StatusOr<Literal> Combine(const Literal& accumulator,
                                  const Literal& other) const {
    const PrimitiveType type = accumulator.shape().element_type();
    const Shape& takes = op_.to_apply()->parameter_instruction(0)->shape();
    if (takes.IsArray() && takes.rank() == 0 && takes.element_type() != type) {
      // A reducer on another element type than the operand's (XLA's
      // collective quantizer makes bf16 all-reduces of an f32 max): XLA
      // runs it by its kind on the operand's type; here each element goes
      // to the reducer's type and its result comes back, which is the same
      // for the one-op reducers the JIT runs so.
      ASSIGN_OR_RETURN(const Literal a,
                       semantics::ApplyConvert(accumulator, takes.element_type()));
      ASSIGN_OR_RETURN(const Literal b,
                       semantics::ApplyConvert(other, takes.element_type()));
      ASSIGN_OR_RETURN(const Literal combined, Combine(a, b));
      return semantics::ApplyConvert(combined, type);
    }
    if (std::optional<absl::StatusOr<Literal>> combined =
            CombineWithBinaryOp(accumulator, other)) {
      return *std::move(combined);
    }
    const Shape scalar = ShapeUtil::MakeScalarShape(type);
    Literal a(scalar), b(scalar);
    const Literal* arguments[] = {&a, &b};
    RETURN_IF_ERROR(CheckArguments(*op_.to_apply(), arguments));
    const int64_t width = primitive_util::ByteWidth(type);
    Literal result(accumulator.shape());
    char* out = static_cast<char*>(result.untyped_data());
    for (int64_t e = 0; e < accumulator.element_count(); ++e) {
      std::memcpy(a.untyped_data(), Bytes(accumulator) + e * width, width);
      std::memcpy(b.untyped_data(), Bytes(other) + e * width, width);
      ASSIGN_OR_RETURN(Literal value, RunPlan(plan_, arguments, options_));
      if (value.shape() != scalar) {
        return OpError(op_, "the reducer gives ", value.shape().ToString(),
                       " for elements of ", scalar.ToString());
      }
      std::memcpy(out + e * width, value.untyped_data(), width);
    }
    return result;
  }

  // Operand i of every member reduced in rank order: ((m0 ⊕ m1) ⊕ m2) ...
  absl::StatusOr<Literal> Reduce(const Members& members, int64_t i) const {
    Literal accumulator = members[0][i];
    for (size_t j = 1; j < members.size(); ++j) {
      ASSIGN_OR_RETURN(accumulator, Combine(accumulator, members[j][i]));
    }
    return accumulator;
  }

 private:
  // A one-op reducer (binary_reducer.h) applied to whole arrays by the
  // scalar semantics (narrow floats widened and rounded back per element,
  // as evaluating the reducer on each pair does); nullopt for any other
  // reducer, which Combine evaluates per element.
  std::optional<absl::StatusOr<Literal>> CombineWithBinaryOp(
      const Literal& accumulator, const Literal& other) const {
    const std::optional<BinaryReducer> binary = AsBinaryReducer(
        *op_.to_apply(), accumulator.shape().element_type());
    if (!binary.has_value() || other.shape() != accumulator.shape()) {
      return std::nullopt;
    }
    // Parameter 0 takes the accumulator, as in Combine.
    return binary->swapped
               ? semantics::ApplyBinaryOp(binary->opcode, other, accumulator)
               : semantics::ApplyBinaryOp(binary->opcode, accumulator, other);
  }

  Reducer(const HloInstruction& op, Plan plan, const EvaluatorOptions& options)
      : op_(op), plan_(std::move(plan)), options_(options) {}

  const HloInstruction& op_;
  Plan plan_;
  const EvaluatorOptions& options_;
};

Literal OneOrTuple(std::vector<Literal> values) {
  if (values.size() == 1) return std::move(values[0]);
  return LiteralUtil::MakeTuple(std::move(values));
}

absl::StatusOr<std::vector<Literal>> AllReduce(
    const HloInstruction& op, const Members& members,
    const EvaluatorOptions& options) {
  ASSIGN_OR_RETURN(const Reducer reducer, Reducer::Of(op, options));
  std::vector<Literal> results;
  for (size_t i = 0; i < members[0].size(); ++i) {
    ASSIGN_OR_RETURN(Literal reduced, reducer.Reduce(members, i));
    results.push_back(std::move(reduced));
  }
  return results;
}

// The array shapes an op of several operands gives (a tuple's elements).
std::vector<Shape> ResultShapes(const Shape& shape, size_t count) {
  if (count == 1 && !shape.IsTuple()) return {shape};
  return std::vector<Shape>(shape.tuple_shapes().begin(),
                            shape.tuple_shapes().end());
}

// An all-to-all's split dimension (`dimensions={d}`, or split_dimension);
// none for the tuple form.
std::optional<int64_t> SplitDimensionOf(const HloInstruction& op) {
  if (op.attributes().Has(AttrId::kDimensions)) return op.dimensions(0);
  if (const auto* d = op.attributes().Get<int64_t>(AttrId::kSplitDimension)) {
    return *d;
  }
  return std::nullopt;
}

// Whether the group's size fits the shapes (the verifier checks this only
// where the module's counts give the size): before any exchange, so that
// every device fails alike.
absl::Status CheckGroupFitsShapes(const HloInstruction& op,
                                  const DeviceGroup& group,
                                  absl::Span<const Literal* const> operands) {
  const int64_t n = group.devices.size();
  const auto fail = [&](const auto&... text) {
    return OpError(op, "its group ", GroupText(group), " has ", n,
                   " devices, but ", text...);
  };
  switch (op.opcode()) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter: {
      const bool gather = op.opcode() != HloOpcode::kReduceScatter;
      const std::vector<Shape> shapes = ResultShapes(
          op.opcode() == HloOpcode::kAllGatherStart ? op.shape().tuple_shapes(1)
                                                    : op.shape(),
          operands.size());
      const int64_t d = op.dimensions(0);
      for (size_t i = 0; i < operands.size(); ++i) {
        const Shape& operand = operands[i]->shape();
        const Shape& result = shapes[i];
        if (gather && result.dimensions(d) != n * operand.dimensions(d)) {
          return fail("the result ", result.ToString(), " is not ", n,
                      " times the operand ", operand.ToString(),
                      " along dimension ", d);
        }
        if (!gather && operand.dimensions(d) != n * result.dimensions(d)) {
          return fail("the operand ", operand.ToString(), " is not ", n,
                      " times the result ", result.ToString(),
                      " along dimension ", d);
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kAllToAll: {
      const std::optional<int64_t> split = SplitDimensionOf(op);
      if (!split.has_value() && static_cast<int64_t>(operands.size()) != n) {
        return fail("the tuple form has ", operands.size(),
                    " operands (one per member)");
      }
      if (split.has_value() &&
          operands[0]->shape().dimensions(*split) % n != 0) {
        return fail("the operand ", operands[0]->shape().ToString(),
                    " does not split in ", n, " along dimension ", *split);
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

absl::StatusOr<std::vector<Literal>> AllGather(const HloInstruction& op,
                                               const Shape& result_shape,
                                               const Members& members) {
  const int64_t d = op.dimensions(0);
  const std::vector<Shape> shapes =
      ResultShapes(result_shape, members[0].size());
  std::vector<Literal> results;
  for (size_t i = 0; i < members[0].size(); ++i) {
    std::vector<const Literal*> parts;
    for (const std::vector<Literal>& member : members) {
      parts.push_back(&member[i]);
    }
    ASSIGN_OR_RETURN(Literal gathered,
                     EvaluateConcatenate(parts, shapes[i], d));
    results.push_back(std::move(gathered));
  }
  return results;
}

// Block k of `value` split into `parts` along `d` (divisible).
absl::StatusOr<Literal> Block(const Literal& value, int64_t d, int64_t parts,
                              int64_t k) {
  const Shape& shape = value.shape();
  const int64_t size = shape.dimensions(d) / parts;
  std::vector<int64_t> starts(shape.rank(), 0);
  std::vector<int64_t> limits(shape.dimensions().begin(),
                              shape.dimensions().end());
  std::vector<int64_t> strides(shape.rank(), 1);
  starts[d] = k * size;
  limits[d] = (k + 1) * size;
  return EvaluateSlice(value, starts, limits, strides);
}

absl::StatusOr<std::vector<Literal>> ReduceScatter(
    const HloInstruction& op, const DeviceGroup& group, const Members& members,
    const EvaluatorOptions& options) {
  const int64_t n = group.devices.size();
  const int64_t d = op.dimensions(0);
  ASSIGN_OR_RETURN(std::vector<Literal> reduced,
                   AllReduce(op, members, options));
  std::vector<Literal> results;
  for (const Literal& value : reduced) {
    ASSIGN_OR_RETURN(Literal block, Block(value, d, n, group.rank));
    results.push_back(std::move(block));
  }
  return results;
}

absl::StatusOr<Literal> AllToAll(const HloInstruction& op,
                                 const DeviceGroup& group,
                                 const Members& members) {
  const int64_t n = group.devices.size();
  const std::optional<int64_t> split = SplitDimensionOf(op);
  if (!split.has_value()) {
    // Tuple form: element j is member j's operand `rank`.
    std::vector<Literal> results;
    for (const std::vector<Literal>& member : members) {
      results.push_back(member[group.rank]);
    }
    return LiteralUtil::MakeTuple(std::move(results));
  }
  const Shape& operand = members[0][0].shape();
  std::vector<Literal> blocks;
  for (const std::vector<Literal>& member : members) {
    ASSIGN_OR_RETURN(Literal block, Block(member[0], *split, n, group.rank));
    blocks.push_back(std::move(block));
  }
  std::vector<const Literal*> parts;
  for (const Literal& block : blocks) parts.push_back(&block);
  return EvaluateConcatenate(parts, operand, *split);
}

// The value a collective-permute gives this device (of its operand, or of
// the four of the in-place form).
absl::StatusOr<Literal> Permuted(const HloInstruction& op, const Place& place,
                                 absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(const PermutePeers peers,
                   PermutePeersOf(op, *place.assignment, place.device));
  if (operands.size() != 1) {
    return EvaluateInPlacePermute(op, peers, place.communicator, operands);
  }
  const Literal& operand = *operands[0];
  Literal result(operand.shape());  // zeros without a source
  if (place.communicator == nullptr) {
    if (peers.source.has_value()) result = operand;
    return result;
  }
  RETURN_IF_ERROR(place.communicator->Permute(
      op.name(), ConstBytes(Bytes(operand), operand.size_bytes()),
      peers.targets, peers.source,
      MutableBytes(static_cast<char*>(result.untyped_data()),
                   result.size_bytes())));
  return result;
}

}  // namespace

absl::StatusOr<Literal> EvaluateDeviceId(const HloInstruction& op,
                                         const EvaluatorOptions& options) {
  const Place place = PlaceOf(options);
  const int64_t id =
      op.opcode() == HloOpcode::kPartitionId ? place.partition : place.replica;
  return LiteralUtil::CreateR0<uint32_t>(static_cast<uint32_t>(id));
}

namespace {

// The collectives that need no group: the -done ops, which take their
// value from the start, and the permutes, which have pairs. Null for the
// others.
std::optional<absl::StatusOr<Literal>> EvaluateWithoutGroup(
    const HloInstruction& op, absl::Span<const Literal* const> operands,
    const Place& place) {
  switch (op.opcode()) {
    case HloOpcode::kAllReduceDone:
      return *operands[0];
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return operands[0]->tuple_element(1);
    case HloOpcode::kCollectivePermute:
      return Permuted(op, place, operands);
    case HloOpcode::kCollectivePermuteStart: {
      std::vector<Literal> elements;
      elements.push_back(*operands[0]);
      absl::StatusOr<Literal> permuted = Permuted(op, place, operands);
      if (!permuted.ok()) return permuted.status();
      elements.push_back(*std::move(permuted));
      for (size_t i = 2; i < op.shape().tuple_shapes().size(); ++i) {
        elements.emplace_back(op.shape().tuple_shapes(i));  // context: zeros
      }
      return LiteralUtil::MakeTuple(std::move(elements));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateCollective(
    const HloInstruction& op, absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
  RET_CHECK(!operands.empty(), HloOpcodeString(op.opcode()),
            " without operands");
  const Place place = PlaceOf(options);
  if (std::optional<absl::StatusOr<Literal>> value =
          EvaluateWithoutGroup(op, operands, place)) {
    return *std::move(value);
  }
  ASSIGN_OR_RETURN(const DeviceGroup group, GroupOf(op, place));
  if (op.opcode() == HloOpcode::kRaggedAllToAll) {
    // Every member's input and metadata; the output stays here.
    const Literal* shared[] = {operands[0], operands[2], operands[3],
                               operands[4], operands[5]};
    ASSIGN_OR_RETURN(const Members members,
                     GatherMembers(op, place, group, shared));
    return EvaluateRaggedAllToAll(op, group.devices, group.rank, members,
                                  *operands[1]);
  }
  RETURN_IF_ERROR(CheckGroupFitsShapes(op, group, operands));
  ASSIGN_OR_RETURN(const Members members,
                   GatherMembers(op, place, group, operands));
  switch (op.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      ASSIGN_OR_RETURN(std::vector<Literal> results,
                       AllReduce(op, members, options));
      return OneOrTuple(std::move(results));
    }
    case HloOpcode::kAllGather: {
      ASSIGN_OR_RETURN(std::vector<Literal> results,
                       AllGather(op, op.shape(), members));
      return OneOrTuple(std::move(results));
    }
    case HloOpcode::kAllGatherStart: {
      RET_CHECK(op.shape().IsTuple() && op.shape().tuple_shapes().size() == 2,
                op.ToString());
      ASSIGN_OR_RETURN(std::vector<Literal> results,
                       AllGather(op, op.shape().tuple_shapes(1), members));
      std::vector<Literal> inputs;
      for (const Literal* operand : operands) inputs.push_back(*operand);
      std::vector<Literal> pair;
      pair.push_back(OneOrTuple(std::move(inputs)));
      pair.push_back(OneOrTuple(std::move(results)));
      return LiteralUtil::MakeTuple(std::move(pair));
    }
    case HloOpcode::kReduceScatter: {
      ASSIGN_OR_RETURN(std::vector<Literal> results,
                       ReduceScatter(op, group, members, options));
      return OneOrTuple(std::move(results));
    }
    case HloOpcode::kAllToAll:
      return AllToAll(op, group, members);
    case HloOpcode::kCollectiveBroadcast:
      return members[0][0];
    default:
      return absl::InternalError(
          absl::StrCat(HloOpcodeString(op.opcode()), " is not a collective"));
  }
}

}  // namespace mxla::hlo_evaluator_internal
