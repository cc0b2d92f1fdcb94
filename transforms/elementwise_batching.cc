// The batching rule of bitcast-convert, the one per-element op whose
// operand and result can differ in rank: between types of one width it
// is per element; between widths it adds or drops a last dimension,
// which the batch at dimension 0 does not touch either.
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kBitcastConvert>,
                             const BatchContext& context) {
  return Reemit(context, {BatchedOperand(context, 0)});
}

}  // namespace mxla::batching_rules
