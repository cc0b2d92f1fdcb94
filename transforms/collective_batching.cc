// The batching rules of the collectives. Every device runs the same
// vmapped program, so example b of one device meets example b of the
// others: a collective over operands with the batch at dimension 0 is the
// per-example collective, provided its own dimension attributes (the
// gather, scatter or split dimension) move past the batch. An unbatched
// operand of a variadic collective is broadcast along the batch. The
// asynchronous all-reduce and all-gather pairs batch alike: every element
// of a start's value is an array of the operand's or the result's shape.
//
// collective-permute-start's value is (operand, received, u32[] context
// scalars): the batched start gets the batch on the two arrays only, so
// its context stays what the runtime made it, and the rule refuses a
// start whose context scalars are read other than by its done.
//
// ragged-all-to-all folds the batch into its rows and its updates: the
// examples' inputs and outputs are stacked ([B·N, ...] and [B·M, ...]),
// and example b's update u to rank j becomes update b·k + u of k·B per
// peer, its offsets moved by b·N in the input and b·M in the output.
// Example b of a sender meets example b of its receiver, as vmap means.
// The metadata's layout (rank-major) needs the group size, so one without
// replica_groups (its size known only when it runs) is refused by name.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/collective_groups.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

// `value` ([B, d0, rest...]) with its first two dimensions merged.
XlaOp Stacked(XlaOp value, const Shape& example, int64_t batch_size) {
  std::vector<int64_t> dims(example.dimensions().begin(),
                            example.dimensions().end());
  dims[0] *= batch_size;
  return Reshape(value, dims);
}

// Batched metadata [B, n·k], each example's moved by b·`rows` (0 for the
// sizes), laid out as n peers of B·k updates: entry j·B·k + b·k + u.
XlaOp FoldedMetadata(XlaOp batched, const Shape& example, int64_t peers,
                     int64_t batch_size, int64_t rows) {
  const int64_t entries = example.dimensions(0);
  const int64_t updates = entries / peers;
  const Shape shape =
      ShapeUtil::MakeShape(example.element_type(), {batch_size, entries});
  XlaOp moved = batched;
  if (rows != 0) {
    moved =
        Add(batched,
            Mul(Iota(batched.builder(), shape, 0),
                Broadcast(ScalarLike(batched, rows), {batch_size, entries})));
  }
  const XlaOp by_peer =
      Transpose(Reshape(moved, {batch_size, peers, updates}), {1, 0, 2});
  return Reshape(by_peer, {entries * batch_size});
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kRaggedAllToAll>,
                             const BatchContext& context) {
  const HloInstruction& ragged = context.instruction;
  const IdGroups groups = ReplicaGroupsOf(ragged);
  if (groups.empty()) {
    return NoRuleError(context,
                       "without replica_groups (its offsets and sizes are "
                       "laid out by the group size, known only when it "
                       "runs)");
  }
  const int64_t peers = groups[0].size();
  const int64_t b = context.batch_size;
  const Shape& input = ragged.operand(0)->shape();
  const Shape& output = ragged.operand(1)->shape();
  std::vector<XlaOp> operands = {
      Stacked(BatchedOperand(context, 0), input, b),
      Stacked(BatchedOperand(context, 1), output, b)};
  // input_offsets, send_sizes, output_offsets, recv_sizes.
  const int64_t moved_by[] = {input.dimensions(0), 0, output.dimensions(0), 0};
  for (int64_t i = 2; i < 6; ++i) {
    operands.push_back(FoldedMetadata(BatchedOperand(context, i),
                                      ragged.operand(i)->shape(), peers, b,
                                      moved_by[i - 2]));
  }
  std::vector<int64_t> stacked(output.dimensions().begin(),
                               output.dimensions().end());
  stacked[0] *= b;
  const XlaOp result =
      EmitCopyOf(context.builder, ragged,
                 ShapeUtil::MakeShape(output.element_type(), stacked), operands,
                 context.callees);
  return Reshape(result, WithBatch(output, b).dimensions());
}

namespace {

// collective-permute's in-place form writes slices at start indices into
// an output buffer: the batch would need its own slice geometry.
bool IsInPlacePermute(const HloInstruction& instruction) {
  return (instruction.opcode() == HloOpcode::kCollectivePermute ||
          instruction.opcode() == HloOpcode::kCollectivePermuteStart) &&
         instruction.operand_count() == 4;
}

}  // namespace

Result BatchingRules::Collective(const BatchContext& context) {
  const HloInstruction& collective = context.instruction;
  if (IsInPlacePermute(collective)) {
    return NoRuleError(context, "in its in-place four-operand form");
  }
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < collective.operand_count(); ++i) {
    operands.push_back(BatchedOperand(context, i));
  }
  return Reemit(context, operands, [&](HloInstruction& copy) {
    if (collective.attributes().Has(AttrId::kDimensions)) {
      copy.set_dimensions(Shifted(collective.dimensions()));
    }
    if (const auto* split =
            collective.attributes().Get<int64_t>(AttrId::kSplitDimension)) {
      copy.mutable_attributes().Set(AttrId::kSplitDimension, *split + 1);
    }
  });
}

Result BatchingRules::Handle(OpTag<Op::kCollectivePermuteStart>,
                             const BatchContext& context) {
  const HloInstruction& start = context.instruction;
  if (IsInPlacePermute(start)) {
    return NoRuleError(context, "in its in-place four-operand form");
  }
  for (const HloInstruction* user : start.users()) {
    const bool reads_array = user->opcode() == HloOpcode::kGetTupleElement &&
                             user->tuple_index() < 2;
    if (user->opcode() != HloOpcode::kCollectivePermuteDone && !reads_array) {
      return NoRuleError(
          context, absl::StrCat("whose u32[] context scalars '", user->name(),
                                "' reads (they must not get the "
                                "batch)"));
    }
  }
  std::vector<Shape> elements = start.shape().tuple_shapes();
  for (int k = 0; k < 2; ++k) {
    elements[k] = WithBatch(elements[k], context.batch_size);
  }
  return EmitCopyOf(context.builder, start, ShapeUtil::MakeTupleShape(elements),
                    {context.operands[0]}, context.callees);
}

Result BatchingRules::Handle(OpTag<Op::kCollectivePermuteDone>,
                             const BatchContext& context) {
  return Reemit(context, {context.operands[0]});
}

}  // namespace mxla::batching_rules
