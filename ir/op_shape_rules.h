// The verifier's shape rule of every op (the `shape_rule` column of
// ir/hlo_ops.def): the shape an instruction must have given its operands
// and attributes, or InvalidArgument saying why it has none. Each adapts
// the instruction to ShapeInference; rules whose checks are not a shape
// computation (parameter, iota, broadcast) check and return the declared
// shape. Past HloForm::kBuilder the elementwise rules also reject implicit
// broadcasts.
#ifndef MXLA_IR_OP_SHAPE_RULES_H_
#define MXLA_IR_OP_SHAPE_RULES_H_

#include "absl/status/statusor.h"
#include "ir/shape.h"
#include "ir/hlo_form.h"

namespace mxla {

class HloInstruction;

namespace shape_rules {

#define MXLA_DECLARE_SHAPE_RULE(name)                                   \
  absl::StatusOr<Shape> name(const HloInstruction& instruction,         \
                             VerifierMode mode);
MXLA_DECLARE_SHAPE_RULE(Parameter)
MXLA_DECLARE_SHAPE_RULE(Constant)
MXLA_DECLARE_SHAPE_RULE(Iota)
MXLA_DECLARE_SHAPE_RULE(Unary)
MXLA_DECLARE_SHAPE_RULE(Binary)
MXLA_DECLARE_SHAPE_RULE(Select)
MXLA_DECLARE_SHAPE_RULE(Convert)
MXLA_DECLARE_SHAPE_RULE(Broadcast)
MXLA_DECLARE_SHAPE_RULE(Reshape)
MXLA_DECLARE_SHAPE_RULE(Transpose)
MXLA_DECLARE_SHAPE_RULE(Reduce)
MXLA_DECLARE_SHAPE_RULE(Call)
MXLA_DECLARE_SHAPE_RULE(Slice)
MXLA_DECLARE_SHAPE_RULE(Concatenate)
MXLA_DECLARE_SHAPE_RULE(DynamicSlice)
MXLA_DECLARE_SHAPE_RULE(While)
MXLA_DECLARE_SHAPE_RULE(Conditional)
MXLA_DECLARE_SHAPE_RULE(Collective)
MXLA_DECLARE_SHAPE_RULE(Sort)
MXLA_DECLARE_SHAPE_RULE(Async)
MXLA_DECLARE_SHAPE_RULE(Map)
MXLA_DECLARE_SHAPE_RULE(Gather)
MXLA_DECLARE_SHAPE_RULE(Convolution)
MXLA_DECLARE_SHAPE_RULE(ReduceWindow)
MXLA_DECLARE_SHAPE_RULE(Scatter)
MXLA_DECLARE_SHAPE_RULE(SelectAndScatter)
MXLA_DECLARE_SHAPE_RULE(Pad)
MXLA_DECLARE_SHAPE_RULE(DeviceId)
MXLA_DECLARE_SHAPE_RULE(CustomCall)
MXLA_DECLARE_SHAPE_RULE(DynamicUpdateSlice)
MXLA_DECLARE_SHAPE_RULE(Bitcast)
MXLA_DECLARE_SHAPE_RULE(Dot)
MXLA_DECLARE_SHAPE_RULE(Tuple)
MXLA_DECLARE_SHAPE_RULE(GetTupleElement)
MXLA_DECLARE_SHAPE_RULE(Fusion)
MXLA_DECLARE_SHAPE_RULE(IsFinite)
MXLA_DECLARE_SHAPE_RULE(Clamp)
MXLA_DECLARE_SHAPE_RULE(ReducePrecision)
MXLA_DECLARE_SHAPE_RULE(BitcastConvert)
MXLA_DECLARE_SHAPE_RULE(Reverse)
MXLA_DECLARE_SHAPE_RULE(GetDimensionSize)
MXLA_DECLARE_SHAPE_RULE(OptimizationBarrier)
MXLA_DECLARE_SHAPE_RULE(AfterAll)
MXLA_DECLARE_SHAPE_RULE(AddDependency)
MXLA_DECLARE_SHAPE_RULE(Channel)
MXLA_DECLARE_SHAPE_RULE(Scan)
MXLA_DECLARE_SHAPE_RULE(TopK)
MXLA_DECLARE_SHAPE_RULE(Rng)
MXLA_DECLARE_SHAPE_RULE(RngBitGenerator)
MXLA_DECLARE_SHAPE_RULE(RaggedDot)
MXLA_DECLARE_SHAPE_RULE(ScaledDot)
MXLA_DECLARE_SHAPE_RULE(Infeed)
MXLA_DECLARE_SHAPE_RULE(Outfeed)
MXLA_DECLARE_SHAPE_RULE(BatchNorm)
MXLA_DECLARE_SHAPE_RULE(Cholesky)
MXLA_DECLARE_SHAPE_RULE(TriangularSolve)
MXLA_DECLARE_SHAPE_RULE(StochasticConvert)
#undef MXLA_DECLARE_SHAPE_RULE

}  // namespace shape_rules
}  // namespace mxla

#endif  // MXLA_IR_OP_SHAPE_RULES_H_
