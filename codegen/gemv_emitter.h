// The kernel of a skinny dot fusion (a DotPlan without rows whose dot has
// at most kGemvMaxRows lhs rows, m): the matrix-vector products of a
// language model's decode step. Packing rhs (codegen/gemm_emitter.h) costs
// as much as the product when each weight is used m times, so this kernel
// streams the weights once, in place, at memory bandwidth.
//
//   * rhs must be a view of one parameter of the fused computation: the
//     parameter through transposes, broadcasts, size-1 reshapes and
//     widening float converts (bf16 or f16 to f32 or f64, f32 to f64),
//     which are read through by addressing and by converting each loaded
//     vector in registers (exact). Its layout picks the loop:
//       - k contiguous ([n, k], a transposed rhs such as x . E^T): each
//         output is a dot product over a row of rhs; 4 rows at a time
//         share the loads of x. Lane l of a vector accumulator sums the
//         products of k = l (mod lanes) in ascending k, one fma each (the
//         last, partial vector masked); a fixed halving tree then adds
//         the lanes (lanes [0, h) + [h, 2h), repeated).
//       - n contiguous ([k, n]): x[k] broadcast into fmas along a block
//         of the row (accumulators in a stack block of up to 64 KiB per
//         lhs row), 4 rows of k per load and store of an accumulator.
//         Each output's sum runs over k in ascending order from 0, one
//         fma per step: the GEMM micro-kernel's order.
//   * The lhs rows of a batch element are generated once, through the
//     fused producers, into a stack buffer that the loops read.
//   * A kernel call's units (n blocks of one batch element, m_block = m)
//     are taken a few consecutive ones at a time, so that each thread
//     streams long runs of rhs; k-contiguous rows, and n-contiguous runs
//     shorter than a page, are prefetched ahead.
// Every output is computed by one unit, alone and in the order above,
// so the results never depend on the thread count or the plan's blocks;
// they differ from the interpreter's by rounding only.
#ifndef MXLA_CODEGEN_GEMV_EMITTER_H_
#define MXLA_CODEGEN_GEMV_EMITTER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "codegen/elemental_emitter.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// The most lhs rows (m) a dot may have for the skinny kernel. Up to 8
// rows (a short prompt, a small batch of decodes) streaming beats packing
// the weights: 85 MB of [9216, 2304] weights at 8 rows took 4.9 ms here
// against the packed kernel's 7.3, and 3.9 against 52 ms transposed.
inline constexpr int64_t kGemvMaxRows = 8;

// Whether EmitGemvKernel takes the dot fusion `fused` planned as `plan`
// with the dot `dot` (its root, or its epilogue's dot): no rows, not a
// convolution, m <= kGemvMaxRows in one m block, rhs a view of a parameter
// with k or its innermost n dimension contiguous, lhs rows that fit the
// stack.
bool TakesGemv(const HloInstruction& dot, const DotPlan& plan);

// Emits units [begin, end) of the dot fusion into `result` (TakesGemv
// holds; `elements` generates lhs and the epilogue).
absl::Status EmitGemvKernel(llvm::IRBuilder<>& b, const HloComputation& fused,
                            const HloInstruction& dot, const DotPlan& plan,
                            ElementalEmitter& elements, llvm::Value* result,
                            llvm::Value* begin, llvm::Value* end);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_GEMV_EMITTER_H_
