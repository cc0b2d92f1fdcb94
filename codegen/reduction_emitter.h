// The body of an input fusion: a reduce at the root, its producers fused in
// and generated element by element (never materialized).
//
// Each output element starts from its init value and folds in its reduced
// elements in increasing row-major order, as the evaluator does. The loop
// orders and splits (ReductionPlan), none of which depends on the thread
// count:
//   * the last dimension is kept (e.g. a column sum): per unit, one block of
//     kColumnBlockBytes of an output row; the block is the accumulator and
//     the innermost loop runs along it, so the loop vectorizes across output
//     elements and keeps the exact order. Blocks split the work among
//     threads without changing any element's order.
//   * the operand's last dimension is reduced: per output element, a loop
//     nest over the reduced dimensions with the accumulator in a register;
//     with CodegenOptions::reassociate_reductions, plain float add/multiply
//     reducers are reassociated so this loop gets vector accumulators.
//   * as the previous one, but with fewer than kMinOutputsToSplit outputs
//     (e.g. a sum to a scalar) and a reducer whose order does not matter
//     (MaySplitReducedRange): each output's reduced range is cut into
//     chunks of kPartialChunkElements, one unit each, whose partial results
//     go to a scratch buffer; EmitReductionCombine then folds the init value
//     and the partials in chunk order. Other reducers keep the single loop.
#ifndef MXLA_CODEGEN_REDUCTION_EMITTER_H_
#define MXLA_CODEGEN_REDUCTION_EMITTER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/elemental_emitter.h"
#include "ir/hlo_instruction.h"

namespace mxla::codegen {

// True if `reduce` runs one output row per unit (the last dimension kept).
bool ReduceKeepsLastDimension(const HloInstruction& reduce);

// Whether `reducer` is `opcode` applied to its two (distinct) parameters.
bool IsPlainBinaryReducer(const HloComputation& reducer, HloOpcode opcode);

// Whether `reducer` may be reassociated: a plain add or multiply (one
// output). No other reducer ever is.
bool MayReassociate(const HloComputation& reducer);

// acc = reducer(acc..., x...) for `reduce`'s to_apply, emitted inline.
// With `reassociate`, a plain add/multiply reducer (MayReassociate) carries
// the reassoc flag, every other reducer keeps its exact order, and a float
// maximum/minimum reducer becomes llvm.maximum/minimum: the same values
// (NaN-propagating, -0 < +0) except which NaN payload wins, in a form the
// loop vectorizer turns into vector accumulators.
absl::StatusOr<std::vector<llvm::Value*>> ApplyReducer(
    llvm::IRBuilder<>& b, const HloInstruction& reduce,
    const std::vector<llvm::Value*>& accumulators,
    const std::vector<llvm::Value*>& elements, bool reassociate);

inline constexpr int64_t kColumnBlockBytes = 2048;
inline constexpr int64_t kMinOutputsToSplit = 64;
inline constexpr int64_t kPartialChunkElements = 16384;

// How a reduce kernel's work is cut into units.
struct ReductionPlan {
  int64_t units = 0;          // the iteration space [0, units)
  int64_t column_block = 0;   // kept last dimension: elements per block
  int64_t column_blocks = 1;  //   and blocks per output row
  int64_t chunks = 0;         // > 0: partial results, chunks per output
  int64_t scratch_bytes = 0;  //   in a scratch buffer of this size
};

// Whether the reduced range of `reduce` may be split into partial results
// combined later: one input, and a plain integer or boolean
// add/multiply/max/min/and/or reducer, or a float add/multiply/max/min one
// with reassociate_reductions.
bool MaySplitReducedRange(const HloInstruction& reduce,
                          const CodegenOptions& options);

ReductionPlan PlanReduction(const HloInstruction& reduce,
                            const CodegenOptions& options);

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
