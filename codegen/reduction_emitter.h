// The body of an input fusion: a reduce at the root, its producers fused in
// and generated element by element (never materialized).
//
// Each output element starts from its init value and folds in its reduced
// elements in increasing row-major order, as the evaluator does. The loop
// orders and splits follow the fusion's ReductionPlan (ir/fusion_plan.h,
// chosen by passes/fusion_planning.h), none of them depends on the thread
// count:
//   * column_block > 0, the last dimension is kept (e.g. a column sum): per
//     unit, one block of column_block elements of an output row; the
//     block is the accumulator and the innermost loop runs along it, so the
//     loop vectorizes across output elements and keeps the exact order. Blocks split the work among
//     threads without changing any element's order.
//   * the operand's last dimension is reduced: per output element, a loop
//     nest over the reduced dimensions with the accumulator in a register;
//     with CodegenOptions::reassociate_reductions, plain float add
//     reducers are reassociated so this loop gets vector accumulators.
//   * chunks > 0, as the previous one but each output's reduced range is
//     cut into chunks of chunk_elements, one unit each, whose partial
//     results go to a scratch buffer; EmitReductionCombine then folds the
//     init value and the partials in chunk order.
#ifndef MXLA_CODEGEN_REDUCTION_EMITTER_H_
#define MXLA_CODEGEN_REDUCTION_EMITTER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/elemental_emitter.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_instruction.h"

namespace mxla::codegen {

// Whether `reducer` may be reassociated: a plain add (one output). No
// other reducer ever is: not even multiply, whose reordered partial
// products overflow or underflow where the sequential ones do not.
bool MayReassociate(const HloComputation& reducer);

// acc = reducer(acc..., x...) for `reduce`'s to_apply, emitted inline.
// With `reassociate`, a plain add reducer (MayReassociate) carries
// the reassoc flag; every other reducer keeps its exact order. Loops fold
// through ReductionAccumulator, which holds a reassociated float
// maximum/minimum in a form of its own.
absl::StatusOr<std::vector<llvm::Value*>> ApplyReducer(
    llvm::IRBuilder<>& b, const HloInstruction& reduce,
    const std::vector<llvm::Value*>& accumulators,
    const std::vector<llvm::Value*>& elements, bool reassociate);

// Emits the loops for units [begin, end) of `reduce` (the fused
// computation's root) as `plan` cuts them, writing `outputs` (one buffer
// per result), or with plan.chunks the partial results into `scratch`.
absl::Status EmitReduction(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                           ElementalEmitter& fused,
                           const std::vector<llvm::Value*>& outputs,
                           llvm::Value* scratch, llvm::Value* begin,
                           llvm::Value* end, const ReductionPlan& plan,
                           const CodegenOptions& options);

// For plan.chunks > 0: output[o] = init folded with o's partials from
// `scratch`, in chunk order, for every output element.
absl::Status EmitReductionCombine(llvm::IRBuilder<>& b,
                                  const HloInstruction& reduce,
                                  ElementalEmitter& fused, llvm::Value* output,
                                  llvm::Value* scratch,
                                  const ReductionPlan& plan);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_REDUCTION_EMITTER_H_
