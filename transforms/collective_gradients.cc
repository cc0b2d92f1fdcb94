// Gradient rules of the collectives, as JAX transposes its collective
// primitives. Every device runs the same program, and the loss
// differentiated is the sum over devices of each device's loss, so an
// operand's cotangent gathers the cotangents of every result its value
// reached on any device:
//   all-reduce (add)      the same all-reduce of the cotangent (psum);
//   all-gather            a reduce-scatter (add) of it over the same groups
//                         and dimension (JAX's all_gather -> psum_scatter);
//   reduce-scatter (add)  an all-gather of it (psum_scatter -> all_gather);
//   all-to-all            the same all-to-all: along one dimension, and in
//                         the tuple form, rank k's part j and rank j's part
//                         k trade places, so the exchange is its own
//                         inverse;
//   collective-permute    the inverse permutation (the pairs reversed): a
//                         device that sends to no one gets zeros, and one
//                         that received zeros sends nothing back;
//   collective-broadcast  the group's cotangents summed onto the group's
//                         first member, the source; zeros elsewhere (the
//                         sum is an all-reduce over the same groups, or
//                         across partitions, where an all-reduce cannot
//                         be, an all-to-all of copies, summed).
// Each keeps the forward op's replica_groups, channel_id and
// use_global_device_ids, so its groups are the forward op's in every mode
// (ir/collective_groups.h). The asynchronous pairs differentiate through
// their synchronous meaning: a done hands its cotangent to its start's
// value, and the start's rule is the synchronous op's (plus the cotangent
// of the operand the start passes through in its tuple).
//
// ragged-all-to-all transposes to a ragged-all-to-all the other way:
// each receiver sends the cotangent of the rows it received back to the
// rows they came from, its recv_sizes as send_sizes and its send_sizes
// as recv_sizes. The offsets are the sender's (where its rows start in
// its input, and where they land in the receiver's output), so the
// receiver learns them by an all-to-all of each offsets array over the
// same groups. A sender may send one row in several updates, so update e
// comes back into a block of its own (rows e·R.. of an [L·R, ...] array,
// for L metadata entries and R input rows) and the blocks are summed.
// Rows of `output` that nobody writes keep its cotangent.
//
// Refused by name: all-reduce and reduce-scatter with a max or min reducer
// (JAX defines no derivative of pmax and pmin: neither has a JVP rule in
// jax/_src/lax/parallel.py).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/collective_groups.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_clone.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// The attributes that decide a collective's groups.
struct GroupAttributes {
  IdGroups groups;
  std::optional<int64_t> channel_id;
  std::optional<bool> use_global_device_ids;
};

GroupAttributes GroupAttributesOf(const HloInstruction& collective) {
  const HloAttributes& attributes = collective.attributes();
  GroupAttributes result;
  result.groups = ReplicaGroupsOf(collective);
  if (const auto* id = attributes.Get<int64_t>(AttrId::kChannelId)) {
    result.channel_id = *id;
  }
  if (const auto* text =
          attributes.Get<std::string>(AttrId::kUseGlobalDeviceIds)) {
    result.use_global_device_ids = *text == "true";
  }
  return result;
}

XlaOp SumOverGroups(XlaOp cotangent, const GroupAttributes& groups) {
  const PrimitiveType type = ShapeOf(cotangent).element_type();
  return AllReduce(
      cotangent, CreateScalarAddComputation(type, cotangent.builder()),
      groups.groups, groups.channel_id, groups.use_global_device_ids);
}

// The same over cross-partition groups (a collective-broadcast's with a
// channel_id, listed). An all-reduce cannot form them: XLA's
// use_global_device_ids is a bool, so an all-reduce with a channel_id is
// cross-replica-and-partition or flattened. An all-to-all with the
// broadcast's groups and channel_id is cross-partition: each member sends
// every rank a copy of its cotangent, and each sums the n it receives.
XlaOp SumOverPartitionGroups(XlaOp cotangent, const GroupAttributes& groups) {
  const int64_t n = groups.groups[0].size();
  const XlaOp copies = Broadcast(cotangent, {n});
  const XlaOp received =
      AllToAll(copies, 0, 0, n, groups.groups, groups.channel_id);
  return SumOver(received, {0});
}

// The cotangent of an all-reduce's (or all-reduce-start's) operand.
Result AllReduceCotangents(const GradientContext& context) {
  const HloInstruction& all_reduce = context.instruction;
  if (!IsPlainBinaryReducer(*all_reduce.to_apply(), Op::kAdd)) {
    return NoRuleError(context,
                       "with a reducer other than add (JAX defines no "
                       "derivative of pmax or pmin either)");
  }
  // Several operands are reduced each on its own (the result is their
  // tuple).
  const Cotangent result = ResultCotangent(context);
  OperandCotangents cotangents(all_reduce.operand_count());
  for (int64_t i = 0; i < all_reduce.operand_count(); ++i) {
    const Cotangent& own = result.is_tuple ? result.elements[i] : result;
    if (own.array.valid()) {
      cotangents[i] = SumOverGroups(own.array, GroupAttributesOf(all_reduce));
    }
  }
  return cotangents;
}

// Operand i's cotangent from the cotangent of the gathered operand i: each
// rank's slice of it, summed over the group.
XlaOp GatherTranspose(const HloInstruction& gather, XlaOp cotangent,
                      int64_t i) {
  const int64_t dimension = gather.dimensions(0);
  const Shape& gathered = ShapeOf(cotangent);
  const int64_t shard_count = gathered.dimensions(dimension) /
                              gather.operand(i)->shape().dimensions(dimension);
  const GroupAttributes groups = GroupAttributesOf(gather);
  return ReduceScatter(
      cotangent,
      CreateScalarAddComputation(gathered.element_type(), cotangent.builder()),
      dimension, shard_count, groups.groups, groups.channel_id,
      groups.use_global_device_ids);
}

// The cotangent of an all-gather's operands from its result's: one per
// operand (the result is their tuple when there are several).
OperandCotangents AllGatherCotangents(const HloInstruction& gather,
                                      const Cotangent& result) {
  OperandCotangents cotangents(gather.operand_count());
  for (int64_t i = 0; i < gather.operand_count(); ++i) {
    const Cotangent& gathered = result.is_tuple ? result.elements[i] : result;
    if (gathered.array.valid()) {
      cotangents[i] = GatherTranspose(gather, gathered.array, i);
    }
  }
  return cotangents;
}

// The sum of two cotangents of one array, either possibly invalid.
XlaOp Summed(XlaOp a, XlaOp b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  return Add(a, b);
}

XlaOp InversePermute(const HloInstruction& permute, XlaOp cotangent) {
  std::vector<std::pair<int64_t, int64_t>> inverse;
  for (const std::vector<int64_t>& pair :
       DecodeIdGroups(*permute.attributes().Get<std::vector<int64_t>>(
           AttrId::kSourceTargetPairs))) {
    inverse.emplace_back(pair[1], pair[0]);
  }
  return CollectivePermute(cotangent, inverse,
                           GroupAttributesOf(permute).channel_id);
}

// A copy of `collective` (its groups and every attribute) on `operands`.
XlaOp SameCollective(XlaBuilder& builder, const HloInstruction& collective,
                     const Shape& shape, absl::Span<const XlaOp> operands) {
  ComputationCloneMap callees;
  return EmitCopyOf(builder, collective, shape, operands, callees);
}

// Whether this device is the source of its collective-broadcast group:
// the source's replica and partition ids, broadcast by the same op, are
// this device's.
XlaOp IsBroadcastSource(XlaBuilder& builder, const HloInstruction& broadcast) {
  const Shape id = ShapeUtil::MakeScalarShape(U32);
  const XlaOp replica = ReplicaId(&builder);
  const XlaOp partition = PartitionId(&builder);
  return And(
      Eq(replica, SameCollective(builder, broadcast, id, {replica})),
      Eq(partition, SameCollective(builder, broadcast, id, {partition})));
}

// Entry j·k + u of this device's `metadata` (n·k entries for a group of
// n) sent to rank j, where it lands at entry (this device's rank)·k + u.
XlaOp ExchangedMetadata(const HloInstruction& ragged, XlaOp metadata) {
  const GroupAttributes groups = GroupAttributesOf(ragged);
  // Without groups, the run's device count splits it.
  const int64_t split_count =
      groups.groups.empty() ? 1 : groups.groups[0].size();
  return AllToAll(metadata, 0, 0, split_count, groups.groups,
                  groups.channel_id);
}

// Operands of ragged-all-to-all, in the instruction's order.
enum RaggedOperand : int64_t {
  kInput,
  kOutput,
  kInputOffsets,
  kSendSizes,
  kOutputOffsets,
  kRecvSizes
};

}  // namespace

Result GradientRules::Handle(OpTag<Op::kRaggedAllToAll>,
                             const GradientContext& context) {
  const HloInstruction& ragged = context.instruction;
  const std::vector<XlaOp>& x = context.operands;
  const Shape& input = ragged.operand(kInput)->shape();
  const Shape& metadata = ragged.operand(kInputOffsets)->shape();
  const int64_t entries = metadata.dimensions(0);
  const int64_t rows = input.dimensions(0);
  // Update e's rows go back to block e: input_offsets[e] + e·R.
  const XlaOp block_starts =
      Mul(Iota(&context.builder, metadata, 0),
          Broadcast(ScalarLike(x[kInputOffsets], rows), {entries}));
  std::vector<int64_t> blocks(input.dimensions().begin(),
                              input.dimensions().end());
  blocks[0] = entries * rows;
  const Shape returned = ShapeUtil::MakeShape(input.element_type(), blocks);
  const XlaOp back = SameCollective(
      context.builder, ragged, returned,
      {context.cotangent, Broadcast(ScalarLike(x[kInput], 0), blocks),
       ExchangedMetadata(ragged, x[kOutputOffsets]), x[kRecvSizes],
       ExchangedMetadata(ragged, Add(x[kInputOffsets], block_starts)),
       x[kSendSizes]});
  std::vector<int64_t> split = {entries};
  split.insert(split.end(), input.dimensions().begin(),
               input.dimensions().end());
  // 1 where a row was written, 0 where `output` shows through.
  const XlaOp written = SameCollective(
      context.builder, ragged, ragged.shape(),
      {Filled(x[kInput], 1), Filled(x[kOutput], 0), x[kInputOffsets],
       x[kSendSizes], x[kOutputOffsets], x[kRecvSizes]});
  OperandCotangents cotangents(ragged.operand_count());
  cotangents[kInput] = SumOver(Reshape(back, split), {0});
  cotangents[kOutput] = Select(Eq(written, Filled(written, 0)),
                               context.cotangent, Filled(written, 0));
  return cotangents;
}

Result GradientRules::Handle(OpTag<Op::kAllReduce>,
                             const GradientContext& context) {
  return AllReduceCotangents(context);
}

Result GradientRules::Handle(OpTag<Op::kAllReduceStart>,
                             const GradientContext& context) {
  return AllReduceCotangents(context);
}

Result GradientRules::Handle(OpTag<Op::kAllReduceDone>,
                             const GradientContext& context) {
  return OperandCotangents{context.cotangent};
}

Result GradientRules::Handle(OpTag<Op::kAllGather>,
                             const GradientContext& context) {
  return AllGatherCotangents(context.instruction, ResultCotangent(context));
}

// The start's value is (operand, gathered): the first element passes the
// operand through.
Result GradientRules::Handle(OpTag<Op::kAllGatherStart>,
                             const GradientContext& context) {
  const HloInstruction& start = context.instruction;
  OperandCotangents cotangents =
      AllGatherCotangents(start, context.tuple_cotangent[1]);
  const Cotangent& passed = context.tuple_cotangent[0];
  for (int64_t i = 0; i < start.operand_count(); ++i) {
    const Cotangent& own = passed.is_tuple ? passed.elements[i] : passed;
    cotangents[i] = Summed(cotangents[i].array, own.array);
  }
  return cotangents;
}

// A done's value is element 1 of its start's (the gathered or received
// array); the other elements get none.
Result GradientRules::Handle(OpTag<Op::kAllGatherDone>,
                             const GradientContext& context) {
  std::vector<Cotangent> elements(
      context.instruction.operand(0)->shape().tuple_shapes().size());
  elements[1] = context.cotangent;
  return OperandCotangents{Cotangent::OfTuple(std::move(elements))};
}

Result GradientRules::Handle(OpTag<Op::kCollectivePermuteDone>,
                             const GradientContext& context) {
  return Handle(OpTag<Op::kAllGatherDone>{}, context);
}

Result GradientRules::Handle(OpTag<Op::kReduceScatter>,
                             const GradientContext& context) {
  const HloInstruction& scatter = context.instruction;
  if (!IsPlainBinaryReducer(*scatter.to_apply(), Op::kAdd)) {
    return NoRuleError(context,
                       "with a reducer other than add (JAX defines no "
                       "derivative of a max or min scatter either)");
  }
  const int64_t dimension = scatter.dimensions(0);
  const GroupAttributes groups = GroupAttributesOf(scatter);
  const Cotangent result = ResultCotangent(context);
  OperandCotangents cotangents(scatter.operand_count());
  for (int64_t i = 0; i < scatter.operand_count(); ++i) {
    const Cotangent& own = result.is_tuple ? result.elements[i] : result;
    if (!own.array.valid()) continue;
    const int64_t shard_count =
        scatter.operand(i)->shape().dimensions(dimension) /
        ShapeOf(own.array).dimensions(dimension);
    cotangents[i] = AllGather(own.array, dimension, shard_count, groups.groups,
                              groups.channel_id, groups.use_global_device_ids);
  }
  return cotangents;
}

Result GradientRules::Handle(OpTag<Op::kAllToAll>,
                             const GradientContext& context) {
  const HloInstruction& exchange = context.instruction;
  if (!exchange.shape().IsTuple()) {
    return OperandCotangents{SameCollective(
        context.builder, exchange, exchange.shape(), {context.cotangent})};
  }
  // Rank k's result j is rank j's operand k: sending the cotangents the
  // same way brings each back to the operand it came from.
  std::vector<XlaOp> cotangents;
  for (int64_t j = 0; j < exchange.operand_count(); ++j) {
    const XlaOp cotangent = context.tuple_cotangent[j].array;
    cotangents.push_back(cotangent.valid() ? cotangent
                                           : Filled(context.operands[j], 0));
  }
  const XlaOp back =
      SameCollective(context.builder, exchange, exchange.shape(), cotangents);
  OperandCotangents result;
  for (int64_t j = 0; j < exchange.operand_count(); ++j) {
    result.push_back(GetTupleElement(back, j));
  }
  return result;
}

Result GradientRules::Handle(OpTag<Op::kCollectivePermute>,
                             const GradientContext& context) {
  if (context.instruction.operand_count() == 4) {
    return NoRuleError(context, "in its in-place four-operand form");
  }
  return OperandCotangents{
      InversePermute(context.instruction, context.cotangent)};
}

// The start's value is (operand, received, u32[] context...).
Result GradientRules::Handle(OpTag<Op::kCollectivePermuteStart>,
                             const GradientContext& context) {
  if (context.instruction.operand_count() == 4) {
    return NoRuleError(context, "in its in-place four-operand form");
  }
  const XlaOp received = context.tuple_cotangent[1].array;
  return OperandCotangents{
      Summed(received.valid() ? InversePermute(context.instruction, received)
                              : XlaOp(),
             context.tuple_cotangent[0].array)};
}

Result GradientRules::Handle(OpTag<Op::kCollectiveBroadcast>,
                             const GradientContext& context) {
  const HloInstruction& broadcast = context.instruction;
  const GroupAttributes groups = GroupAttributesOf(broadcast);
  if (groups.channel_id.has_value() && groups.groups.empty()) {
    return NoRuleError(context,
                       "with a channel_id and no replica_groups (the "
                       "partition count that sizes its group is not known "
                       "here)");
  }
  const XlaOp total = groups.channel_id.has_value()
                          ? SumOverPartitionGroups(context.cotangent, groups)
                          : SumOverGroups(context.cotangent, groups);
  const XlaOp is_source = IsBroadcastSource(context.builder, broadcast);
  return OperandCotangents{
      Select(Broadcast(is_source, ShapeOf(total).dimensions()), total,
             Filled(total, 0))};
}

}  // namespace mxla::gradient_rules
