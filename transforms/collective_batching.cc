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
// Refused by name: ragged-all-to-all (its offsets and sizes count rows of
// one example's input; batching it means folding the batch into them).
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Collective(const BatchContext& context) {
  const HloInstruction& collective = context.instruction;
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

Result BatchingRules::RefusedCollective(const BatchContext& context) {
  return NoRuleError(context,
                     "(its offsets and sizes count rows of one example's "
                     "input)");
}

Result BatchingRules::Handle(OpTag<Op::kCollectivePermuteStart>,
                             const BatchContext& context) {
  const HloInstruction& start = context.instruction;
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
