// The body of an input fusion: a reduce at the root, its producers fused in
// and generated element by element (never materialized).
//
// Each output element starts from its init value and folds in its reduced
// elements in increasing row-major order, as the evaluator does. Two loop
// orders:
//   * the operand's last dimension is reduced: per output element, a loop
//     nest over the reduced dimensions with the accumulator in a register;
//     with CodegenOptions::reassociate_reductions, float add/multiply
//     reducers may be reassociated so this loop gets vector accumulators;
//   * the last dimension is kept: per output row, the accumulators are the
//     output row itself and the innermost loop runs along it, so the loop
//     vectorizes across output elements and keeps the exact order.
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

// acc = reducer(acc..., x...) for `reduce`'s to_apply, emitted inline.
// With `reassociate`, float add/multiply carry the reassoc flag, and a float
// maximum/minimum reducer becomes llvm.maximum/minimum: the same values
// (NaN-propagating, -0 < +0) except which NaN payload wins, in a form the
// loop vectorizer turns into vector accumulators.
absl::StatusOr<std::vector<llvm::Value*>> ApplyReducer(
    llvm::IRBuilder<>& b, const HloInstruction& reduce,
    const std::vector<llvm::Value*>& accumulators,
    const std::vector<llvm::Value*>& elements, bool reassociate);

// Emits the loops for units [begin, end) of `reduce` (the fused
// computation's root), writing `outputs` (one buffer per result).
absl::Status EmitReduction(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                           ElementalEmitter& fused,
                           const std::vector<llvm::Value*>& outputs,
                           llvm::Value* begin, llvm::Value* end,
                           const CodegenOptions& options);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_REDUCTION_EMITTER_H_
