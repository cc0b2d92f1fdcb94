// Internal to the evaluator: one instruction evaluated on its operands'
// values, with one Handle per op of the op table (ir/hlo_op_visitor.h), so
// an op without a rule here fails to compile. The handlers are defined by
// op family, one file each:
//
//   op_evaluator_elementwise.cc      unary, binary, compare, select, clamp,
//                                    converts
//   op_evaluator_data_movement.cc    iota, broadcast, reshape, slices, pad,
//                                    concatenate, gather, ...
//   op_evaluator_linear_algebra.cc   dots, convolution, batch norm,
//                                    cholesky, triangular solve
//   op_evaluator_reductions.cc       reduce, reduce-window, map, sort,
//                                    scatter, select-and-scatter, scan, top-k
//   op_evaluator_control_flow.cc     parameters, constants, tuples, calls,
//                                    while, conditional, async pairs
//   op_evaluator_devices.cc          host feeds, random numbers, replica ids,
//                                    collectives, send/recv
#ifndef MXLA_INTERPRETER_OP_EVALUATOR_H_
#define MXLA_INTERPRETER_OP_EVALUATOR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_op_visitor.h"
#include "ir/literal.h"

namespace mxla::hlo_evaluator_internal {

class OpEvaluator {
 public:
  using Result = absl::StatusOr<Literal>;
  using Op = HloOpcode;

  OpEvaluator(const HloInstruction& instruction,
              absl::Span<const Literal* const> operands,
              const EvaluatorOptions& options)
      : instruction_(instruction), operands_(operands), options_(options) {}

  // Elementwise.
  template <Op op>
    requires(IsScalarFunctionOp(op))
  Result Handle(OpTag<op>) {
    return ScalarFunction();
  }
  Result Handle(OpTag<Op::kSelect>);
  Result Handle(OpTag<Op::kClamp>);
  Result Handle(OpTag<Op::kConvert>);
  Result Handle(OpTag<Op::kIsFinite>);
  Result Handle(OpTag<Op::kReducePrecision>);
  Result Handle(OpTag<Op::kBitcastConvert>);
  Result Handle(OpTag<Op::kStochasticConvert>);

  // Data movement.
  Result Handle(OpTag<Op::kIota>);
  Result Handle(OpTag<Op::kBroadcast>);
  Result Handle(OpTag<Op::kReshape>);
  Result Handle(OpTag<Op::kBitcast>);
  Result Handle(OpTag<Op::kTranspose>);
  Result Handle(OpTag<Op::kReverse>);
  Result Handle(OpTag<Op::kConcatenate>);
  Result Handle(OpTag<Op::kSlice>);
  Result Handle(OpTag<Op::kDynamicSlice>);
  Result Handle(OpTag<Op::kDynamicUpdateSlice>);
  Result Handle(OpTag<Op::kPad>);
  Result Handle(OpTag<Op::kGather>);
  Result Handle(OpTag<Op::kGetDimensionSize>);

  // Linear algebra.
  Result Handle(OpTag<Op::kDot>);
  Result Handle(OpTag<Op::kRaggedDot>);
  Result Handle(OpTag<Op::kScaledDot>);
  Result Handle(OpTag<Op::kConvolution>);
  Result Handle(OpTag<Op::kCholesky>);
  Result Handle(OpTag<Op::kTriangularSolve>);
  template <Op op>
    requires(OpIn<Op::kBatchNormTraining, Op::kBatchNormInference,
                  Op::kBatchNormGrad>(op))
  Result Handle(OpTag<op>) {
    return BatchNorm();
  }

  // Reductions and the ops that call a computation per element.
  Result Handle(OpTag<Op::kReduce>);
  Result Handle(OpTag<Op::kReduceWindow>);
  Result Handle(OpTag<Op::kMap>);
  Result Handle(OpTag<Op::kSort>);
  Result Handle(OpTag<Op::kScatter>);
  Result Handle(OpTag<Op::kSelectAndScatter>);
  Result Handle(OpTag<Op::kScan>);
  Result Handle(OpTag<Op::kTopK>);

  // Control flow and values that pass through.
  Result Handle(OpTag<Op::kParameter>);
  Result Handle(OpTag<Op::kConstant>);
  Result Handle(OpTag<Op::kTuple>);
  Result Handle(OpTag<Op::kGetTupleElement>);
  Result Handle(OpTag<Op::kCall>);
  Result Handle(OpTag<Op::kFusion>);
  Result Handle(OpTag<Op::kWhile>);
  Result Handle(OpTag<Op::kConditional>);
  Result Handle(OpTag<Op::kCustomCall>);
  Result Handle(OpTag<Op::kAfterAll>);
  template <Op op>
    requires(OpIn<Op::kOptimizationBarrier, Op::kDomain,
                  Op::kAddDependency, Op::kAsyncUpdate>(op))
  Result Handle(OpTag<op>) {
    return PassThrough();
  }
  template <Op op>
    requires(OpIn<Op::kAsyncStart, Op::kCallStart, Op::kCopyStart>(op))
  Result Handle(OpTag<op>) {
    return AsyncStart();
  }
  template <Op op>
    requires(OpIn<Op::kAsyncDone, Op::kCallDone, Op::kCopyDone>(op))
  Result Handle(OpTag<op>) {
    return AsyncDone();
  }

  // Devices, the host and random numbers.
  Result Handle(OpTag<Op::kInfeed>);
  Result Handle(OpTag<Op::kOutfeed>);
  Result Handle(OpTag<Op::kRng>);
  Result Handle(OpTag<Op::kRngBitGenerator>);
  template <Op op>
    requires(OpIn<Op::kReplicaId, Op::kPartitionId>(op))
  Result Handle(OpTag<op>) {
    return DeviceId();
  }
  template <Op op>
    requires(OpIn<Op::kAllReduce, Op::kAllReduceStart, Op::kAllReduceDone,
                  Op::kAllGather, Op::kAllGatherStart, Op::kAllGatherDone,
                  Op::kReduceScatter, Op::kAllToAll, Op::kRaggedAllToAll,
                  Op::kCollectiveBroadcast, Op::kCollectivePermute,
                  Op::kCollectivePermuteStart,
                  Op::kCollectivePermuteDone>(op))
  Result Handle(OpTag<op>) {
    return Collective();
  }
  template <Op op>
    requires(OpIn<Op::kSend, Op::kSendDone, Op::kRecv, Op::kRecvDone>(op))
  Result Handle(OpTag<op>) {
    return Channel();
  }

 private:
  Result ScalarFunction();
  Result BatchNorm();
  Result PassThrough();
  Result AsyncStart();
  Result AsyncDone();
  Result DeviceId();
  Result Collective();
  Result Channel();

  const Literal& operand(int64_t i) const { return *operands_[i]; }
  const Shape& shape() const { return instruction_.shape(); }

  const HloInstruction& instruction_;
  absl::Span<const Literal* const> operands_;
  const EvaluatorOptions& options_;
};

}  // namespace mxla::hlo_evaluator_internal

#endif  // MXLA_INTERPRETER_OP_EVALUATOR_H_
