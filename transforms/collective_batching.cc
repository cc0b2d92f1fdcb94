// The batching rules of the collectives. Every device runs the same
// vmapped program, so example b of one device meets example b of the
// others: a collective over operands with the batch at dimension 0 is the
// per-example collective, provided its own dimension attributes (the
// gather, scatter or split dimension) move past the batch. An unbatched
// operand of a variadic collective is broadcast along the batch. The
// asynchronous all-reduce and all-gather pairs batch alike: every element
// of a start's value is an array of the operand's or the result's shape.
//
// Refused by name: ragged-all-to-all (its offsets and sizes count rows of
// one example's input; batching it means folding the batch into them) and
// collective-permute-start/done (the start's value carries two u32[]
// context scalars, which must not get the batch; batch the synchronous
// collective-permute, which the jit splits itself).
#include <vector>

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
  if (context.instruction.opcode() == HloOpcode::kRaggedAllToAll) {
    return NoRuleError(context,
                       "(its offsets and sizes count rows of one example's "
                       "input)");
  }
  return NoRuleError(context,
                     "(its start carries u32[] context scalars the batch must "
                     "not reach: vmap the synchronous collective-permute)");
}

}  // namespace mxla::batching_rules
