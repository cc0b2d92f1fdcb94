// The batching rules of cholesky and triangular-solve: both take leading
// batch dimensions of their own ([..., n, n]), so a batch at dimension 0
// is one more of them. triangular-solve's two operands both get it (an
// unbatched one broadcast along it).
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {

Result BatchingRules::Handle(OpTag<Op::kCholesky>,
                             const BatchContext& context) {
  return Reemit(context, {BatchedOperand(context, 0)});
}

Result BatchingRules::Handle(OpTag<Op::kTriangularSolve>,
                             const BatchContext& context) {
  return Reemit(context,
                {BatchedOperand(context, 0), BatchedOperand(context, 1)});
}

}  // namespace mxla::batching_rules
