// The handler set behind OperandCotangentsOf, shared by the files that
// define its rules by op family: elementwise_gradients.cc,
// shape_gradients.cc, contraction_gradients.cc, convolution_gradients.cc,
// window_gradients.cc, window_select_gradients.cc,
// gather_scatter_gradients.cc, sort_gradients.cc, map_gradients.cc,
// conditional_gradients.cc, loop_gradients.cc, runtime_loop_gradients.cc,
// collective_gradients.cc, call_gradients.cc, lowered_op_gradients.cc,
// rng_gradients.cc and linear_algebra_gradients.cc.
#ifndef MXLA_TRANSFORMS_GRADIENT_RULES_INTERNAL_H_
#define MXLA_TRANSFORMS_GRADIENT_RULES_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "ir/hlo_module.h"
#include "ir/hlo_op_visitor.h"
#include "ir/window.h"
#include "transforms/gradient_rules.h"

namespace mxla::gradient_rules {

using Op = HloOpcode;
using Result = absl::StatusOr<OperandCotangents>;

// Ops whose result is never floating-point, so no cotangent reaches them.
constexpr bool HasNoFloatResult(HloOpcode op) {
  return OpIn<Op::kNot, Op::kPopulationCount, Op::kClz, Op::kAnd, Op::kOr,
              Op::kXor, Op::kShiftLeft, Op::kShiftRightArithmetic,
              Op::kShiftRightLogical, Op::kCompare, Op::kIsFinite,
              Op::kGetDimensionSize, Op::kReplicaId, Op::kPartitionId,
              Op::kAfterAll>(op);
}

// Ops with no operands: their cotangent goes nowhere.
constexpr bool IsLeafOp(HloOpcode op) {
  return OpIn<Op::kParameter, Op::kConstant, Op::kIota>(op);
}

// Ops that pass their first operand's value through unchanged.
constexpr bool IsIdentityOp(HloOpcode op) {
  return OpIn<Op::kCopy, Op::kDomain, Op::kReducePrecision,
              Op::kAddDependency, Op::kOptimizationBarrier>(op);
}

// Ops whose operands get no cotangent, as JAX decides: bitcast-convert
// (JAX's defjvp_zero: its bits mean another number), and the ops whose
// values are integers (rng-bit-generator's state and bits,
// stochastic-convert's result), which no cotangent reaches anyway.
constexpr bool HasZeroDerivative(HloOpcode op) {
  return OpIn<Op::kBitcastConvert, Op::kRngBitGenerator,
              Op::kStochasticConvert>(op);
}

// Ops without a rule yet: Gradient refuses them by name.
constexpr bool HasNoRuleYet(HloOpcode op) {
  return OpIn<Op::kSend, Op::kSendDone,
              Op::kRecv, Op::kRecvDone, Op::kInfeed, Op::kOutfeed,
              Op::kAsyncStart, Op::kAsyncUpdate, Op::kAsyncDone,
              Op::kCallStart, Op::kCallDone>(op);
}

// Why an op of HasNoRuleYet has none, for its refusal; empty where the
// rule is simply not written yet (gradient_rules.cc).
absl::string_view NoRuleReason(HloOpcode op);

constexpr bool IsDifferentiableUnaryOp(HloOpcode op) {
  return OpCategory(op) == HloOpcodeCategory::kUnary &&
         !HasNoFloatResult(op) && !IsIdentityOp(op);
}
constexpr bool IsDifferentiableBinaryOp(HloOpcode op) {
  return OpCategory(op) == HloOpcodeCategory::kBinary && !HasNoFloatResult(op);
}

// The derivative of a unary op at x (y = op(x)), elementwise; an invalid op
// where it is zero everywhere it exists (floor, sign, ...). One overload
// per differentiable unary op (elementwise_gradients.cc).
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, ...) XlaOp Derivative(OpTag<Op::e>, XlaOp x, XlaOp y);
#include "ir/hlo_ops.def"

// The cotangents of a binary op's two operands (elementwise_gradients.cc).
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, ...) \
  Result BinaryCotangents(OpTag<Op::e>, const GradientContext& context);
#include "ir/hlo_ops.def"

// The cotangent of the instruction's result, an array's or a tuple's.
inline Cotangent ResultCotangent(const GradientContext& context) {
  if (!context.instruction.shape().IsTuple()) return context.cotangent;
  return Cotangent::OfTuple(context.tuple_cotangent);
}

// A refusal naming the op and the instruction; with `what`, the form of
// the op that has no rule ("with window dilation").
absl::Status NoRuleError(const GradientContext& context);
absl::Status NoRuleError(const GradientContext& context,
                         absl::string_view what);

class GradientRules {
 public:
  template <HloOpcode op>
    requires(IsLeafOp(op))
  Result Handle(OpTag<op>, const GradientContext&) {
    return OperandCotangents{};
  }
  template <HloOpcode op>
    requires(HasNoFloatResult(op))
  Result Handle(OpTag<op>, const GradientContext& context);
  template <HloOpcode op>
    requires(IsIdentityOp(op))
  Result Handle(OpTag<op>, const GradientContext& context) {
    OperandCotangents cotangents(context.operands.size());
    cotangents[0] = ResultCotangent(context);
    return cotangents;
  }
  template <HloOpcode op>
    requires(HasZeroDerivative(op))
  Result Handle(OpTag<op>, const GradientContext& context) {
    return OperandCotangents(context.operands.size());
  }
  template <HloOpcode op>
    requires(HasNoRuleYet(op))
  Result Handle(OpTag<op>, const GradientContext& context) {
    return NoRuleError(context, NoRuleReason(op));
  }
  template <HloOpcode op>
    requires(IsDifferentiableUnaryOp(op))
  Result Handle(OpTag<op>, const GradientContext& context);
  template <HloOpcode op>
    requires(IsDifferentiableBinaryOp(op))
  Result Handle(OpTag<op>, const GradientContext& context) {
    return BinaryCotangents(OpTag<op>{}, context);
  }

  // elementwise_gradients.cc
  Result Handle(OpTag<Op::kSelect>, const GradientContext& context);
  Result Handle(OpTag<Op::kClamp>, const GradientContext& context);
  Result Handle(OpTag<Op::kConvert>, const GradientContext& context);
  // shape_gradients.cc
  Result Handle(OpTag<Op::kBroadcast>, const GradientContext& context);
  Result Handle(OpTag<Op::kReshape>, const GradientContext& context);
  Result Handle(OpTag<Op::kBitcast>, const GradientContext& context);
  Result Handle(OpTag<Op::kTranspose>, const GradientContext& context);
  Result Handle(OpTag<Op::kReverse>, const GradientContext& context);
  Result Handle(OpTag<Op::kSlice>, const GradientContext& context);
  Result Handle(OpTag<Op::kPad>, const GradientContext& context);
  Result Handle(OpTag<Op::kConcatenate>, const GradientContext& context);
  Result Handle(OpTag<Op::kDynamicSlice>, const GradientContext& context);
  Result Handle(OpTag<Op::kDynamicUpdateSlice>,
                const GradientContext& context);
  Result Handle(OpTag<Op::kTuple>, const GradientContext& context);
  Result Handle(OpTag<Op::kGetTupleElement>, const GradientContext& context);
  // contraction_gradients.cc
  Result Handle(OpTag<Op::kDot>, const GradientContext& context);
  Result Handle(OpTag<Op::kReduce>, const GradientContext& context);
  // convolution_gradients.cc
  Result Handle(OpTag<Op::kConvolution>, const GradientContext& context);
  // window_gradients.cc
  Result Handle(OpTag<Op::kReduceWindow>, const GradientContext& context);
  // gather_scatter_gradients.cc
  Result Handle(OpTag<Op::kGather>, const GradientContext& context);
  Result Handle(OpTag<Op::kScatter>, const GradientContext& context);
  // sort_gradients.cc
  Result Handle(OpTag<Op::kSort>, const GradientContext& context);
  // loop_gradients.cc (runtime_loop_gradients.cc when the trip count is
  // known only at run time)
  Result Handle(OpTag<Op::kWhile>, const GradientContext& context);
  // window_select_gradients.cc
  Result Handle(OpTag<Op::kSelectAndScatter>, const GradientContext& context);
  // map_gradients.cc
  Result Handle(OpTag<Op::kMap>, const GradientContext& context);
  // conditional_gradients.cc
  Result Handle(OpTag<Op::kConditional>, const GradientContext& context);
  // collective_gradients.cc
  Result Handle(OpTag<Op::kAllReduce>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllReduceStart>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllReduceDone>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllGather>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllGatherStart>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllGatherDone>, const GradientContext& context);
  Result Handle(OpTag<Op::kReduceScatter>, const GradientContext& context);
  Result Handle(OpTag<Op::kAllToAll>, const GradientContext& context);
  Result Handle(OpTag<Op::kCollectivePermute>, const GradientContext& context);
  Result Handle(OpTag<Op::kCollectivePermuteStart>,
                const GradientContext& context);
  Result Handle(OpTag<Op::kCollectivePermuteDone>,
                const GradientContext& context);
  Result Handle(OpTag<Op::kCollectiveBroadcast>,
                const GradientContext& context);
  Result Handle(OpTag<Op::kRaggedAllToAll>, const GradientContext& context);
  // call_gradients.cc
  Result Handle(OpTag<Op::kCall>, const GradientContext& context);
  Result Handle(OpTag<Op::kCustomCall>, const GradientContext& context);
  Result Handle(OpTag<Op::kFusion>, const GradientContext& context);
  Result Handle(OpTag<Op::kCopyStart>, const GradientContext& context);
  Result Handle(OpTag<Op::kCopyDone>, const GradientContext& context);
  // lowered_op_gradients.cc
  Result Handle(OpTag<Op::kBatchNormTraining>, const GradientContext& context);
  Result Handle(OpTag<Op::kBatchNormInference>,
                const GradientContext& context);
  Result Handle(OpTag<Op::kBatchNormGrad>, const GradientContext& context);
  Result Handle(OpTag<Op::kRaggedDot>, const GradientContext& context);
  Result Handle(OpTag<Op::kScaledDot>, const GradientContext& context);
  Result Handle(OpTag<Op::kTopK>, const GradientContext& context);
  Result Handle(OpTag<Op::kScan>, const GradientContext& context);
  // rng_gradients.cc
  Result Handle(OpTag<Op::kRng>, const GradientContext& context);
  // linear_algebra_gradients.cc
  Result Handle(OpTag<Op::kCholesky>, const GradientContext& context);
  Result Handle(OpTag<Op::kTriangularSolve>, const GradientContext& context);
};

template <HloOpcode op>
  requires(HasNoFloatResult(op))
Result GradientRules::Handle(OpTag<op>, const GradientContext& context) {
  return absl::InternalError(
      absl::StrCat("gradient: a cotangent reached '",
                   context.instruction.name(), "', whose op has no "
                   "floating-point result"));
}

template <HloOpcode op>
  requires(IsDifferentiableUnaryOp(op))
Result GradientRules::Handle(OpTag<op>, const GradientContext& context) {
  const XlaOp derivative =
      Derivative(OpTag<op>{}, context.operands[0], context.result);
  if (!derivative.valid()) return OperandCotangents(1);
  return OperandCotangents{Mul(context.cotangent, derivative)};
}

// Helpers the rules share (gradient_rules.cc).
// An array of `like`'s shape and type filled with `value`.
XlaOp Filled(XlaOp like, double value);
// The sum of `value` over `dimensions`.
XlaOp SumOver(XlaOp value, absl::Span<const int64_t> dimensions);
// `value` converted to `type` when it has another element type.
XlaOp ConvertTo(XlaOp value, PrimitiveType type);
// The shape of a valid op of the gradient's builder.
Shape ShapeOf(XlaOp op);
// A computation of two scalars of `type` returning body(lhs, rhs), built
// in a sub-builder of `builder` (comparators, scatter's update).
absl::StatusOr<XlaComputation> ScalarComputation(
    XlaBuilder& builder, const std::string& name, PrimitiveType type,
    const std::function<XlaOp(XlaOp, XlaOp)>& body);
// JAX's _conv_general_vjp_lhs_padding for one window dimension: the
// padding that, with the window's stride as lhs dilation, lays a window
// op's result cotangent (`out` long) back over its `in` long operand
// (convolution_gradients.cc).
std::pair<int64_t, int64_t> TransposedWindowPadding(int64_t in, int64_t out,
                                                    const WindowDimension& w);
// The cotangents of `context.instruction`'s floating-point array operands
// through the ops it lowers to: the instruction alone in a computation of
// its operands, rewritten by `lower` (passes that expand it), then that
// computation's vector-Jacobian product, taken with those ops' rules (as
// the JIT runs the op, so the gradient is of what runs). A failure of
// `lower` is refused naming the op, as `refusal` followed by the failure's
// message in parentheses (lowered_op_gradients.cc).
Result LoweredOpCotangents(
    const GradientContext& context,
    const std::function<absl::Status(HloModule&)>& lower,
    absl::string_view refusal = "that its expansion refuses");
// The same with `lower` the pipeline of `passes` (pass_registry names).
Result LoweredOpCotangents(
    const GradientContext& context, const std::vector<std::string>& passes,
    absl::string_view refusal = "that its expansion refuses");
// The cotangent of a while loop's init whose trip count is known only at
// run time, by rematerializing each trip's state
// (runtime_loop_gradients.cc).
Result RuntimeLoopCotangents(const GradientContext& context);
// A reduce with a multiply reducer (product_gradients.cc).
Result ProductReduceCotangents(const GradientContext& context);

}  // namespace mxla::gradient_rules

#endif  // MXLA_TRANSFORMS_GRADIENT_RULES_INTERNAL_H_
