// The body of a row fusion as its RowPlan (ir/fusion_plan.h) describes it:
// one unit per row. For each row, one loop along the row per reduce, in
// post order, with the accumulator in a register and the result then bound
// as that reduce's value; the plan's buffered values are stored to a stack
// row buffer by their writer loop and loaded by later ones; a last loop
// (or, for a root of row shape, one element) writes the output row. Every loop
// runs over the row's contiguous elements, so with the row in L1 the whole
// chain reads the input from memory once. When the output streams, its
// loop also prefetches the next row of each row-major operand, one cache
// line per output vector, so memory works while the row computes (softmax
// of f32[4096,1024], 2 threads: 0.86 -> 0.67 ms in the anchors harness).
//
// Reductions fold their elements in increasing order exactly as the
// evaluator does, unless CodegenOptions::reassociate_reductions lets
// ReductionAccumulator (reduction_accumulator.h) reassociate them.
#ifndef MXLA_CODEGEN_ROW_EMITTER_H_
#define MXLA_CODEGEN_ROW_EMITTER_H_

#include "absl/status/status.h"
#include "codegen/codegen_options.h"
#include "codegen/elemental_emitter.h"
#include "ir/fusion_plan.h"

namespace mxla::codegen {

// Emits rows [begin, end) of `fused` as `rows` plans them (a plan the
// verifier accepted), writing the root's values to `output`, with
// streaming stores if the plan says so (streaming_store_emitter.h).
absl::Status EmitRowFusion(llvm::IRBuilder<>& b, const HloComputation& fused,
                           const RowPlan& rows, ElementalEmitter& elements,
                           llvm::Value* output, llvm::Value* begin,
                           llvm::Value* end, const CodegenOptions& options);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_ROW_EMITTER_H_
