// Scalar reducer computations for Reduce, as in XLA's
// xla/hlo/builder/lib/arithmetic.h. Each takes two scalars of `type` and
// returns one; `builder` names the new computation after its parent.
//
// `builder` must be non-null. The result is a separate computation (Reduce
// copies it in); `builder` only lends its name and receives errors: a
// non-array `type` records InvalidArgument there and returns an f32 reducer,
// so the caller's next op on `builder` is skipped. Every array type works,
// pred included.
#ifndef MXLA_BUILDER_ARITHMETIC_H_
#define MXLA_BUILDER_ARITHMETIC_H_

#include "builder/xla_builder.h"

namespace mxla {

XlaComputation CreateScalarAddComputation(PrimitiveType type,
                                          XlaBuilder* builder);
XlaComputation CreateScalarMulComputation(PrimitiveType type,
                                          XlaBuilder* builder);
XlaComputation CreateScalarMaxComputation(PrimitiveType type,
                                          XlaBuilder* builder);
XlaComputation CreateScalarMinComputation(PrimitiveType type,
                                          XlaBuilder* builder);

}  // namespace mxla

#endif  // MXLA_BUILDER_ARITHMETIC_H_
