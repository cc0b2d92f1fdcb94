// The handler set behind BatchedValueOf, shared by the files that define
// its rules by op family: elementwise_batching.cc, shape_batching.cc and
// contraction_batching.cc, convolution_batching.cc, gather_batching.cc,
// scatter_batching.cc, sort_batching.cc, loop_batching.cc,
// select_and_scatter_batching.cc, linear_algebra_batching.cc,
// rng_batching.cc, rng_bit_generator_batching.cc, collective_batching.cc,
// call_batching.cc and expanded_batching.cc.
#ifndef MXLA_TRANSFORMS_BATCHING_RULES_INTERNAL_H_
#define MXLA_TRANSFORMS_BATCHING_RULES_INTERNAL_H_

#include <vector>

#include "ir/hlo_op_visitor.h"
#include "transforms/batching_rules.h"

namespace mxla::batching_rules {

using Op = HloOpcode;
using Result = absl::StatusOr<XlaOp>;

// Ops with no operands: nothing of theirs is ever batched.
constexpr bool IsLeafOp(HloOpcode op) {
  return OpIn<Op::kParameter, Op::kConstant, Op::kIota, Op::kReplicaId,
              Op::kPartitionId>(op);
}

// Collectives whose batched form is the collective over operands with the
// batch at dimension 0, dimension attributes moved past it
// (collective_batching.cc).
constexpr bool IsBatchedCollective(HloOpcode op) {
  return OpIn<Op::kAllReduce, Op::kAllReduceStart, Op::kAllReduceDone,
              Op::kAllGather, Op::kAllGatherStart, Op::kAllGatherDone,
              Op::kReduceScatter, Op::kAllToAll, Op::kCollectivePermute,
              Op::kCollectiveBroadcast>(op);
}

// Ops computed element by element from operands of the result's
// dimensions (or scalars, for clamp's bounds): batched by running them on
// operands with a leading batch dimension.
constexpr bool IsPerElementOp(HloOpcode op) {
  return OpCategory(op) == HloOpcodeCategory::kUnary ||
         OpCategory(op) == HloOpcodeCategory::kBinary ||
         OpIn<Op::kCompare, Op::kSelect, Op::kConvert, Op::kIsFinite,
              Op::kClamp, Op::kReducePrecision, Op::kDomain, Op::kMap,
              Op::kStochasticConvert>(op);
}

// Ops that have their own rule: the Handle overloads below (each under
// the name of its file), and the batched collectives.
constexpr bool HasOwnRule(HloOpcode op) {
  return OpIn<Op::kBroadcast, Op::kReshape, Op::kBitcast, Op::kTranspose,
              Op::kReverse, Op::kSlice, Op::kPad, Op::kConcatenate,
              Op::kDynamicSlice, Op::kDynamicUpdateSlice, Op::kDot,
              Op::kReduce, Op::kReduceWindow, Op::kTuple,
              Op::kGetTupleElement, Op::kBitcastConvert, Op::kConvolution,
              Op::kGather, Op::kScatter, Op::kSort, Op::kWhile,
              Op::kSelectAndScatter, Op::kCholesky, Op::kTriangularSolve,
              Op::kRng, Op::kRngBitGenerator, Op::kCollectivePermuteStart,
              Op::kCollectivePermuteDone, Op::kRaggedAllToAll, Op::kCall, Op::kConditional,
              Op::kOptimizationBarrier, Op::kTopK, Op::kBatchNormTraining,
              Op::kBatchNormInference, Op::kBatchNormGrad, Op::kRaggedDot,
              Op::kScaledDot, Op::kScan>(op) ||
         IsBatchedCollective(op);
}

constexpr bool HasNoRuleYet(HloOpcode op) {
  return !IsLeafOp(op) && !IsPerElementOp(op) && !HasOwnRule(op);
}

absl::Status NoRuleError(const BatchContext& context, absl::string_view why = "");

class BatchingRules {
 public:
  template <HloOpcode op>
    requires(IsLeafOp(op))
  Result Handle(OpTag<op>, const BatchContext& context) {
    return absl::InternalError(absl::StrCat(
        "vmap: leaf '", context.instruction.name(), "' has no operands"));
  }
  template <HloOpcode op>
    requires(IsPerElementOp(op))
  Result Handle(OpTag<op>, const BatchContext& context) {
    return PerElement(context);
  }
  template <HloOpcode op>
    requires(IsBatchedCollective(op))
  Result Handle(OpTag<op>, const BatchContext& context) {
    return Collective(context);
  }
  template <HloOpcode op>
    requires(HasNoRuleYet(op))
  Result Handle(OpTag<op>, const BatchContext& context) {
    return NoRuleError(context);
  }

  // elementwise_batching.cc
  Result Handle(OpTag<Op::kBitcastConvert>, const BatchContext& context);
  // shape_batching.cc
  Result Handle(OpTag<Op::kBroadcast>, const BatchContext& context);
  Result Handle(OpTag<Op::kReshape>, const BatchContext& context);
  Result Handle(OpTag<Op::kBitcast>, const BatchContext& context);
  Result Handle(OpTag<Op::kTranspose>, const BatchContext& context);
  Result Handle(OpTag<Op::kReverse>, const BatchContext& context);
  Result Handle(OpTag<Op::kSlice>, const BatchContext& context);
  Result Handle(OpTag<Op::kPad>, const BatchContext& context);
  Result Handle(OpTag<Op::kConcatenate>, const BatchContext& context);
  Result Handle(OpTag<Op::kDynamicSlice>, const BatchContext& context);
  Result Handle(OpTag<Op::kDynamicUpdateSlice>, const BatchContext& context);
  Result Handle(OpTag<Op::kTuple>, const BatchContext& context);
  Result Handle(OpTag<Op::kGetTupleElement>, const BatchContext& context);
  // contraction_batching.cc
  Result Handle(OpTag<Op::kDot>, const BatchContext& context);
  Result Handle(OpTag<Op::kReduce>, const BatchContext& context);
  Result Handle(OpTag<Op::kReduceWindow>, const BatchContext& context);
  // convolution_batching.cc
  Result Handle(OpTag<Op::kConvolution>, const BatchContext& context);
  // gather_batching.cc
  Result Handle(OpTag<Op::kGather>, const BatchContext& context);
  // scatter_batching.cc
  Result Handle(OpTag<Op::kScatter>, const BatchContext& context);
  // sort_batching.cc
  Result Handle(OpTag<Op::kSort>, const BatchContext& context);
  // loop_batching.cc
  Result Handle(OpTag<Op::kWhile>, const BatchContext& context);
  // select_and_scatter_batching.cc
  Result Handle(OpTag<Op::kSelectAndScatter>, const BatchContext& context);
  // linear_algebra_batching.cc
  Result Handle(OpTag<Op::kCholesky>, const BatchContext& context);
  Result Handle(OpTag<Op::kTriangularSolve>, const BatchContext& context);
  // rng_batching.cc
  Result Handle(OpTag<Op::kRng>, const BatchContext& context);
  // rng_bit_generator_batching.cc
  Result Handle(OpTag<Op::kRngBitGenerator>, const BatchContext& context);
  // collective_batching.cc
  Result Handle(OpTag<Op::kCollectivePermuteStart>,
                const BatchContext& context);
  Result Handle(OpTag<Op::kCollectivePermuteDone>,
                const BatchContext& context);
  Result Handle(OpTag<Op::kRaggedAllToAll>, const BatchContext& context);
  // call_batching.cc
  Result Handle(OpTag<Op::kCall>, const BatchContext& context);
  Result Handle(OpTag<Op::kConditional>, const BatchContext& context);
  Result Handle(OpTag<Op::kOptimizationBarrier>, const BatchContext& context);
  Result Handle(OpTag<Op::kTopK>, const BatchContext& context);
  // expanded_batching.cc
  Result Handle(OpTag<Op::kBatchNormTraining>, const BatchContext& context);
  Result Handle(OpTag<Op::kBatchNormInference>, const BatchContext& context);
  Result Handle(OpTag<Op::kBatchNormGrad>, const BatchContext& context);
  Result Handle(OpTag<Op::kRaggedDot>, const BatchContext& context);
  Result Handle(OpTag<Op::kScaledDot>, const BatchContext& context);
  Result Handle(OpTag<Op::kScan>, const BatchContext& context);

 private:
  static Result PerElement(const BatchContext& context);
  // collective_batching.cc
  static Result Collective(const BatchContext& context);
};

// Helpers the rules share (batching_rules.cc).
// `shape` with a leading dimension of `batch_size` (each element of a
// tuple shape).
Shape WithBatch(const Shape& shape, int64_t batch_size);
// Operand i with the batch at dimension 0, broadcast along it when it is
// not batched.
XlaOp BatchedOperand(const BatchContext& context, int64_t i);
// The instruction re-emitted on `operands` with the batched shape, after
// `adjust` moves its dimension attributes past the batch.
XlaOp Reemit(const BatchContext& context, absl::Span<const XlaOp> operands,
             absl::FunctionRef<void(HloInstruction&)> adjust =
                 [](HloInstruction&) {});
// Each of `dimensions` plus one (past the leading batch dimension).
std::vector<int64_t> Shifted(absl::Span<const int64_t> dimensions);
// 0, then each of `dimensions` plus one.
std::vector<int64_t> WithLeadingZero(absl::Span<const int64_t> dimensions);

}  // namespace mxla::batching_rules

#endif  // MXLA_TRANSFORMS_BATCHING_RULES_INTERNAL_H_
