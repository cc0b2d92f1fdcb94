// NumPy-style binary ops: the client-level convenience XLA's "Broadcasting
// semantics" invites. They infer broadcast_dimensions by NumPy's rule,
// aligning the lower-rank operand with the trailing dimensions of the other,
// so numpy::Add(x /*[2,3]*/, v /*[3]*/) is Add(x, v, {1}), and then size-1
// dimensions stretch on either side as XLA's degenerate broadcasting
// allows ([4,1,5] + [3,1] gives [4,3,5], as in NumPy). The core builder ops
// (builder/ops.h) stay strict: there, mismatched ranks need explicit
// broadcast_dimensions. Shapes NumPy would reject are rejected here with the
// core op's error (naming the op, the shapes and the dimension).
#ifndef MXLA_BUILDER_NUMPY_H_
#define MXLA_BUILDER_NUMPY_H_

#include <cstdint>
#include <vector>

#include "builder/xla_builder.h"

namespace mxla::numpy {

// The broadcast_dimensions NumPy's alignment gives for operands of these
// ranks: the trailing dimensions of the higher-rank one, or none for equal
// ranks and scalars.
std::vector<int64_t> TrailingBroadcastDimensions(int64_t lhs_rank,
                                                 int64_t rhs_rank);

// Each op is the builder/ops.h op of the same name with
// broadcast_dimensions = TrailingBroadcastDimensions(ranks), so it has that
// op's element-type rules, errors and invalid-operand behavior.
#define MXLA_DECLARE_NUMPY_BINARY_OP(Name) \
  XlaOp Name(XlaOp lhs, XlaOp rhs,         \
             SourceLocation location = SourceLocation::current());
MXLA_DECLARE_NUMPY_BINARY_OP(Add)
MXLA_DECLARE_NUMPY_BINARY_OP(Sub)
MXLA_DECLARE_NUMPY_BINARY_OP(Mul)
MXLA_DECLARE_NUMPY_BINARY_OP(Div)
MXLA_DECLARE_NUMPY_BINARY_OP(Rem)
MXLA_DECLARE_NUMPY_BINARY_OP(Max)
MXLA_DECLARE_NUMPY_BINARY_OP(Min)
MXLA_DECLARE_NUMPY_BINARY_OP(Pow)
MXLA_DECLARE_NUMPY_BINARY_OP(And)
MXLA_DECLARE_NUMPY_BINARY_OP(Or)
MXLA_DECLARE_NUMPY_BINARY_OP(Xor)
MXLA_DECLARE_NUMPY_BINARY_OP(Eq)
MXLA_DECLARE_NUMPY_BINARY_OP(Ne)
MXLA_DECLARE_NUMPY_BINARY_OP(Lt)
MXLA_DECLARE_NUMPY_BINARY_OP(Le)
MXLA_DECLARE_NUMPY_BINARY_OP(Gt)
MXLA_DECLARE_NUMPY_BINARY_OP(Ge)
#undef MXLA_DECLARE_NUMPY_BINARY_OP

}  // namespace mxla::numpy

#endif  // MXLA_BUILDER_NUMPY_H_
