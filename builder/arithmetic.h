// Scalar reducer computations for Reduce, as in XLA's
// xla/hlo/builder/lib/arithmetic.h. Each takes two scalars of `type` and
// returns one; `builder` names the new computation after its parent.
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
